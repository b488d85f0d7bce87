/** `ask-engine serve --store asks.db`: the web answer page for the asks in a SQLite store. */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { AnsweredBy } from '../contracts/outcome.js';
import type { AskAuditEvent } from '../engine/audit.js';
import { createInteractionService } from '../engine/service.js';
import { isUserInteractionError } from '../rules/errors.js';
import { escapeControlCharacters } from '../rules/escape-text.js';
import { checkBaseUrl } from '../web/answer-app.js';
import { createWebAnswerServer, type WebAnswerServer } from '../web/answer-server.js';
import { MIN_SECRET_BYTES } from '../web/link-token.js';
import { storeAuditEvents } from '../web/store-events.js';
import { openCliStore } from './cli-store.js';
import { withoutCredentials } from './credentials.js';
import { EXIT } from './exit-codes.js';
import { listenProblem } from './listen-problem.js';
import { parseFlags } from './parse-flags.js';
import { toStderrText } from './stderr-text.js';
import { UsageError } from './usage-error.js';

export const SERVE_HELP = `Usage: ask-engine serve --store FILE [options]

Serves the web answer page for the asks in a SQLite store, so that asks deferred by any program
sharing the store can be answered from a browser. Prints the address, the live asks view, one
line "link <askId> <url>" for every ask waiting deferred in the store (those deferred before it
started first), and one line as each ask ends: "answered <askId>" (with "by <who> (<channel>)"
when the answer says who gave it), "declined <askId>",
"timed out <askId>", "cancelled <askId> (<reason>)" or "aborted <askId>". Stops on ctrl+c or
SIGTERM. A store that cannot be opened (a wrong path, not a database) fails with exit code 5;
a port in use, a --host it cannot listen on or a --base-url that is no http(s) address fails
with exit code 2, in one line naming the flag and the fix.

Options:
  --store FILE                the SQLite file the asking programs share (must exist: an asking
                              program, or ask-engine ask --store FILE, creates it)
  --port N                    default 0: any free port
  --host HOST                 default 127.0.0.1
  --base-url URL              the public address in links (behind a proxy)
  --secret-file FILE          HMAC key of the links, at least 32 bytes; without it a random key
                              is used and links stop working when the process ends
  --operator-token-file FILE  token of the live asks view (/asks); default random, printed
  -h, --help                  this help

Example:
  ask-engine ask '{"question":"Deploy now?","options":["Yes","No"]}' --store asks.db --defer
  openssl rand -base64 48 > web.secret
  ask-engine serve --store asks.db --port 8080 --secret-file web.secret
`;

/**
 * Serves until SIGINT or SIGTERM. Prints the server's address, the operator view's address and,
 * for every ask deferred into the store by any process, its answer link (one `link <askId> <url>` line).
 *
 * @example
 * process.exitCode = await runServeCommand(['--store', 'asks.db', '--port', '8080']);
 */
