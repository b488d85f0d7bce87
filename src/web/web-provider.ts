/** An `AskProvider` that hands each ask to its web page: deferred to the link, or pending while the link goes out. */
import type { ProviderOutcome } from '../contracts/outcome.js';
import type { AskUserRequest } from '../contracts/request.js';
import type { AskProvider, AskProviderContext } from '../engine/provider.js';
import type { WebAnswerServer } from './answer-server.js';

/** Options of `createWebProvider`: how the link reaches the person, and defer or wait. */
export interface WebProviderOptions {
  /**
   * Receives each ask's signed link, to print it or post it where the person is (a chat
   * thread, a notification). Awaited: a rejection ends the ask as a provider error.
   */
  notify?: (
    link: string,
    ask: { askId: string; request: AskUserRequest; deadlineAt?: number },
  ) => unknown;
  /**
   * `defer` (default): the ask ends the tool call as `deferred` with the ask id as its
   * interaction id and waits for the page. `pending`: the caller keeps waiting until the answer
   * arrives through the page (the service settles the ask and aborts this provider's signal).
   */
  mode?: 'defer' | 'pending';
}

/**
 * Works with anything that makes links: `createWebAnswerServer`'s server or `createAnswerApp`'s app.
 *
 * @example
 * const server = await createWebAnswerServer({ service, secret });
 * service.registerProvider(createWebProvider(server, { mode: 'pending', notify: (link) => console.log(link) }));
 */
export function createWebProvider(
  server: Pick<WebAnswerServer, 'linkFor'>,
  options: WebProviderOptions = {},
): AskProvider {
  const { notify, mode = 'defer' } = options;
  if (mode !== 'defer' && mode !== 'pending') {
    throw new TypeError(
      `Expected \`mode\` to be "defer" or "pending", got ${JSON.stringify(mode)}.`,
    );
  }
  if (notify !== undefined && typeof notify !== 'function') {
    throw new TypeError(`Expected \`notify\` to be a function, got ${typeof notify}.`);
  }
  return {
    async ask(request, ctx) {
      ctx.signal.throwIfAborted();
      const link = await server.linkFor(ctx.askId);
      await notify?.(link, {
        askId: ctx.askId,
        request,
        ...(ctx.deadlineAt === undefined ? {} : { deadlineAt: ctx.deadlineAt }),
      });
      if (mode === 'defer') {
        return {
          status: 'deferred',
          interactionId: ctx.askId,
          message: 'The question waits on its web page; the person answers there.',
        };
      }
      return untilSettled(ctx);
    },
  };
}

/**
 * The answer arrives through `service.answer`, which settles the ask and aborts the signal:
 * this call then ends with the signal's reason and the service keeps the outcome it recorded.
 */
function untilSettled(ctx: AskProviderContext): Promise<ProviderOutcome> {
  return new Promise((_, reject) => {
    if (ctx.signal.aborted) return reject(ctx.signal.reason);
    ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
  });
}
