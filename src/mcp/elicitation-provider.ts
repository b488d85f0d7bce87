/** An `AskProvider` that asks an MCP client's user through `elicitation/create`. */
import {
  type ElicitResult,
  ProtocolError,
  ProtocolErrorCode,
  type RequestId,
  type RequestOptions,
  SdkError,
  SdkErrorCode,
  type Server,
} from '@modelcontextprotocol/server';
import type { ProviderOutcome } from '../contracts/outcome.js';
import type { AskUserRequest } from '../contracts/request.js';
import type { Clock } from '../engine/clock.js';
import type { AskProvider, AskProviderContext } from '../engine/provider.js';
import { describe } from '../rules/describe.js';
import { UserInteractionError } from '../rules/errors.js';
import { readElicitationContent } from './elicitation-answer.js';
import {
  answerPageMessage,
  clientAnswerer,
  type ElicitationModes,
  elicitationModes,
  isAnswerRefusal,
  refusalOutcome,
  retryMessage,
  wantsAnswerPage,
} from './elicitation-rules.js';
import { buildElicitationForm, type ElicitationForm } from './elicitation-schema.js';

/**
 * What the provider needs of the SDK's low-level `Server` (`mcpServer.server`); with
 * `getClientVersion`, a form answer records the client's name as who answered.
 */
export type ElicitationServer = Pick<
  Server,
  'elicitInput' | 'getClientCapabilities' | 'createElicitationCompletionNotifier' | 'onerror'
> &
  Partial<Pick<Server, 'getClientVersion'>>;

/** Options of `createElicitationProvider`. */
export interface ElicitationProviderOptions {
  /**
   * The answer page's link for an ask (e.g. the web answer server's `linkFor`, which resolves
   * to it), for URL-mode elicitation: used when the client declares URL elicitation and either
   * cannot show forms or the ask has a question a flat form expresses poorly (pick or type on
   * one question).
   */
  urlFor?(askId: string): string | undefined | Promise<string | undefined>;
  /** The service's clock, so the time left before `deadlineAt` is measured on the same clock. */
  clock?: Pick<Clock, 'now'>;
  /** How many times a form reply that breaks a rule is sent back with the reason; default 3. */
  maxAttempts?: number;
  /**
   * The MCP request an ask belongs to (the `tools/call` that asked, as the SDK numbered it), so
   * its elicitation travels with that request. Over Streamable HTTP a server request without
   * one goes to the standalone SSE stream, and the SDK drops it when the client has not opened
   * that stream. Not needed over stdio.
   */
  relatedRequestId?(ctx: AskProviderContext): RequestId | undefined;
}

