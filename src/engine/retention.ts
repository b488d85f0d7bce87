/**
 * Retention: final asks (and their histories) are deleted once they are old enough, in small
 * batches an event-loop turn apart, so neither the store nor the process is held for long.
 * Asks that are not final (pending, deferred) are never deleted: the store's `purge` says so.
 */
import { describe } from '../rules/describe.js';
import { UserInteractionError } from '../rules/errors.js';
import { checkPurgeTime } from '../stores/ask-query.js';
import type { AskIndex } from '../stores/ask-store.js';
import type { Clock } from './clock.js';
import { eventLoopTurn } from './event-loop.js';
import type { WriteLedger } from './write-ledger.js';

/**
 * Asks deleted per store call (one short transaction each): the batch starts small and grows
 * or shrinks so that one takes about `PURGE_BATCH_TARGET_MS`, however slow the disk or busy
 * the machine, so no batch holds the store's lock or the event loop for long.
 */
export const PURGE_BATCH = 100;
const PURGE_BATCH_MIN = 10;
const PURGE_BATCH_MAX = 500;
const PURGE_BATCH_TARGET_MS = 10;

/** The `retention` option of the service. */
export interface RetentionOptions {
  /** A final ask is deleted, with its history, this many ms after it settled (0 and up). */
  finalAfterMs: number;
  /** How often the service purges, in ms of real time. Default 60,000. */
  everyMs?: number;
}

export const DEFAULT_RETENTION_EVERY_MS = 60_000;

/** `service.purge`'s options, checked with the value received. */
export function checkPurgeOptions(options: unknown): asserts options is { finalBefore: number } {
  if (typeof options !== 'object' || options === null) {
    throw new UserInteractionError(
      'INVALID_REQUEST',
      `Expected purge options { finalBefore }, got ${describe(options)}.`,
      { field: 'options' },
    );
  }
  checkPurgeTime('finalBefore', (options as { finalBefore?: unknown }).finalBefore);
}

/**
 * Deletes every final ask that settled before `finalBefore`, batch by batch; resolves with how
 * many were deleted. Owners' leases are read at the `clock`'s now (see `AskIndex.purge`).
 */
export async function purgeFinalAsks(
  store: AskIndex,
  clock: Clock,
  finalBefore: number,
  ledger: WriteLedger,
  stopped: () => boolean = () => false,
): Promise<number> {
  let purged = 0;
  let limit = PURGE_BATCH;
  while (!stopped()) {
    const begin = performance.now();
    ledger.begin();
    let batch: number;
    try {
      batch = await store.purge(finalBefore, limit, clock.now());
    } finally {
      ledger.end();
    }
    const took = performance.now() - begin;
    purged += batch;
    if (batch < limit) return purged;
    if (took < PURGE_BATCH_TARGET_MS / 2) limit = Math.min(limit * 2, PURGE_BATCH_MAX);
    else if (took > PURGE_BATCH_TARGET_MS * 2) limit = Math.max(limit >> 1, PURGE_BATCH_MIN);
    // Answers, deliveries and other services' writes go between the batches.
    await eventLoopTurn();
  }
  return purged;
}

/** Purges the store every `everyMs` of real time; its timer alone never keeps a process alive. */
export class RetentionTimer {
  readonly #store: AskIndex;
  readonly #clock: Clock;
  readonly #finalAfterMs: number;
  readonly #everyMs: number;
  readonly #report: (error: unknown) => void;
  readonly #ledger: WriteLedger;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(
    store: AskIndex,
    clock: Clock,
    options: RetentionOptions,
    report: (error: unknown) => void,
    ledger: WriteLedger,
  ) {
    this.#ledger = ledger;
    this.#store = store;
    this.#clock = clock;
    this.#finalAfterMs = options.finalAfterMs;
    this.#everyMs = options.everyMs ?? DEFAULT_RETENTION_EVERY_MS;
    this.#report = report;
    this.#arm();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #arm(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      const finalBefore = this.#clock.now() - this.#finalAfterMs;
      void purgeFinalAsks(this.#store, this.#clock, finalBefore, this.#ledger, () => this.#stopped)
        .catch((error: unknown) => {
          if (!this.#stopped) this.#report(error);
        })
        .finally(() => this.#arm());
    }, this.#everyMs);
    this.#timer.unref?.();
  }
}
