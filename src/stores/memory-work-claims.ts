/** Work claims in this process's memory (the memory store's claims port; see work-claims.ts). */
import {
  checkClaimKey,
  checkWorkClaim,
  claimable,
  type WorkClaim,
  type WorkClaimRequest,
  type WorkClaimRow,
  workClaimOf,
} from './work-claims.js';

interface MemoryClaim extends WorkClaimRow {
  askId: string | undefined;
}

/** The claims of one memory store, with each ask's claim keys so a purge deletes them. */
export class MemoryWorkClaims {
  readonly #claims = new Map<string, MemoryClaim>();
  readonly #byAsk = new Map<string, Set<string>>();

  claim(request: WorkClaimRequest, now: number): WorkClaim {
    checkWorkClaim(request, now);
    const { key, holder, until, askId } = request;
    let row = this.#claims.get(key);
    if (claimable(row, holder, now)) {
      this.#unlink(key, row?.askId);
      row = { holder, leaseUntil: until, doneAt: undefined, askId };
      this.#claims.set(key, row);
      if (askId !== undefined) {
        const keys = this.#byAsk.get(askId) ?? new Set<string>();
        keys.add(key);
        this.#byAsk.set(askId, keys);
      }
    }
    return workClaimOf(key, row as MemoryClaim, holder);
  }

  renew(key: string, holder: string, until: number, now: number): boolean {
    checkClaimKey(key, holder, ['until', until], ['now', now]);
    const row = this.#held(key, holder);
    if (row === undefined || row.leaseUntil <= now) return false;
    row.leaseUntil = Math.max(row.leaseUntil, until);
    return true;
  }

  finish(key: string, holder: string, at: number): boolean {
    checkClaimKey(key, holder, ['at', at]);
    const row = this.#held(key, holder);
    if (row === undefined) return false;
    row.doneAt = at;
    return true;
  }

  release(key: string, holder: string): boolean {
    checkClaimKey(key, holder);
    const row = this.#held(key, holder);
    if (row === undefined) return false;
    this.#claims.delete(key);
    this.#unlink(key, row.askId);
    return true;
  }

  /** Deletes the claims that belong to `askId` (it was purged). */
  forgetAsk(askId: string): void {
    for (const key of this.#byAsk.get(askId) ?? []) this.#claims.delete(key);
    this.#byAsk.delete(askId);
  }

  /** `key`'s claim while it is `holder`'s and not done. */
  #held(key: string, holder: string): MemoryClaim | undefined {
    const row = this.#claims.get(key);
    return row !== undefined && row.holder === holder && row.doneAt === undefined ? row : undefined;
  }

  #unlink(key: string, askId: string | undefined): void {
    if (askId === undefined) return;
    const keys = this.#byAsk.get(askId);
    keys?.delete(key);
    if (keys?.size === 0) this.#byAsk.delete(askId);
  }
}
