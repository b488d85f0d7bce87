/**
 * Owner leases, as every store keeps them: one record per service (`owner`, `leaseUntil`),
 * renewed while the service is open, so that whether an ask's owner is live costs one lookup
 * however many asks it owns. The arguments every store receives are checked here, once.
 */
import { describe } from '../rules/describe.js';

/** Checks an owner's id (and the time its lease runs to), naming the one that is wrong. */
export function checkOwnerLease(owner: unknown, until?: unknown): void {
  if (typeof owner !== 'string' || owner === '') {
    throw new TypeError(
      `Expected the lease's \`owner\` to be a service id (a non-empty string), got ${describe(owner)}.`,
    );
  }
  if (until !== undefined && (typeof until !== 'number' || !Number.isFinite(until))) {
    throw new TypeError(
      `Expected the lease's \`until\` to be a time in ms since the epoch, got ${describe(until)}.`,
    );
  }
}

/** True when `owner`'s lease, running to `leaseUntil` (if any), is still running at `now`. */
export function leaseRuns(leaseUntil: number | undefined, now: number): boolean {
  return leaseUntil !== undefined && leaseUntil > now;
}

/**
 * How often a lease of `leaseMs` is renewed by default: every third of it, so two renewals may
 * fail or come late before it runs out. The one rule for the owner lease and the outbox lease.
 */
export function renewalInterval(leaseMs: number): number {
  return leaseMs / 3;
}
