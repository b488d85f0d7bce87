/**
 * Where asks that outlive a tool call are kept: deferred asks (which `resume` finds by their
 * interaction id, in this process or another that shares the store) and the outcome of each
 * one once it settles. Pending asks live in the service that delivers them; a host that wants
 * them to survive a restart persists `service.getPersistedSnapshot(id)` and calls `restore`.
 */

import type { AskOutcome } from '../contracts/outcome.js';
import type { AskState } from '../engine/audit.js';

/** The JSON-serializable snapshot of an ask actor (`actor.getPersistedSnapshot()`). */
export type PersistedAskSnapshot = Record<string, unknown>;

export interface StoredAsk {
  askId: string;
  /** `deferred`, or the final state a deferred ask settled in. */
  state: AskState;
  /** Set once the ask is deferred; `resume` finds the ask by it. */
  interactionId?: string;
  deadlineAt?: number;
  updatedAt: number;
  /** Present while the ask is deferred: restores a working actor. */
  snapshot?: PersistedAskSnapshot;
  /**
   * The outcome once a deferred ask settled (its final `state` tells a second `resume` it is
   * `ASK_SETTLED`); left out for an answered ask when the service redacts.
   */
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
