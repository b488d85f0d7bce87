/**
 * The writes and sweeps a PostgreSQL store has under way, by ask: a NOTIFY of a write can reach
 * the listener connection before the write's own reply, and its news must not reach
 * subscribers before the write's promise settles (see `PostgresChangeFeed`).
 */

/** A sweep under way (`claimDue`): the asks it claimed, and its end. */
interface Sweep {
  asks: Set<string>;
  done: Promise<void>;
}

export class OwnWrites {
  /** This store's writes under way, by ask. */
  readonly #inFlight = new Map<string, Set<Promise<unknown>>>();
  /** This store's sweeps under way, with the asks they claimed so far. */
  readonly #sweeps = new Set<Sweep>();

  /** Marks `askId` as being written by this store until `operation` settles. */
  track<T>(askId: string, operation: Promise<T>): Promise<T> {
    let writes = this.#inFlight.get(askId);
    if (writes === undefined) {
      writes = new Set();
      this.#inFlight.set(askId, writes);
    }
    const done: Promise<unknown> = operation.then(
      () => undefined,
      () => undefined,
    );
    writes.add(done);
    void done.then(() => {
      writes.delete(done);
      if (writes.size === 0 && this.#inFlight.get(askId) === writes) this.#inFlight.delete(askId);
    });
    return operation;
  }

  /**
   * Runs a sweep: every ask it reports claimed (`claimed`) counts as written until the whole
   * sweep settles (one promise for the sweep, not one per ask).
   */
  sweep<T>(run: (claimed: (askId: string) => void) => Promise<T>): Promise<T> {
    let settled!: () => void;
    const sweep: Sweep = {
      asks: new Set(),
      done: new Promise<void>((resolve) => {
        settled = resolve;
      }),
    };
    this.#sweeps.add(sweep);
    const result = run((askId) => sweep.asks.add(askId));
    const finish = () => {
      this.#sweeps.delete(sweep);
      settled();
    };
    void result.then(finish, finish);
    return result;
  }

  /** Settles once this store's writes of `askId` under way have settled; undefined if none. */
  writing(askId: string): Promise<unknown> | undefined {
    const writes = this.#inFlight.get(askId);
    let sweeping: Promise<void> | undefined;
    for (const sweep of this.#sweeps) {
      if (sweep.asks.has(askId)) {
        sweeping = sweep.done;
        break;
      }
    }
    if (writes === undefined) return sweeping;
    return Promise.all(sweeping === undefined ? writes : [...writes, sweeping]);
  }
}
