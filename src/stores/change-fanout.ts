/**
 * How every store tells its subscribers of changes: one fan-out with one timing. News is
 * delivered on a later turn of the event loop, never inside the write that caused it, so news
 * of a write a caller awaits arrives after that write's promise settled (the contract suite
 * checks this for every store). Changes made in one turn are told once per ask, at its latest
 * version; a listener's exception is its own, and the others still hear of the change.
 */
import type { AskStoreChange } from './ask-store.js';

type Listener = (change: AskStoreChange) => void;

/** A macrotask: after the microtasks of the current turn, promise reactions included. */
const later: (fn: () => void) => void =
  typeof setImmediate === 'function' ? (fn) => setImmediate(fn) : (fn) => setTimeout(fn, 0);

export class ChangeFanout {
  readonly #listeners = new Set<Listener>();
  readonly #report: (error: unknown) => void;
  /** Asks changed since the last delivery, each at the latest version told. */
  #changed = new Map<string, number>();
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

  /** Adds `listener`; returns the function that removes it. */
  subscribe(listener: Listener, onEmpty?: () => void): () => void {
    this.#listeners.add(listener);
    return () => {
      if (this.#listeners.delete(listener) && this.#listeners.size === 0) onEmpty?.();
    };
  }

  /** Queues `change` for every listener, delivered on a later turn of the event loop. */
  emit(change: AskStoreChange): void {
    if (this.#closed || this.#listeners.size === 0) return;
    if (change.type === 'missed') {
      this.#missed = true;
    } else {
      const known = this.#changed.get(change.askId);
      if (known === undefined || change.version > known) {
        this.#changed.set(change.askId, change.version);
      }
    }
    if (this.#scheduled) return;
    this.#scheduled = true;
    later(() => this.#deliver());
  }

  /** Drops every listener and whatever news was not delivered yet. */
  close(): void {
    this.#closed = true;
    this.#listeners.clear();
    this.#changed = new Map();
    this.#missed = false;
  }

  #deliver(): void {
    this.#scheduled = false;
    const changed = this.#changed;
    const missed = this.#missed;
    this.#changed = new Map();
    this.#missed = false;
    if (missed) this.#tell({ type: 'missed' });
    for (const [askId, version] of changed) this.#tell({ type: 'changed', askId, version });
  }

  #tell(change: AskStoreChange): void {
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch (error) {
        this.#report(error);
      }
    }
  }
}

function rethrowLater(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}
