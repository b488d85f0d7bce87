/**
 * What a service keeps in memory of one ask it delivers or waits on: a cache of the stored ask.
 * One flat object (a million pending asks each hold one), its fields in groups; each group has
 * one owner, the only file that writes it.
 */

import type { Subscriber } from 'rxjs';
import type { AnyActorRef } from 'xstate';
import type { AskMachineEvent } from '../../machines/ask.machine.js';
import type { AskAttachment } from '../contracts/attachment.js';
import type { AskOutcome } from '../contracts/outcome.js';
import type { AskUserQuestion } from '../contracts/question.js';
import type { AskUserRequest } from '../contracts/request.js';
import type { PersistedAskState } from './ask-logic.js';
import type { AskAuditEvent } from './audit.js';

export class OpenAsk {
  // ── the cached row: written by ask-replica.ts only ──
  /** The machine's persisted snapshot at `version`, as last written or read. */
  state: PersistedAskState;
  /** The stored version `snapshot` belongs to; 0 until the store has the ask. */
  version = 0;
  /** True while this service delivers the ask (it owns it); false when it only waits. */
  owner = false;
  /** The owner the cached row names (this service's id when `owner`), if any. */
  storedOwner: string | undefined = undefined;
  /** Set once the ask was deferred: kept on the row after it settles. */
  interactionId: string | undefined = undefined;
  /**
   * What the caller kept with the ask (`start`'s `attachment`), fixed at create: a `start`
   * under a key that finds the ask stored takes the stored one.
   */
  attachment: AskAttachment | undefined;

  // ── writes in flight: `writing` written by ask-commit.ts only, the rest by ask-ownership.ts ──
  /**
   * The version this service is writing, or wrote and is settling (0: none); the store's news
   * of it is old.
   */
  writing = 0;
  /** While the ask is being written to the store (created or taken over); events wait for it. */
  ready: Promise<void> | undefined = undefined;
  /** The first write while it is in flight, or its failure (for `handle.stored`). */
  stored: Promise<unknown> | undefined = undefined;

  // ── delivery: written by delivery.ts only ──
  /** Created when the provider first reads `ctx.signal`. */
  controller: AbortController | undefined = undefined;
  /** True from the provider call until delivery stopped. */
  delivering = false;
  /** The event that ended delivery; the provider's abort reason is derived from it. */
  exitEvent: AskMachineEvent | undefined = undefined;

  // ── what this service holds of the ask: written by settlement.ts only ──
  /** The deadline scheduler's slot for this ask (its deadline, order and place in the heap). */
  heapDeadline = Number.POSITIVE_INFINITY;
  heapOrder = 0;
  heapIndex = -1;
  signal: AbortSignal | undefined = undefined;
  onAbort: (() => void) | undefined = undefined;
  /** The caller's original abort cause: the store keeps a JSON copy, the caller gets this. */
  localCause: unknown = undefined;
  actorRef: AnyActorRef | undefined = undefined;
  handedOut = false;

  // ── the ask's own audit stream: written by audit-trail.ts only ──
  listeners: Set<Subscriber<AskAuditEvent>> | undefined = undefined;
  /** Audit events after the first, for late subscribers to `events$`. */
  trail: AskAuditEvent[] | undefined = undefined;
  /** The first audit event (`start` or `restore`), rebuilt from these on demand. */
  origin: 'start' | 'restore' = 'start';

  resolve!: (outcome: AskOutcome) => void;
  #reject!: (error: unknown) => void;
  readonly outcome: Promise<AskOutcome>;

  constructor(
    readonly id: string,
    readonly request: AskUserRequest,
    readonly key: string | undefined,
    state: PersistedAskState,
    attachment?: AskAttachment,
  ) {
    this.state = state;
    this.attachment = attachment;
    this.outcome = new Promise<AskOutcome>((resolve, reject) => {
      this.resolve = resolve;
      this.#reject = reject;
    });
  }

  /** Rejects the outcome (a store failure, a closed service); a no-op once it is settled. */
  fail(error: unknown): void {
    // A caller that never looks at the outcome must not see an unhandled rejection.
    this.outcome.catch(ignore);
    this.#reject(error);
  }

  get questions(): AskUserQuestion[] {
    return this.request.questions;
  }

  // The names of a stored row, so that a write is built from an open ask as from a row.
  get askId(): string {
    return this.id;
  }

  get snapshot(): PersistedAskState {
    return this.state;
  }
}

function ignore(): void {}
