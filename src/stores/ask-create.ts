/**
 * What `create` answers when it writes nothing, in every store: a function over the facts the
 * store read (SQLite synchronously in its write, PostgreSQL after its statement, memory from its
 * maps), so the order of the answers and the error's wording are written once.
 */
import type { AskCreateResult, StoredAsk } from './ask-store.js';

/** What a store read about an ask it could not insert. */
export interface NotInsertedFacts {
  /** The ask with the new ask's id, else the one with its key. */
  existing: StoredAsk | undefined;
  /** Whether a purge retired the new ask's id. */
  retired: boolean;
  /** The open ask that holds the new ask's interaction id, where the store found it. */
  holder: string | undefined;
}

/**
 * The existing ask by id or key; else a retired id; else the interaction id is held by an open
 * ask (the only other reason an insert writes nothing): an error naming it where known.
 */
export function notInsertedAnswer(ask: StoredAsk, facts: NotInsertedFacts): AskCreateResult {
  if (facts.existing !== undefined) return { created: false, existing: facts.existing };
  if (facts.retired) return { created: false, retired: true };
  const holder = facts.holder === undefined ? 'another ask' : `ask ${facts.holder}`;
  throw new Error(
    `Cannot create ask ${ask.askId}: interaction id ${String(ask.interactionId)} belongs to ${holder}, which is not final.`,
  );
}
