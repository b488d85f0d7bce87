/** A view of the service whose `start` uses the call's tool-call id as the idempotency key. */
import type { InteractionService } from '../engine/service-contract.js';

/**
 * Returns the service with one change: every `start` that carries a `toolCallId` and no `key`
 * uses the tool-call id as its `key` (`<sessionId>:<toolCallId>` when the call names its
 * session), so a framework that retries a step (or replays it in another process sharing the
 * store) attaches to the ask it already made instead of asking again. The ask_user tool keeps
 * its API and its result text; only the key is added.
 */
export function keyedByToolCall(service: InteractionService): InteractionService {
  const start: InteractionService['start'] = (request, options) => {
    if (options?.toolCallId === undefined || options.key !== undefined) {
      return service.start(request, options);
    }
    const { toolCallId, sessionId } = options;
    const key = sessionId === undefined ? toolCallId : `${sessionId}:${toolCallId}`;
    return service.start(request, { ...options, key });
  };
  return new Proxy(service, {
    get(target, property) {
      if (property === 'start') return start;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
