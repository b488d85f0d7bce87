/** Where asks that must outlive a process are kept: pending and deferred asks, and the outcome of resumed ones. */
import type { AskState } from '../audit.js';
import type { AskOutcome } from '../contracts/outcome.js';

/** The JSON-serializable snapshot of an ask actor (`actor.getPersistedSnapshot()`). */
export type PersistedAskSnapshot = Record<string, unknown>;

export interface StoredAsk {
  askId: string;
  state: AskState;
  /** Set once the ask is deferred; `resume` finds the ask by it. */
  interactionId?: string;
  deadlineAt?: number;
  updatedAt: number;
  /** Present while the ask is pending or deferred: restores a working actor. */
  snapshot?: PersistedAskSnapshot;
  /** Present once a deferred ask settled, so a second `resume` is told `ASK_SETTLED`. */
  outcome?: AskOutcome;
}

/**
 * A small interface a durable store (SQLite, PostgreSQL, ...) implements. Methods may return
 * promises; the service awaits them where it needs the result.
 */
export interface AskStore {
  save(entry: StoredAsk): void | Promise<void>;
  get(askId: string): StoredAsk | undefined | Promise<StoredAsk | undefined>;
  findByInteractionId(
    interactionId: string,
  ): StoredAsk | undefined | Promise<StoredAsk | undefined>;
  delete(askId: string): void | Promise<void>;
  list(): StoredAsk[] | Promise<StoredAsk[]>;
}
