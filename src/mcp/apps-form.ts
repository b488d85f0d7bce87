/**
 * The MCP Apps path of `ask_user`: for a host that renders MCP Apps and has no elicitation, the
 * ask is deferred to a `ui://` form, which answers through the app-only `ask_user_answer` tool.
 */
import { randomBytes } from 'node:crypto';
import type { ClientCapabilities, Tool } from '@modelcontextprotocol/server';
import { type Clock, systemClock } from '../engine/clock.js';
import type { AskProvider } from '../engine/provider.js';
import type { InteractionService } from '../engine/service-contract.js';
import type { AskUserToolResult } from '../tool/tool-result.js';
import { createLinkTokenSigner } from '../web/link-token.js';
import { AppAnswerArgumentsSchema, type AppAnswerResult, answerFromApp } from './apps-answer.js';
import {
  ANSWER_TOOL,
  APP_FORM_META_KEY,
  APP_MIME_TYPE,
  type AppFormData,
  ASK_USER_APP_URI,
  RESOURCE_URI_META_KEY,
  UI_EXTENSION_ID,
} from './apps-contract.js';
import { type AppResourceContents, readAppResource } from './apps-resource.js';

/** Options of the Apps form. */
export interface AskUserAppOptions {
  /**
   * The HMAC key of the form's tokens (at least 32 bytes). Servers that share a store must share
   * it, so an answer lands on any of them; one process alone may leave it out (a random key).
   */
  secret?: string | Uint8Array;
  /** How long a form answers when its ask has no deadline (default 7 days, as answer links). */
  linkTtlMs?: number;
  clock?: Pick<Clock, 'now'>;
}

/** The Apps form of one server: what it lists, reads and answers. */
export interface AskUserApp {
  /** `_meta` of the `ask_user` tool definition for a client the form serves. */
  readonly toolMeta: Record<string, unknown>;
  /** The `ask_user_answer` tool definition: callable by the view only. */
  readonly answerTool: Tool;
  /** The form's entry in `resources/list`. */
  readonly resource: { uri: string; name: string; mimeType: string; description: string };
  /** `resources/read` of the form. */
  read(): Promise<{ contents: [AppResourceContents] }>;
  /** `tools/call` of `ask_user_answer`; throws `AppAnswerArgumentsError` for malformed arguments. */
  answer(args: unknown): Promise<AppAnswerResult>;
  /**
   * The provider of an `ask_user` call on the Apps path: it defers the ask to the form, so the
   * call returns at once and the form answers it later, on any server sharing the store.
   */
  readonly provider: AskProvider;
  /**
   * The call's result for the host: the tool's text for the model and, for a deferred ask, the
   * form's data (the ask, its questions, a token for it) in `_meta` for the view.
   */
  result(result: AskUserToolResult): Promise<AskUserAppResult>;
}

/** An `ask_user` result on the Apps path (a `CallToolResult`). */
export type AskUserAppResult = {
  content: [{ type: 'text'; text: string }];
  isError?: true;
  _meta?: Record<string, unknown>;
};

const DAY_MS = 86_400_000;

/**
 * Whether `ask_user` answers `capabilities` through the Apps form: the client renders MCP Apps
 * (the `io.modelcontextprotocol/ui` extension with the `text/html;profile=mcp-app` type) and
 * declares no elicitation, which would ask in the client's own form instead.
 */
export function servesAppForm(capabilities: ClientCapabilities | null | undefined): boolean {
  if (capabilities?.elicitation !== undefined) return false;
  const ui = capabilities?.extensions?.[UI_EXTENSION_ID] as { mimeTypes?: unknown } | undefined;
  return Array.isArray(ui?.mimeTypes) && ui.mimeTypes.includes(APP_MIME_TYPE);
}

/**
 * Creates the Apps form over `service`.
 *
 * @example
 * const app = createAskUserApp(service, { secret });
 * const result = await app.result(await tool.execute(toolCallId, args)); // with app.provider
 */
export function createAskUserApp(
  service: InteractionService,
  options: AskUserAppOptions = {},
): AskUserApp {
  const { clock = systemClock, linkTtlMs = 7 * DAY_MS } = options;
  if (!(linkTtlMs > 0) || !Number.isFinite(linkTtlMs)) {
    throw new TypeError(`Expected \`linkTtlMs\` to be a number above 0, got ${String(linkTtlMs)}.`);
  }
  const signer = createLinkTokenSigner(options.secret ?? randomBytes(32));
  const uiMeta = {
    ui: { resourceUri: ASK_USER_APP_URI },
    [RESOURCE_URI_META_KEY]: ASK_USER_APP_URI,
  };

  /** The form's data for a deferred ask: its questions and a token for it alone. */
  const formData = async (askId: string): Promise<AppFormData> => {
    const ask = await service.get(askId);
    if (ask === undefined) throw new Error(`The ask ${askId} is missing from the store.`);
    const expiresAt = Math.floor(
      Math.min(ask.deadlineAt ?? Number.POSITIVE_INFINITY, clock.now() + linkTtlMs),
    );
    return {
      askId,
      token: signer.sign(askId, Math.max(expiresAt, 1)),
      questions: ask.questions,
      ...(ask.agent === undefined ? {} : { agent: ask.agent }),
      ...(ask.deadlineAt === undefined ? {} : { deadlineAt: ask.deadlineAt }),
    };
  };

  return {
    toolMeta: uiMeta,
    answerTool: {
      name: ANSWER_TOOL,
      description:
        'Records the answer the user gave in the ask_user form. Called by the form only, never by the model.',
      inputSchema: JSON.parse(JSON.stringify(AppAnswerArgumentsSchema)) as Tool['inputSchema'],
      _meta: { ui: { resourceUri: ASK_USER_APP_URI, visibility: ['app'] } },
    },
    resource: {
      uri: ASK_USER_APP_URI,
      name: 'ask_user form',
      mimeType: APP_MIME_TYPE,
      description: 'The form in which the user answers an ask_user question.',
    },
    read: async () => ({ contents: [await readAppResource()] }),
    answer: (args) => answerFromApp(service, signer, clock, args),
    provider: {
      ask: (_request, ctx) =>
        Promise.resolve({
          status: 'deferred',
          interactionId: `mcp-app:${ctx.askId}`,
          message:
            'The question is shown to the user in a form; their answer arrives as their next message.',
        }),
    },
    async result({ content, details, isError }) {
      const base = { content, ...(isError === true ? { isError: true as const } : {}) };
      if (details.status !== 'deferred' || details.askId === undefined) return base;
      return { ...base, _meta: { ...uiMeta, [APP_FORM_META_KEY]: await formData(details.askId) } };
    },
  };
}
