/**
 * How the ask_user tool tells the service that a host callback (its `onUpdate`) threw, so the
 * failure lands in the ask's audit trail. Internal: a symbol, not public API; a service that
 * does not implement it simply has no such audit events.
 */
export const RECORD_CALLBACK_FAILURE: unique symbol = Symbol('ask-engine.recordCallbackFailure');

interface CallbackFailureRecorder {
  [RECORD_CALLBACK_FAILURE](askId: string, callback: string, message: string): Promise<void>;
}

/** Records the failure if `service` can; never throws. */
export function recordCallbackFailure(
  service: unknown,
  askId: string,
  callback: string,
  message: string,
): void {
  const recorder = (service as Partial<CallbackFailureRecorder> | null)?.[RECORD_CALLBACK_FAILURE];
  if (typeof recorder !== 'function') return;
  recorder.call(service, askId, callback, message).catch(() => undefined);
}
