/**
 * Sends what the outbox holds: claims due entries of this process's channels (one sender per
 * entry across processes and hosts), sends each, and marks it done with its audit event in one
 * write; a failed send is tried again later with backoff under the same delivery id. A send
 * renews its entry's lease while it runs (`holdLease`), so a slow channel is not sent twice;
 * entries a dead process had claimed are claimed again once their lease runs out. Entries due
 * at once are written already leased to this sender (`lease`), so it sends them after a read,
 * without a claim of their own.
 */
import type { AskOutcome } from '../contracts/outcome.js';
import { noteEvent } from '../engine/ask-write.js';
import type { AskAuditEvent } from '../engine/audit.js';
import { describe, messageOf } from '../rules/describe.js';
import { samePerson } from '../rules/person-id.js';
import type { ClaimedOutboxAsk, ClaimedOutboxEntry, OutboxEntry } from '../stores/ask-store.js';
import { NotificationDeliveryError } from './delivery-error.js';
import {
  MAX_RECEIPT_LENGTH,
  type Notification,
  readNotification,
  type SettledSummary,
} from './notification.js';
import type { ResolvedNotifyOptions } from './notify-options.js';
import { openAskMessageOf } from './open-ask-message.js';
import { holdLease } from './outbox-lease.js';
import type { NotifyPayload } from './outbox-plan.js';

export class OutboxDispatcher {
  readonly #options: ResolvedNotifyOptions;
  readonly #controller = new AbortController();
  readonly #unsubscribe: () => void;
  readonly #timer: ReturnType<typeof setInterval>;
  /** The round under way, and whether another was asked for while it ran. */
  #round: Promise<number> | undefined;
  #again = false;
  #kicked: ReturnType<typeof setTimeout> | undefined;
  /** This sender's id, for the entries written leased to it. */
  readonly #sender = globalThis.crypto.randomUUID();
  /** Delivery ids of entries this sender leased to itself, and until when. */
  readonly #own = new Map<string, number>();

  constructor(options: ResolvedNotifyOptions) {
    this.#options = options;
    this.#timer = setInterval(() => this.kick(), options.pollMs);
    this.#timer.unref?.();
    // Any write may make entries due (a deferral, a settled ask): look at once, once per turn.
    this.#unsubscribe = options.store.subscribe(() => this.kick());
    this.kick();
  }

