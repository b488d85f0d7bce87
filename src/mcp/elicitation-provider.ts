/** An `AskProvider` that asks an MCP client's user through `elicitation/create`. */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { type ElicitResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ProviderOutcome } from '../contracts/outcome.js';
import type { AskUserRequest } from '../contracts/request.js';
import type { Clock } from '../engine/clock.js';
import type { AskProvider, AskProviderContext } from '../engine/provider.js';
import { escapeMarkdown } from '../form/escape-text.js';
import { describe } from '../rules/describe.js';
import { isUserInteractionError, UserInteractionError } from '../rules/errors.js';
import { readElicitationContent } from './elicitation-answer.js';
import {
  buildElicitationForm,
  type ElicitationForm,
  prefersAnswerPage,
} from './elicitation-schema.js';

/** What the provider needs of the SDK's low-level `Server` (`mcpServer.server`). */
export type ElicitationServer = Pick<
  Server,
  'elicitInput' | 'getClientCapabilities' | 'createElicitationCompletionNotifier' | 'onerror'
>;

export interface ElicitationProviderOptions {
  /**
   * The answer page's link for an ask (e.g. the web answer server's `linkFor`), for URL-mode
   * elicitation: used when the client declares URL elicitation and either cannot show forms or
   * the ask has a question a flat form expresses poorly (pick or type on one question).
   */
  urlFor?(askId: string): string | undefined;
  /** The service's clock, so the time left before `deadlineAt` is measured on the same clock. */
  clock?: Pick<Clock, 'now'>;
  /** How many times a form reply that breaks a rule is sent back with the reason; default 3. */
  maxAttempts?: number;
}

/** `cancelled` / `user` messages: the client's `decline` and `cancel` actions, kept apart. */
export const DECLINED = 'declined';
export const DISMISSED = 'dismissed';

// Node's timers hold at most 2^31-1 ms (about 24.8 days); a longer timeout would fire at once.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Creates a provider that asks the connected MCP client's user: one form per ask (form mode),
 * or a link to the answer page (URL mode). The time left before the ask's deadline is the
 * request's timeout (not the SDK's 60 s default) and the ask's signal cancels the request.
 * Replies: `accept` becomes answers (option values mapped back to titles); `decline` is
 * `cancelled` / `user` "declined" and `cancel` is `cancelled` / `user` "dismissed", never an
 * answer; a client without elicitation is `cancelled` / `unavailable` with the reason.
 *
 * @example
 * const mcp = new McpServer({ name: 'my-agent', version: '1.0.0' });
 * service.registerProvider(createElicitationProvider(mcp.server));
 */
export function createElicitationProvider(
  server: ElicitationServer,
  options: ElicitationProviderOptions = {},
): AskProvider {
  if (
    typeof server !== 'object' ||
    server === null ||
    typeof server.elicitInput !== 'function' ||
    typeof server.getClientCapabilities !== 'function'
  ) {
    throw new TypeError(
      `Expected \`server\` to be the MCP SDK's low-level Server (e.g. \`mcpServer.server\`), got ${describe(server)}.`,
    );
  }
  const { urlFor, clock, maxAttempts = 3 } = options;
  if (urlFor !== undefined && typeof urlFor !== 'function') {
    throw new TypeError(
      `Expected \`urlFor\` to be a function (askId) => string | undefined, got ${describe(urlFor)}.`,
    );
  }
  if (clock !== undefined && typeof clock?.now !== 'function') {
    throw new TypeError(`Expected \`clock\` to have a now() function, got ${describe(clock)}.`);
  }
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new TypeError(
      `Expected \`maxAttempts\` to be an integer from 1 and up, got ${describe(maxAttempts)}.`,
    );
  }
  const now = clock === undefined ? Date.now : () => clock.now();

  return {
    async ask(request: AskUserRequest, ctx: AskProviderContext): Promise<ProviderOutcome> {
      ctx.signal.throwIfAborted();
      // Throws LIMIT_EXCEEDED (and friends) before the client sees anything.
      const form = buildElicitationForm(request.questions);
      const modes = supportedModes(server);
      if (modes === 'not-connected') {
        return unavailable(
          'No MCP client has connected to the server yet, so nobody can be asked.',
        );
      }
      const link =
        modes.url && (!modes.form || prefersAnswerPage(request.questions))
          ? urlFor?.(ctx.askId)
          : undefined;
      const call = new ElicitationCall(server, ctx, now);
      if (link !== undefined) return call.byUrl(form, link);
      if (modes.form) return call.byForm(form, maxAttempts);
      if (!modes.url) {
        return unavailable(
          'The MCP client did not declare the elicitation capability, so it cannot ask its user.',
        );
      }
      return unavailable(
        'The MCP client supports only URL elicitation and no answer page link is available for this ask (createElicitationProvider option urlFor).',
      );
    },
  };
}

/** One ask's requests to the client, with its deadline and signal. */
class ElicitationCall {
  readonly #server: ElicitationServer;
  readonly #ctx: AskProviderContext;
  readonly #now: () => number;
  /** Whether the last request's timeout was cut to the longest timer instead of the deadline. */
  #capped = false;