// Node's timers hold at most 2^31-1 ms (about 24.8 days); a longer timeout would fire at once.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Creates a provider that asks the connected MCP client's user: one form per ask (form mode),
 * or a link to the answer page (URL mode). The time left before the ask's deadline is the
 * request's timeout (not the SDK's 60 s default) and the ask's signal cancels the request.
 * Replies: `accept` becomes answers (option values mapped back to titles), answered by the
 * client (`answeredBy: { recipient: clientInfo.name from initialize, channel: 'mcp' }`);
 * `decline` is `cancelled` / `user` "declined" and `cancel` is `cancelled` / `user`
 * "dismissed", never an answer; a client without elicitation is `cancelled` / `unavailable`
 * with the reason.
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
  const { urlFor, clock, maxAttempts = 3, relatedRequestId } = options;
  if (urlFor !== undefined && typeof urlFor !== 'function') {
    throw new TypeError(
      `Expected \`urlFor\` to be a function (askId) => string | undefined, got ${describe(urlFor)}.`,
    );
  }
  if (relatedRequestId !== undefined && typeof relatedRequestId !== 'function') {
    throw new TypeError(
      `Expected \`relatedRequestId\` to be a function (ctx) => request id | undefined, got ${describe(relatedRequestId)}.`,
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
      const link = wantsAnswerPage(modes, request.questions)
        ? await urlFor?.(ctx.askId)
        : undefined;
      const call = new ElicitationCall(server, ctx, now, relatedRequestId?.(ctx));
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
  readonly #related: { relatedRequestId: RequestId } | Record<string, never>;
  /** Whether the last request's timeout was cut to the longest timer instead of the deadline. */
  #capped = false;

  constructor(
    server: ElicitationServer,
    ctx: AskProviderContext,
    now: () => number,
    relatedRequestId: RequestId | undefined,
  ) {
    this.#server = server;
    this.#ctx = ctx;
    this.#now = now;
    this.#related = relatedRequestId === undefined ? {} : { relatedRequestId };
  }

  async byForm(form: ElicitationForm, maxAttempts: number): Promise<ProviderOutcome> {
    let message = form.message;
    for (let attempt = 1; ; attempt++) {
      const sent = await this.#send((options) =>
        this.#server.elicitInput(
          { mode: 'form', message, requestedSchema: form.requestedSchema },
          options,
        ),
      );
      if ('outcome' in sent) return sent.outcome;
      const { action, content } = sent.reply;
      if (action !== 'accept') return refusalOutcome(action);
      try {
        const answers = readElicitationContent(form, content ?? {});
        const answeredBy = clientAnswerer(this.#server.getClientVersion?.()?.name);
        return answeredBy === undefined
          ? { status: 'answered', answers }
          : { status: 'answered', answers, answeredBy };
      } catch (error) {
        if (!isAnswerRefusal(error) || attempt >= maxAttempts) throw error;
        // The person gets the form again with what to change; nothing is recorded yet.
        message = retryMessage(form, error);
      }
    }
  }

  async byUrl(form: ElicitationForm, url: string): Promise<ProviderOutcome> {
    const { askId, signal } = this.#ctx;
    const message = answerPageMessage(form);
    const sent = await this.#send((options) =>
      this.#server.elicitInput({ mode: 'url', elicitationId: askId, url, message }, options),
    );
    if ('outcome' in sent) return sent.outcome;
    if (sent.reply.action !== 'accept') return refusalOutcome(sent.reply.action);
    // The person agreed to open the page; the answer arrives there (service.answer), which
    // settles the ask and aborts the signal. Until then the ask stays pending.
    try {
      return await aborted(signal);
    } finally {
      this.#server
        .createElicitationCompletionNotifier(askId, this.#related)()
        // The ask is settled either way; a client that can no longer be told is reported, not fatal.
        .catch((error: unknown) => this.#server.onerror?.(asError(error)));
    }
  }

  /** Timeout from the deadline; `signal` is the one request's, see `#send`. */
  #requestOptions(signal: AbortSignal): RequestOptions {
    const { deadlineAt } = this.#ctx;
    const left = deadlineAt === undefined ? Number.POSITIVE_INFINITY : deadlineAt - this.#now();
    this.#capped = left > MAX_TIMER_MS;
    return { signal, timeout: Math.min(MAX_TIMER_MS, Math.max(1, left)), ...this.#related };
  }

  /** The client's reply, or the outcome when the request could not get one. */
  async #send(
    request: (options: RequestOptions) => Promise<ElicitResult>,
  ): Promise<{ reply: ElicitResult } | { outcome: ProviderOutcome }> {
    const { signal } = this.#ctx;
    signal.throwIfAborted();
    // The SDK never removes its listener from a request's signal, and cancels the request on
    // abort even after it was answered: each request gets a signal of its own, fed by the ask's
    // only while the request is open.
    const own = new AbortController();
    const forward = () => own.abort(signal.reason);
    signal.addEventListener('abort', forward, { once: true });
    try {
      return { reply: await request(this.#requestOptions(own.signal)) };
    } catch (error) {
      // The SDK reports a cancelled request as its own error; the ask's cause is the reason.
      if (signal.aborted) throw signal.reason;
      if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
        // The request timed out at the ask's deadline: the service ends the ask `timedOut` and
        // aborts the signal any moment now; that outcome is the service's to give.
        if (!this.#capped) return aborted(signal);
        return {
          outcome: unavailable(
            `The MCP client did not reply within ${MAX_TIMER_MS} ms, the longest timeout a timer allows; give the ask a deadline.`,
          ),
        };
      }
      if (!(error instanceof ProtocolError || error instanceof SdkError)) throw error;
      if (
        error.code === ProtocolErrorCode.InvalidParams &&
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
    } finally {
      signal.removeEventListener('abort', forward);
    }
  }
}

function supportedModes(server: ElicitationServer): ElicitationModes | 'not-connected' {
  const capabilities = server.getClientCapabilities();
  return capabilities === undefined ? 'not-connected' : elicitationModes(capabilities);
}

function unavailable(message: string): ProviderOutcome {
  return { status: 'cancelled', reason: 'unavailable', message };
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
