/**
 * Work claims, the store port that lets hosts sharing a store do a piece of work once: a claim
 * on a key is free, held by one holder until a time (a lease its holder renews while the work
 * runs), or done (nobody claims it again, ever). Every store keeps them; the rule of who may
 * take a claim, and the arguments every store receives, are here, once.
 */
import { describe } from '../rules/describe.js';
import { checkStoreText } from '../rules/store-text.js';

/** What `claimWork` asks for. */
export interface WorkClaimRequest {
  /** The work's key (e.g. a run and the round of calls it resumes); a store keeps one claim per key. */
  key: string;
  /**
   * Who claims: unique per claim (e.g. a service id and a random UUID), since renewing,
   * finishing and releasing go by it: a holder that lost its claim to another cannot touch it.
   */
  holder: string;
  /** Until when (ms since the epoch) the claim is the holder's unless renewed. */
  until: number;
  /** The ask the work belongs to, if any: `purge` deletes the claim with that ask. */
  askId?: string;
}

/** A claim's state as `claimWork` found or left it. */
export type WorkClaim =
  /** The claim is the requester's now (or was already), until `until`. */
  | { status: 'claimed'; key: string; holder: string; until: number }
  /** Another holder's lease runs past `now`: it holds the claim until `until` unless renewed. */
  | { status: 'held'; key: string; holder: string; until: number }
  /** `holder` finished the work at `at`: the claim is never given again. */
  | { status: 'done'; key: string; holder: string; at: number };

/** A claim as a store keeps it. */
export interface WorkClaimRow {
  holder: string;
  leaseUntil: number;
  /** Set once finished. */
  doneAt: number | undefined;
}

/**
 * The claims port: one holder at a time for a piece of work, shared by every host on the store.
 * Memory, SQLite and PostgreSQL stores implement it.
 */
export interface WorkClaimStore {
  /**
   * Claims `request.key` for `request.holder` until `request.until`, in one atomic step: when
   * there is no claim on the key, when its lease does not run past `now`, or when the holder
   * holds it already. Otherwise the claim is left as it is and reported (`held` or `done`).
   */
  claimWork(request: WorkClaimRequest, now: number): Promise<WorkClaim>;
  /**
   * Extends `holder`'s lease on `key` to `until` (never shortening it): only while it is still
   * that holder's, not done, and its lease runs past `now`. False means the claim was lost
   * (another holder may have it): the work it guards must stop.
   */
  renewWork(key: string, holder: string, until: number, now: number): Promise<boolean>;
  /**
   * Marks the work done at `at`: the claim is never given again. Only while it is `holder`'s
   * (not taken by another, not released, not done); false otherwise.
   */
  finishWork(key: string, holder: string, at: number): Promise<boolean>;
  /** Frees `holder`'s claim on `key` so another may claim it at once; false when not its (or done). */
  releaseWork(key: string, holder: string): Promise<boolean>;
}

/** The methods of the port, for checking that a store has them. */
export const WORK_CLAIM_METHODS = [
  'claimWork',
  'renewWork',
  'finishWork',
  'releaseWork',
] as const satisfies readonly (keyof WorkClaimStore)[];

/**
 * True when `holder` may take a claim stored as `row` (or none) at `now`: it is free, its lease
 * ran out, or it is `holder`'s own. A done claim is never taken.
 */
export function claimable(row: WorkClaimRow | undefined, holder: string, now: number): boolean {
  if (row === undefined) return true;
  if (row.doneAt !== undefined) return false;
  return row.leaseUntil <= now || row.holder === holder;
}

/** What `claimWork` reports for the claim stored as `row` after the claim (taken or not). */
export function workClaimOf(key: string, row: WorkClaimRow, requester: string): WorkClaim {
  if (row.doneAt !== undefined) return { status: 'done', key, holder: row.holder, at: row.doneAt };
  const status = row.holder === requester ? 'claimed' : 'held';
  return { status, key, holder: row.holder, until: row.leaseUntil };
}

/** Checks `claimWork`'s arguments, naming the wrong one. */
export function checkWorkClaim(request: WorkClaimRequest, now: number): void {
  if (typeof request !== 'object' || request === null) {
    throw new TypeError(
      `Expected a work claim { key, holder, until, askId? }, got ${describe(request)}.`,
    );
  }
  checkClaimKey(request.key, request.holder);
  checkTime(request.until, 'until');
  checkTime(now, 'now');
  if (request.askId !== undefined) {
    if (typeof request.askId !== 'string' || request.askId === '') {
      throw new TypeError(
        `Expected the claim's \`askId\` to be an ask id (a non-empty string), got ${describe(request.askId)}.`,
      );
    }
    checkStoreText(request.askId, 'askId');
  }
}

/** Checks the key and holder of `renewWork`, `finishWork`, `releaseWork`, and a time if given. */
export function checkClaimKey(key: unknown, holder: unknown, ...times: [string, unknown][]): void {
  for (const [name, value] of [
    ['key', key],
    ['holder', holder],
  ] as const) {
    if (typeof value !== 'string' || value === '') {
      throw new TypeError(
        `Expected the claim's \`${name}\` to be a non-empty string, got ${describe(value)}.`,
      );
    }
    checkStoreText(value, name);
  }
  for (const [name, value] of times) checkTime(value, name);
}

function checkTime(value: unknown, name: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new TypeError(
      `Expected the claim's \`${name}\` to be a time in ms since the epoch, got ${describe(value)}.`,
    );
  }
}
