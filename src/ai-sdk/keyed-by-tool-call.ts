/** A view of the service whose `start` uses the call's tool-call id as the idempotency key. */
import type { InteractionService } from '../engine/service-contract.js';

/**
 * Returns the service with one change: every `start` that carries a `toolCallId` and no `key`
 * uses the tool-call id as its `key`, so a framework that retries a step (or replays it in
 * another process sharing the store) attaches to the ask it already made instead of asking
 * again. The ask_user tool keeps its API and its result text; only the key is added.
 */
export function keyedByToolCall(service: InteractionService): InteractionService {
  const start: InteractionService['start'] = (request, options) =>
    service.start(
      request,
      options?.toolCallId === undefined || options.key !== undefined
        ? options
        : { ...options, key: options.toolCallId },
    );
  return new Proxy(service, {
    get(target, property) {
      if (property === 'start') return start;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