  /**
   * Leases to this sender the entries of `entries` due at `now` (they are about to be written):
   * once the write applied, the next round sends them without claiming them. If this process
   * dies first, any sender claims them when the lease runs out.
   */
  lease(entries: OutboxEntry[], now: number): void {
    const until = now + this.#options.leaseMs;
    for (const entry of entries) {
      if (entry.due === 'settled' || entry.due > now) continue;
      entry.lease = { sender: this.#sender, until };
      this.#own.set(entry.deliveryId, until);
    }
  }

  /** Looks for due entries soon (coalesced: many kicks in one turn make one round). */
  kick(): void {
    if (this.#kicked !== undefined || this.#controller.signal.aborted) return;
    this.#kicked = setTimeout(() => {
      this.#kicked = undefined;
      this.flush().catch((error) => this.#report(error));
    }, 0);
  }

  /**
   * Sends every entry due now (and those that come due while it runs); resolves with how many
   * were sent. A round already under way is joined, then one more runs.
   */
  async flush(): Promise<number> {
    if (this.#round !== undefined) {
      this.#again = true;
      const joined = await this.#round.catch(() => 0);
      // The round looked once more after this call asked it to (each look clears `#again`):
      // nothing that was due by then is left.
      if (!this.#again) return joined;
      if (this.#round !== undefined) return this.#round;
    }
    const round = this.#run();
    this.#round = round;
    try {
      return await round;
    } finally {
      if (this.#round === round) this.#round = undefined;
    }
  }

  /** Stops claiming; sends under way are aborted (their entries are claimed again later). */
  async close(): Promise<void> {
    this.#controller.abort(new Error('The notify provider was closed.'));
    clearInterval(this.#timer);
    if (this.#kicked !== undefined) clearTimeout(this.#kicked);
    this.#unsubscribe();
    await this.#round?.catch(() => 0);
  }

  async #run(): Promise<number> {
    const { store, batch, leaseMs, clock, channels } = this.#options;
    const names = [...channels.keys()];
    let sent = 0;
    for (;;) {
      this.#again = false;
      if (this.#controller.signal.aborted) return sent;
      const taken = await this.#takeOwn();
      const claimed = await store.claimOutbox(clock.now(), batch, leaseMs, names);
      const results = await Promise.all([...taken, ...claimed].map((entry) => this.#send(entry)));
      sent += results.filter(Boolean).length;
      if (claimed.length < batch && !this.#again) return sent;
    }
  }

  /** The entries this sender leased to itself whose write applied (a read, no claim). */
  async #takeOwn(): Promise<ClaimedOutboxEntry[]> {
    if (this.#own.size === 0) return [];
    const now = this.#options.clock.now();
    const taken = await this.#options.store.takeOutbox(this.#sender, [...this.#own.keys()], now);
    for (const entry of taken) this.#own.delete(entry.deliveryId);
    // A write that never applied (or a lease run out) leaves its ids behind: forget them.
    for (const [id, until] of this.#own) if (until <= now) this.#own.delete(id);
    return taken;
  }

  /** One entry: sent and marked done, dropped, retried later or given up on; true if sent. */
  async #send(entry: ClaimedOutboxEntry): Promise<boolean> {
    const { store, clock } = this.#options;
    try {
      const { ask } = entry;
      const notification = await this.#notificationOf(entry, ask);
      if (notification === undefined) {
        // The ask settled before this message about it was sent, or before this recipient was
        // told of it: there is nothing to say.
        await store.completeOutbox(entry.deliveryId, clock.now());
        return false;
      }
      const channel = this.#options.channels.get(entry.channel);
      if (channel === undefined) throw new Error(`No channel named ${entry.channel}.`);
      // Leased for as long as the send runs, however long the channel takes.
      const lease = holdLease(store, entry, this.#options, (error) => this.#report(error));
      let sent: unknown;
      try {
        sent = await channel.send(notification, this.#controller.signal);
      } catch (error) {
        // Another sender has the entry now: its try decides, not this one's failure.
        if (this.#controller.signal.aborted || lease.lost) return false;
        await this.#failed(entry, ask, error);
        return false;
      } finally {
        lease.stop();
      }
      // The message went out: a receipt the channel got wrong is reported, the send recorded.
      let receipt: string | undefined;
      try {
        receipt = receiptOf(sent, channel.name);
      } catch (error) {
        this.#report(error);
      }
      await store.completeOutbox(
        entry.deliveryId,
        clock.now(),
        sentEvent(entry, ask, notification, clock.now(), receipt),
      );
      return true;
    } catch (error) {
      if (!this.#controller.signal.aborted) this.#report(error);
      return false;
    }
  }

  async #failed(entry: ClaimedOutboxEntry, ask: ClaimedOutboxAsk, error: unknown): Promise<void> {
    const { store, clock, maxAttempts, backoff } = this.#options;
    const retryable =
      !(error instanceof TypeError) &&
      !(error instanceof NotificationDeliveryError && !error.retryable);
    if (retryable && entry.attempts < maxAttempts) {
      const wait = backoff(entry.attempts);
      await store.retryOutbox(
        entry.deliveryId,
        clock.now() + (Number.isFinite(wait) && wait >= 0 ? wait : 0),
      );
      return;
    }
    // Given up: recorded on the ask (which channel, never the message) and reported.
    const message = `Notification ${entry.deliveryId} through ${entry.channel} was given up after ${entry.attempts} ${entry.attempts === 1 ? 'try' : 'tries'}: ${messageOf(error)}`;
    const event = noteEvent(ask.askId, 'callback.failed', ask.state, clock.now(), {
      callback: `notify:${entry.channel}`,
      message,
    });
    await store.completeOutbox(entry.deliveryId, clock.now(), event);
    this.#report(new Error(message, { cause: error }));
  }

  /**
   * The notification an entry stands for, or undefined when the ask no longer needs it: a
   * message about the open ask once it settled, or a settled notice to someone never told of it.
   *
   * The ask is as the claim read it, in the statement that leased the entry; the send starts
   * right after. A read of its own would not make it fresher where it matters: an ask that
   * settles while a message about it is being sent cannot be helped, and the store holds the
   * settled notices back while such a message is leased (`whileOpen`), so the settled notice
   * comes after it and sees it recorded.
   */
  async #notificationOf(
    entry: ClaimedOutboxEntry,
    ask: ClaimedOutboxAsk,
  ): Promise<Notification | undefined> {
    const { notification } = entry.payload as NotifyPayload;
    if (notification?.kind === 'created') {
      return ask.final ? undefined : readNotification(notification);
    }
    if (notification?.kind !== 'settled') {
      if (ask.final) return undefined;
      const { receipts } = await this.#toldBefore(ask.askId, notification?.recipient);
      return readNotification(withReceipts(notification, receipts));
    }
    if (!ask.final || ask.outcome === undefined) return undefined;
    const { told, receipts } = await this.#toldBefore(ask.askId, notification.recipient);
    if (!told) return undefined;
    return readNotification(
      withReceipts(
        { ...notification, at: ask.updatedAt, outcome: summaryOf(ask.outcome, ask.updatedAt) },
        receipts,
      ),
    );
  }

  /**
   * Whether the ask's history shows a message about the open ask sent to `recipient`, and the
   * receipts the channel kept of the messages sent to them, oldest first.
   */
  async #toldBefore(
    askId: string,
    recipient: unknown,
  ): Promise<{ told: boolean; receipts: string[] }> {
    const id = (recipient as { id?: unknown } | null | undefined)?.id;
    let told = false;
    const receipts: string[] = [];
    for await (const event of this.#options.store.history(askId)) {
      const sent = openAskMessageOf(event);
      if (sent === undefined || typeof id !== 'string' || !samePerson(sent.recipient, id)) continue;
      told = true;
      if (sent.receipt !== undefined) receipts.push(sent.receipt);
    }
    return { told, receipts };
  }

  #report(error: unknown): void {
    try {
      this.#options.onError(error);
    } catch {
      // The host's error handler failing must not stop the sender.
    }
  }
}

/** How the ask ended, without its answers. */
function summaryOf(outcome: AskOutcome, at: number): SettledSummary | undefined {
  switch (outcome.status) {
    case 'answered':
      return outcome.answeredBy === undefined
        ? { status: 'answered', at }
        : { status: 'answered', at, answeredBy: outcome.answeredBy };
    case 'cancelled':
      return { status: 'cancelled', at, reason: outcome.reason };
    case 'timedOut':
      return { status: 'timedOut', at };
    case 'aborted':
      return { status: 'aborted', at };
    case 'deferred':
      return undefined;
  }
}

/** The notification with the receipts of the messages sent before it, when there are any. */
function withReceipts<T extends object>(notification: T, receipts: string[]): T {
  return receipts.length === 0 ? notification : { ...notification, receipts };
}

/**
 * The receipt a channel's `send` resolved with, checked: `undefined` for none. A receipt that is
 * not `{ ref }` with a short non-empty string is the channel's bug: a `TypeError` naming it (the
 * message was sent, so it is reported, not sent again).
 */
function receiptOf(value: unknown, channel: string): string | undefined {
  if (value === undefined) return undefined;
  const ref = (value as { ref?: unknown } | null)?.ref;
  if (typeof ref !== 'string' || ref === '' || ref.length > MAX_RECEIPT_LENGTH) {
    throw new TypeError(
      `Expected channel ${describe(channel)}'s send to resolve with nothing or { ref } (a non-empty string of at most ${MAX_RECEIPT_LENGTH} characters), got ${describe(value)}.`,
    );
  }
  return ref;
}

/** The audit event of a sent notification: whom, through what, under which id; never the answer. */
function sentEvent(
  entry: ClaimedOutboxEntry,
  ask: ClaimedOutboxAsk,
  notification: Notification,
  at: number,
  receipt: string | undefined,
): AskAuditEvent {
  const who = {
    recipient: notification.recipient.id,
    channel: notification.recipient.channel,
    deliveryId: entry.deliveryId,
    ...(receipt === undefined ? {} : { receipt }),
  };
  switch (notification.kind) {
    case 'created':
    case 'settled':
      return noteEvent(ask.askId, 'notified', ask.state, at, { ...who, kind: notification.kind });
    case 'reminded':
    case 'escalated':
      return noteEvent(ask.askId, notification.kind, ask.state, at, {
        ...who,
        seq: notification.seq,
      });
  }
}
