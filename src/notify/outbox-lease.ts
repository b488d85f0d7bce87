/**
 * Keeps a claimed outbox entry leased to its sender while the send runs, so that a send longer
 * than the lease (a slow SMTP server holding its reply) is not claimed and sent again by another
 * sender meanwhile.
 *
 * Renewed, not bounded: a send cannot be taken back once it started. nodemailer has no way to
 * cancel a `sendMail` under way (the abort signal only stops the wait), and an SMTP server that
 * has read the message's final dot may deliver it whether or not its reply ever arrives, so a
 * send given up at the end of its lease may still be delivered, and another sender's try would
 * then be a second copy. Renewing the lease while the send runs keeps one sender per message.
 */
import type { Clock } from '../engine/clock.js';
import type { AskStore, ClaimedOutboxEntry } from '../stores/ask-store.js';
import { renewalInterval } from '../stores/owner-lease.js';

/** A send's hold on its entry: whether it was lost, and how to stop renewing it. */
export interface HeldLease {
  /** True once a renewal found the entry claimed by another sender (or released, or done). */
  readonly lost: boolean;
  /** Stops renewing (the send ended). */
  stop(): void;
}

/**
 * Renews `entry`'s lease to `leaseMs` from now every third of `leaseMs` until `stop()`. A
 * renewal that fails (the store unreachable) is reported and tried again at the next turn; one
 * that finds the entry no longer this try's is reported once and ends the renewals.
 */
export function holdLease(
  store: Pick<AskStore, 'renewOutbox'>,
  entry: Pick<ClaimedOutboxEntry, 'deliveryId' | 'attempts'>,
  { clock, leaseMs }: { clock: Clock; leaseMs: number },
  report: (error: unknown) => void,
): HeldLease {
  const every = Math.max(1, Math.floor(renewalInterval(leaseMs)));
  let stopped = false;
  let lost = false;
  let timer: unknown;
  const next = () => {
    if (!stopped) timer = clock.setTimeout(renew, every);
  };
  const renew = () => {
    timer = undefined;
    store.renewOutbox(entry.deliveryId, entry.attempts, clock.now() + leaseMs).then(
      (ours) => {
        if (ours) return next();
        if (stopped) return;
        lost = true;
        report(
          new Error(
            `Notification ${entry.deliveryId} was claimed by another sender while this one was still sending it (its lease of ${leaseMs} ms could not be renewed in time): it may arrive twice, under the same delivery id.`,
          ),
        );
      },
      (error: unknown) => {
        if (stopped) return;
        report(error);
        next();
      },
    );
  };
  next();
  return {
    get lost() {
      return lost;
    },
    stop() {
      stopped = true;
      if (timer !== undefined) clock.clearTimeout(timer);
    },
  };
}
