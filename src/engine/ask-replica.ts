/**
 * The local replica of open asks: the asks this service delivers or waits on, each a cache of
 * its stored row (kept current by settlement, from this service's writes and the store's news).
 * Every row read here is checked first. The only writer of an open ask's cached row (`state`,
 * `version`, `owner`, `interactionId`).
 */
import type { AskMachineInput } from '../../machines/ask.machine.js';
import { describe } from '../rules/describe.js';
import { UserInteractionError } from '../rules/errors.js';
import type { AskLog, StoredAsk } from '../stores/ask-store.js';
import type { PersistedAskState } from './ask-logic.js';
import { OpenAsk } from './open-ask.js';
import { checkStoredAsk } from './stored-ask-check.js';

export class AskReplica {
  readonly #open = new Map<string, OpenAsk>();
  readonly #store: AskLog;
  readonly #serviceId: string;

  constructor(store: AskLog, serviceId: string) {
    this.#store = store;
    this.#serviceId = serviceId;
  }

  get(askId: string): OpenAsk | undefined {
    return this.#open.get(askId);
  }

  add(open: OpenAsk): void {
    this.#open.set(open.id, open);
  }

  remove(open: OpenAsk): void {
    if (this.#open.get(open.id) === open) this.#open.delete(open.id);
  }

  values(): IterableIterator<OpenAsk> {
    return this.#open.values();
  }

  clear(): void {
    this.#open.clear();
  }

  /** The ask with this id: open here, or read from the store; `UNKNOWN_INTERACTION` if none. */
  async find(askId: string): Promise<OpenAsk> {
    if (typeof askId !== 'string' || askId === '') {
      throw new UserInteractionError(
        'UNKNOWN_INTERACTION',
        `Expected an ask id (a non-empty string), got ${describe(askId)}.`,
      );
    }
    const open = this.#open.get(askId) ?? this.load(await this.#store.get(askId));
    if (open === undefined) {
      throw new UserInteractionError('UNKNOWN_INTERACTION', `No ask has id "${askId}".`, { askId });
    }
    return open;
  }

  /** The ask a row stands for: the one open here, or one read from the (checked) row. */
  load(row: StoredAsk | undefined): OpenAsk | undefined {
    if (row === undefined) return undefined;
    return this.#open.get(row.askId) ?? this.fromRow(checkStoredAsk(row, 'the stored ask'));
  }

  /** An ask this service does not hold, from a checked row, for one answer, resume or sweep. */
  fromRow(row: StoredAsk): OpenAsk {
    const snapshot = row.snapshot as PersistedAskState;
    const { agent } = snapshot.context as AskMachineInput;
    const request =
      agent === undefined ? { questions: row.questions } : { questions: row.questions, agent };
    const open = new OpenAsk(row.askId, request, row.key, snapshot);
    this.cache(open, row);
    return open;
  }

  /** The open ask now caches `row` (one it wrote, or a newer one it read). */
  cache(open: OpenAsk, row: StoredAsk): void {
    open.state = row.snapshot as PersistedAskState;
    open.version = row.version;
    open.interactionId = row.interactionId;
    open.attachment = row.attachment;
    open.storedOwner = row.owner;
    open.owner = row.owner === this.#serviceId;
  }
}
