/**
 * The local replica of open asks: the asks this service delivers or waits on, each a cache of
 * its stored row, kept current from the store's news. Every row read here is checked first. The
 * only writer of an open ask's cached row (`state`, `version`, `owner`, `interactionId`).
 */
import type { AskMachineInput } from '../../machines/ask.machine.js';
import { describe } from '../rules/describe.js';
import { UserInteractionError } from '../rules/errors.js';
import type { AskLog, AskStoreChange, StoredAsk } from '../stores/ask-store.js';
import type { PersistedAskState } from './ask-logic.js';
import { OpenAsk } from './open-ask.js';
import { pause, storeRetryDelayMs } from './store-retry.js';
import { checkStoredAsk } from './stored-ask-check.js';

export class AskReplica {
  readonly #open = new Map<string, OpenAsk>();
  readonly #store: AskLog;
  readonly #serviceId: string;
  readonly #adoptRow: (open: OpenAsk, row: StoredAsk) => void;
  readonly #purged: (open: OpenAsk) => void;
  readonly #report: (error: unknown, open: OpenAsk | undefined) => void;

  /**
   * `adoptRow` takes a newer row of an open ask; `purged` is told of an ask held here that the
   * store no longer has; `report` hears of a refresh that failed.
   */
  constructor(
    store: AskLog,
    serviceId: string,
    adoptRow: (open: OpenAsk, row: StoredAsk) => void,
    purged: (open: OpenAsk) => void,
    report: (error: unknown, open: OpenAsk | undefined) => void,
  ) {
    this.#store = store;
    this.#serviceId = serviceId;
    this.#adoptRow = adoptRow;
    this.#purged = purged;
    this.#report = report;
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

  /** A row of an ask held here that a command read: taken as news of it would be. */
  adopt(open: OpenAsk, row: StoredAsk): void {
    this.#adoptRow(open, row);
  }

  onChange(change: AskStoreChange): void {
    if (change.type === 'missed') {
      for (const open of this.#open.values()) this.refresh(open, Number.POSITIVE_INFINITY);
      return;
    }
    const open = this.#open.get(change.askId);
    // A store may tell this service of its own write (one that ignores `writer`), even before
    // the write has returned here.
    if (open !== undefined && change.version > open.version && change.version !== open.writing) {
      this.refresh(open, change.version);
    }
  }

  /**
   * This service wrote `version` of the ask through `open`. The store leaves a writer's own
   * writes out of its news, so another copy of the ask held here (opened while `open`, a
   * one-off read for an answer, was writing) would never hear of it: it reads the ask again.
   */
  wrote(open: OpenAsk, version: number): void {
    const held = this.#open.get(open.id);
    if (held !== undefined && held !== open && held.version < version) this.refresh(held, version);
  }

  /**
   * Reads the ask again once the store has a version newer than `version - 1`. A read the
   * store fails is reported and tried again while the ask is held here (see store-retry.ts);
   * a row that fails its check fails the ask; an ask the store no longer has (purged once it
   * settled elsewhere) is given up here, saying so (`purged`).
   */
  refresh(open: OpenAsk, version: number): void {
    const stale = () =>
      version <= open.version || open.handedOut || this.#open.get(open.id) !== open;
    const run = async () => {
      for (let attempt = 0; ; attempt++) {
        if (open.ready !== undefined) await open.ready;
        if (stale()) return;
        let row: StoredAsk | undefined;
        try {
          row = await this.#store.get(open.id);
        } catch (error) {
          this.#report(error, open);
          await pause(storeRetryDelayMs(attempt));
          continue;
        }
        if (stale()) return;
        if (row === undefined) this.#purged(open);
        else this.#adoptRow(open, checkStoredAsk(row, 'the stored ask'));
        return;
      }
    };
    run().catch((error) => {
      this.#report(error, open);
      open.fail(error);
    });
  }
}