  constructor(server: ElicitationServer, ctx: AskProviderContext, now: () => number) {
    this.#server = server;
    this.#ctx = ctx;
    this.#now = now;
  }

  async byForm(form: ElicitationForm, maxAttempts: number): Promise<ProviderOutcome> {
    let message = form.message;
    for (let attempt = 1; ; attempt++) {
      const sent = await this.#send(() =>
        this.#server.elicitInput(
          { mode: 'form', message, requestedSchema: form.requestedSchema },
          this.#requestOptions(),
        ),
      );
      if ('outcome' in sent) return sent.outcome;
      const { action, content } = sent.reply;
      if (action !== 'accept') return this.#refusal(action);
      try {
        return { status: 'answered', answers: readElicitationContent(form, content ?? {}) };
      } catch (error) {
        if (!isAnswerRefusal(error) || attempt >= maxAttempts) throw error;
        // The person gets the form again with what to change; nothing is recorded yet.
        message = `Your answer was not recorded: ${escapeMarkdown(error.message)}\n\n${form.message}`;
      }
    }
  }

  async byUrl(form: ElicitationForm, url: string): Promise<ProviderOutcome> {
    const { askId, signal } = this.#ctx;
    const message = `${form.subject}\n\nAnswer on the page the link opens.`;
    const sent = await this.#send(() =>
      this.#server.elicitInput(
        { mode: 'url', elicitationId: askId, url, message },
        this.#requestOptions(),
      ),
    );
    if ('outcome' in sent) return sent.outcome;
    if (sent.reply.action !== 'accept') return this.#refusal(sent.reply.action);
    // The person agreed to open the page; the answer arrives there (service.answer), which
    // settles the ask and aborts the signal. Until then the ask stays pending.
    try {
      return await aborted(signal);
    } finally {
      this.#server
        .createElicitationCompletionNotifier(askId)()
        // The ask is settled either way; a client that can no longer be told is reported, not fatal.
        .catch((error: unknown) => this.#server.onerror?.(asError(error)));
    }
  }

  #refusal(action: 'decline' | 'cancel'): ProviderOutcome {
    // Only `accept` carries an answer: a decline is never read as a choice, least of all approval.
    return {
      status: 'cancelled',
      reason: 'user',
      message: action === 'decline' ? DECLINED : DISMISSED,
    };
  }

  #requestOptions(): RequestOptions {
    const { deadlineAt, signal } = this.#ctx;
    const left = deadlineAt === undefined ? Number.POSITIVE_INFINITY : deadlineAt - this.#now();
    this.#capped = left > MAX_TIMER_MS;
    return { signal, timeout: Math.min(MAX_TIMER_MS, Math.max(1, left)) };
  }

  /** The client's reply, or the outcome when the request could not get one. */
  async #send(
    request: () => Promise<ElicitResult>,
  ): Promise<{ reply: ElicitResult } | { outcome: ProviderOutcome }> {
    const { signal } = this.#ctx;
    try {
      return { reply: await request() };
    } catch (error) {
      // The SDK reports a cancelled request as its own error; the ask's cause is the reason.
      if (signal.aborted) throw signal.reason;
      if (!(error instanceof McpError)) throw error;
      if (error.code === ErrorCode.RequestTimeout) {
        // The request timed out at the ask's deadline: the service ends the ask `timedOut` and
        // aborts the signal any moment now; that outcome is the service's to give.
        if (!this.#capped) return aborted(signal);
        return {
          outcome: unavailable(
            `The MCP client did not reply within ${MAX_TIMER_MS} ms, the longest timeout a timer allows; give the ask a deadline.`,
          ),
        };
      }
      if (
        error.code === ErrorCode.InvalidParams &&
        /does not match requested schema/.test(error.message)
      ) {
        throw new UserInteractionError(
          'INVALID_ANSWER',
          `The MCP client's reply does not fit the form it was sent: ${error.message}`,
        );
      }
      throw new Error(`The MCP client refused the elicitation request: ${error.message}`, {
        cause: error,
      });
    }
  }
}

type Modes = { form: boolean; url: boolean } | 'not-connected';

function supportedModes(server: ElicitationServer): Modes {
  const capabilities = server.getClientCapabilities();
  if (capabilities === undefined) return 'not-connected';
  // The SDK reads an empty `elicitation: {}` (older clients) as form mode.
  const elicitation = capabilities.elicitation;
  return { form: elicitation?.form !== undefined, url: elicitation?.url !== undefined };
}

function unavailable(message: string): ProviderOutcome {
  return { status: 'cancelled', reason: 'unavailable', message };
}

function isAnswerRefusal(error: unknown): error is UserInteractionError {
  return (
    isUserInteractionError(error, 'INVALID_ANSWER') ||
    isUserInteractionError(error, 'LIMIT_EXCEEDED')
  );
}

/** Rejects with the signal's reason once it aborts; never resolves. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
