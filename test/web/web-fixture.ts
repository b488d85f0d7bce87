/** A real interaction service with the web server and provider, and one headless Chromium. */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AskStore,
  type AskUserRequestInput,
  createInteractionService,
  createMemoryAskStore,
  type InteractionServiceOptions,
} from 'ask-engine';
import {
  createWebAnswerServer,
  createWebProvider,
  type WebAnswerServerOptions,
} from 'ask-engine/web';
import { type BrowserContext, chromium } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

/** A fresh profile per launch; the browser never touches the network beyond loopback. */
export async function launchChromium(options: { javaScriptEnabled?: boolean } = {}) {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing; install the chromium package.`);
  const profile = mkdtempSync(join(tmpdir(), 'ask-engine-web-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export const OPERATOR_TOKEN = 'operator-token-for-tests';

/**
 * A service whose provider keeps each ask pending and hands its link to `links`, served by a
 * web server on loopback. `store` lets two services share one store.
 */
export async function startWebService(
  options: {
    store?: AskStore;
    mode?: 'defer' | 'pending';
    /** Default true: serve /asks with OPERATOR_TOKEN. */
    operatorView?: boolean;
    server?: Partial<Omit<WebAnswerServerOptions, 'service'>>;
    /** Options of the interaction service, e.g. `{ redact: true }`. */
    service?: Omit<InteractionServiceOptions, 'store'>;
  } = {},
) {
  const store = options.store ?? createMemoryAskStore();
  const service = createInteractionService({ ...options.service, store });
  const server = await createWebAnswerServer({
    service,
    secret: randomBytes(32),
    ...(options.operatorView === false ? {} : { operatorToken: OPERATOR_TOKEN }),
    ...options.server,
  });
  const links: string[] = [];
  const waiting: ((link: string) => void)[] = [];
  service.registerProvider(
    createWebProvider(server, {
      mode: options.mode ?? 'pending',
      notify: (link) => {
        links.push(link);
        waiting.shift()?.(link);
      },
    }),
  );
  return {
    store,
    service,
    server,
    links,
    /** Starts an ask and resolves with its handle once its link was handed out. */
    async ask(request: AskUserRequestInput, askOptions: { timeoutMs?: number } = {}) {
      const link = new Promise<string>((resolve) => waiting.push(resolve));
      const handle = service.start(request, askOptions);
      return { handle, link: await link };
    },
    async close() {
      await server.close();
      await service.close();
    },
  };
}

/** The token from a link. */
export function tokenOf(link: string): string {
  return new URL(link).searchParams.get('t')!;
}

export function postForm(url: string, fields: [string, string][], init: RequestInit = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
    ...init,
  });
}
