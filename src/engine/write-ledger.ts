/**
 * The store writes a service has in flight. `close()` closes the ledger, then waits for the
 * writes it counts: once `close()` has resolved, nothing of the service writes again (a write
 * sent before still lands, but before `close()` resolves, never after). A write begun after the
 * ledger closed is refused, here, for every part of the service.
 */
export class WriteLedger {
  #inFlight = 0;
  #closed = false;
  #settled: (() => void) | undefined;

  /** A write is about to be sent; `end()` once its promise settled. Throws once closed. */
  begin(): void {
    if (this.#closed) throw closedError();
    this.#inFlight++;
  }

  end(): void {
    this.#inFlight--;
    if (this.#inFlight === 0) this.#settled?.();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Refuses new writes; resolves once the writes in flight have settled. */
  close(): Promise<void> {
    this.#closed = true;
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.#settled = resolve;
    });
  }
}

/** What a write begun after the service closed is refused with. */
export function closedError(): Error {
  return new Error('The interaction service is closed; it writes no more changes to its asks.');
}
