/**
 * How every store tells its subscribers of changes: one fan-out with one timing. News is
 * delivered on a later turn of the event loop, never inside the write that caused it, so news
 * of a write a caller awaits arrives after that write's promise settled (the contract suite
 * checks this for every store). Changes made in one turn are told once per ask, at its latest
 * version; a listener's exception is its own, and the others still hear of the change. A
 * listener that subscribed with a writer token is not told of an ask whose latest write in the
 * batch that writer made (see `AskSubscribeOptions`).
 */
import { afterEventLoopTurn } from '../engine/event-loop.js';
import { describe } from '../rules/describe.js';
import type { AskStoreChange, AskSubscribeOptions } from './ask-store.js';

type Listener = (change: AskStoreChange) => void;

/** An ask's news waiting for delivery: its latest version told, and who wrote it. */
interface Pending {
  version: number;
  writer: string | undefined;
}

export class ChangeFanout {
  /** Each listener and the writer token it subscribed with (undefined: it hears everything). */
  readonly #listeners = new Map<Listener, string | undefined>();
  /** How many listeners subscribed with each writer token. */
  readonly #writers = new Map<string, number>();
  readonly #report: (error: unknown) => void;
  /** Asks changed since the last delivery, each at the latest version told. */
  #changed = new Map<string, Pending>();
  #missed = false;
  #scheduled = false;
  #closed = false;

  /** `report` gets a listener's exception (default: rethrown on its own, as uncaught). */
  constructor(report: (error: unknown) => void = rethrowLater) {
    this.#report = report;
  }

  /** True while someone listens: only then is news worth collecting. */
  get active(): boolean {
    return this.#listeners.size > 0;
  }

  /** True when some listener subscribed as `writer` (only then is a write's writer worth keeping). */
  listensAs(writer: string): boolean {
    return this.#writers.has(writer);
  }

  /**
   * Adds `listener`, not told of writes by `writer` (when given; a listener added again keeps
   * the last writer); returns the function that removes it. `onEmpty` runs when the last
   * listener is removed.
   */
  subscribe(listener: Listener, writer?: string, onEmpty?: () => void): () => void {
    if (this.#listeners.has(listener)) this.#remove(listener);
    this.#listeners.set(listener, writer);
    if (writer !== undefined) this.#writers.set(writer, (this.#writers.get(writer) ?? 0) + 1);
    return () => {
      if (!this.#listeners.has(listener)) return;
      this.#remove(listener);
      if (this.#listeners.size === 0) onEmpty?.();
    };
  }

  /**
   * Queues news that `askId` is at `version`, written by `writer` (undefined: unknown, told to
   * every listener), delivered on a later turn of the event loop.
   */
  changed(askId: string, version: number, writer?: string): void {
    if (this.#closed) return;
    const pending = this.#changed.size === 0 ? undefined : this.#changed.get(askId);
    if (pending !== undefined) {
      if (version > pending.version) {
        pending.version = version;
        pending.writer = writer;
      }
      return;
    }
    // Nobody to tell, or only the writer itself: no news to keep (the point of the writer token).
    if (
      this.#listeners.size === 0 ||
      (writer !== undefined && this.#writers.get(writer) === this.#listeners.size)
    ) {
      return;
    }
    this.#changed.set(askId, { version, writer });
    this.#schedule();
  }

  /** Queues news that changes may have been missed, for every listener. */
  missed(): void {
    if (this.#closed || this.#listeners.size === 0) return;
    this.#missed = true;
    this.#schedule();
  }

  /** Drops every listener and whatever news was not delivered yet. */
  close(): void {
    this.#closed = true;
    this.#listeners.clear();
    this.#writers.clear();
    this.#changed = new Map();
    this.#missed = false;
  }

  #remove(listener: Listener): void {
    const writer = this.#listeners.get(listener);
    this.#listeners.delete(listener);
    if (writer === undefined) return;
    const count = (this.#writers.get(writer) ?? 1) - 1;
    if (count === 0) this.#writers.delete(writer);
    else this.#writers.set(writer, count);
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    afterEventLoopTurn(() => this.#deliver());
  }

  #deliver(): void {
    this.#scheduled = false;
    const changed = this.#changed;
    const missed = this.#missed;
    this.#changed = new Map();
    this.#missed = false;
    if (missed) this.#tell({ type: 'missed' }, undefined);
    for (const [askId, { version, writer }] of changed) {
      this.#tell({ type: 'changed', askId, version }, writer);
    }
  }

  /** Tells `change` to every listener but the one subscribed as its `writer`. */
  #tell(change: AskStoreChange, writer: string | undefined): void {
    for (const [listener, own] of this.#listeners) {
      if (writer !== undefined && own === writer) continue;
      try {
        listener(change);
      } catch (error) {
        this.#report(error);
      }
    }
  }
}

/** The writer token of `subscribe`'s options, checked: undefined for a subscriber that hears all. */
export function subscriberWriter(options: AskSubscribeOptions | undefined): string | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(
      `Expected the subscribe options to be an object such as { writer }, got ${describe(options)}.`,
    );
  }
  const { writer } = options;
  if (writer !== undefined && (typeof writer !== 'string' || writer === '')) {
    throw new TypeError(
      `Expected the subscribe option \`writer\` to be a non-empty string (the id the subscriber writes with), got ${describe(writer)}.`,
    );
  }
  return writer;
}

function rethrowLater(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}
