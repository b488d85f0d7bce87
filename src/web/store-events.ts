/** Every ask's audit events from a store's change feed: the asks of all services sharing it. */
import { Observable } from 'rxjs';
import type { AskAuditEvent } from '../engine/audit.js';
import type { AskStore } from '../stores/ask-store.js';

/** Asks whose delivered event count is remembered; an ask forgotten and seen again is replayed whole. */
const MAX_TRACKED_ASKS = 10_000;

/**
 * Follows `store.subscribe` and reads each changed ask's stored history, emitting the events
 * not emitted before, per ask in order. A service's own `events$` only carries the asks that
 * service has open; this carries every ask written to the store, by any process.
 */
export function storeAuditEvents(
  store: Pick<AskStore, 'subscribe' | 'history'>,
): Observable<AskAuditEvent> {
  return new Observable<AskAuditEvent>((subscriber) => {
    const delivered = new Map<string, number>();
    const reading = new Map<string, Promise<void>>();
    let closed = false;
    const catchUp = async (askId: string) => {
      const events: AskAuditEvent[] = [];
      for await (const event of store.history(askId)) events.push(event);
      const from = delivered.get(askId) ?? 0;
      delivered.delete(askId);
      delivered.set(askId, Math.max(from, events.length));
      if (delivered.size > MAX_TRACKED_ASKS) delivered.delete(delivered.keys().next().value!);
      for (const event of events.slice(from)) if (!closed) subscriber.next(event);
    };
    // One read at a time per ask, so its events come out once and in order.
    const queue = (askId: string) => {
      const next = (reading.get(askId) ?? Promise.resolve())
        .then(() => (closed ? undefined : catchUp(askId)))
        .catch((error: unknown) => {
          process.emitWarning(
            `ask-engine/web: cannot read the history of ask ${askId}: ${(error as Error).message}`,
          );
        });
      reading.set(askId, next);
      void next.then(() => {
        if (reading.get(askId) === next) reading.delete(askId);
      });
    };
    const unsubscribe = store.subscribe((change) => {
      if (change.type === 'changed') queue(change.askId);
      else for (const askId of delivered.keys()) queue(askId);
    });
    return () => {
      closed = true;
      unsubscribe();
    };
  });
}