export async function runServeCommand(
  argv: string[],
  stop: AbortSignal = signalOnExit(),
): Promise<number> {
  const { values, positionals } = parseFlags('serve', argv, {
    store: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    'base-url': { type: 'string' },
    'secret-file': { type: 'string' },
    'operator-token-file': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(SERVE_HELP);
    return EXIT.answered;
  }
  if (positionals.length > 0) {
    throw new UsageError(`serve takes no arguments, got ${JSON.stringify(positionals[0])}.`);
  }
  if (values.store === undefined || values.store === '') {
    throw new UsageError('serve needs --store FILE: the SQLite file the asking programs share.');
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!/^\d+$/.test(values.port ?? '0') || port > 65535) {
    throw new UsageError(
      `serve: --port must be a whole number from 0 to 65535 (0 picks a free port), got ${JSON.stringify(values.port)}.`,
    );
  }
  const host = values.host ?? '127.0.0.1';
  const baseUrl = values['base-url'];
  if (baseUrl !== undefined) checkBaseUrlFlag(baseUrl);
  const secret =
    values['secret-file'] === undefined
      ? randomBytes(32)
      : await readSecret(values['secret-file'], '--secret-file', MIN_SECRET_BYTES);
  const operatorToken =
    values['operator-token-file'] === undefined
      ? randomBytes(18).toString('base64url')
      : (await readSecret(values['operator-token-file'], '--operator-token-file', 16)).toString(
          'utf8',
        );

  const opened = await openCliStore(values.store, 'existing');
  const { store } = opened;
  const service = createInteractionService({ store });
  let server: WebAnswerServer;
  try {
    server = await createWebAnswerServer({
      service,
      secret,
      port,
      host,
      ...(baseUrl === undefined ? {} : { baseUrl }),
      operatorToken,
      store,
    });
  } catch (error) {
    await service.close();
    await opened.close();
    throw listenProblem(error, host, port) ?? error;
  }
  const out = (line: string) => process.stdout.write(`${escapeControlCharacters(line)}\n`);
  out(`serving ${server.url}`);
  out(`live asks ${server.url}/asks?token=${encodeURIComponent(operatorToken)}`);
  if (values['secret-file'] === undefined) {
    out('note: no --secret-file, so links stop working when this process ends');
  }
  const printLink = async (askId: string) => {
    // Past its deadline: the sweep times it out, and the line for its end says so.
    const deadlineAt = (await service.get(askId))?.deadlineAt;
    if (deadlineAt !== undefined && deadlineAt <= Date.now()) return;
    await server.linkFor(askId).then(
      (link) => out(`link ${askId} ${link}`),
      (error: unknown) => {
        // Ended before its link was made: the line for its end says how.
        if (isUserInteractionError(error, 'ASK_SETTLED')) return;
        process.stderr.write(toStderrText(`ask-engine serve: ${(error as Error).message}\n`));
      },
    );
  };
  // The store's feed, not service.events$: the asks were deferred by other processes.
  const subscription = storeAuditEvents(store).subscribe((event) => {
    if (event.type === 'provider.deferred') void printLink(event.askId);
    const ended = endLine(event);
    if (ended !== undefined) out(ended);
  });
  // Asks deferred before this server started: a restart shows every waiting ask again.
  // Every ask already waiting in the store, oldest first, so a restart hides none.
  const waiting: string[] = [];
  let page = await opened.store.list({ state: 'deferred' }, { limit: 1_000 });
  for (;;) {
    waiting.push(...page.items.map((item) => item.askId));
    if (page.cursor === undefined) break;
    page = await opened.store.list({ state: 'deferred' }, { cursor: page.cursor, limit: 1_000 });
  }
  for (const askId of waiting.reverse()) await printLink(askId);
  await new Promise<void>((resolve) => {
    if (stop.aborted) resolve();
    stop.addEventListener('abort', () => resolve(), { once: true });
  });
  subscription.unsubscribe();
  await server.close();
  await service.close();
  await opened.close();
  return EXIT.answered;
}

/** The line `serve` prints when an ask ends; never the answers. */
function endLine(event: AskAuditEvent): string | undefined {
  if (event.from === event.to) return undefined;
  switch (event.to) {
    case 'answered': {
      const by = (event.data as { answeredBy?: AnsweredBy }).answeredBy;
      if (by === undefined) return `answered ${event.askId}`;
      return `answered ${event.askId} by ${by.recipient}${by.channel === undefined ? '' : ` (${by.channel})`}`;
    }
    case 'cancelled': {
      const reason = (event.data as { reason?: unknown }).reason;
      return reason === 'user'
        ? `declined ${event.askId}`
        : `cancelled ${event.askId} (${String(reason)})`;
    }
    case 'timedOut':
      return `timed out ${event.askId}`;
    case 'aborted':
      return `aborted ${event.askId}`;
    default:
      return undefined;
  }
}

/** `--base-url` checked by the answer server's own rule, before the store is opened. */
function checkBaseUrlFlag(baseUrl: string): void {
  try {
    checkBaseUrl(baseUrl);
  } catch {
    throw new UsageError(
      `serve: --base-url ${JSON.stringify(withoutCredentials(baseUrl, baseUrl))} is not an http(s) URL without credentials, query or fragment; give the address people open, e.g. https://asks.example.com/answers.`,
    );
  }
}

async function readSecret(path: string, flag: string, minBytes: number): Promise<Buffer> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new UsageError(
      `${flag} ${JSON.stringify(path)} cannot be read: ${(error as Error).message}.`,
    );
  }
  // A file written by `echo` ends in a newline that is not part of the secret.
  const secret = bytes.subarray(
    0,
    bytes.length - (/\r?\n$/.exec(bytes.toString('latin1'))?.[0].length ?? 0),
  );
  if (secret.length < minBytes) {
    throw new UsageError(
      `${flag} ${JSON.stringify(path)} holds ${secret.length} bytes; it needs at least ${minBytes} (e.g. openssl rand -base64 48 > ${path}).`,
    );
  }
  return secret;
}

function signalOnExit(): AbortSignal {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return controller.signal;
}
