/** The PostgreSQL store's change feed: one LISTEN per store, fanned out to its subscribers. */
import type { ListenMeta, Sql } from 'postgres';
import type { AskStoreChange } from './ask-store.js';
import { ChangeFanout } from './change-fanout.js';

/** Retries of a LISTEN that failed outright: the first after 250 ms, doubling up to 10 s. */
const LISTEN_RETRY_MS = [250, 10_000] as const;

/**
 * Listens on `channel` while it has subscribers: every `askId:version` notification becomes a
 * `changed`, and every LISTEN that comes up becomes a `missed`. Writes made before it was up were
 * not heard: on the first LISTEN, those made since `subscribe()` (a subscriber may already hold
 * asks it read or wrote); after a reconnect or a retry, those made while it was down.
 */
export class PostgresChangeFeed {
  readonly #sql: Sql;
  readonly #channel: string;
  readonly #onError: (error: unknown) => void;
  /** This store's own write of an ask under way, whose news waits for it to settle. */
  readonly #writing: (askId: string) => Promise<unknown> | undefined;
  readonly #fanout: ChangeFanout;
  #listening: Listening | undefined;
  #unlistening: Promise<void> = Promise.resolve();

  constructor(
    sql: Sql,
    channel: string,
    onError: (error: unknown) => void,
    writing: (askId: string) => Promise<unknown> | undefined,
  ) {
    this.#sql = sql;
    this.#channel = channel;
    this.#onError = onError;
    this.#writing = writing;
    this.#fanout = new ChangeFanout(onError);
  }

  subscribe(listener: (change: AskStoreChange) => void): () => void {
    const unsubscribe = this.#fanout.subscribe(listener, () => this.#stop(true));
    this.#listening ??= this.#listen();
    return unsubscribe;
  }

  /**
   * Drops every subscriber and stops listening. `unlisten: false` leaves the UNLISTEN to the
   * client's `end()` (which would otherwise wait for a connection while the database is away).
   */
  async close(unlisten: boolean): Promise<void> {
    this.#fanout.close();
    this.#stop(unlisten);
    await this.#unlistening;
  }

  #listen(): Listening {
    const listening: Listening = {
      ready: Promise.resolve(undefined),
      stopped: false,
      retry: undefined,
    };
    const start = (attempt: number) => {
      listening.ready = this.#sql
        .listen(
          this.#channel,
          (payload) => {
            if (!listening.stopped) this.#notified(payload);
          },
          () => {
            // Runs on the first LISTEN and again after every reconnect.
            if (!listening.stopped) this.#emit({ type: 'missed' });
          },
        )
        .then(
          (meta) => meta,
          (error: unknown) => {
            if (listening.stopped) return undefined;
            this.#onError(
              new Error(
                `The PostgreSQL ask store could not LISTEN on "${this.#channel}"; retrying.`,
                { cause: error },
              ),
            );
            const delay = Math.min(LISTEN_RETRY_MS[0] * 2 ** attempt, LISTEN_RETRY_MS[1]);
            listening.retry = setTimeout(() => start(attempt + 1), delay);
            return undefined;
          },
        );
    };
    start(0);
    return listening;
  }

  /** Stops the LISTEN; `close()` waits for the UNLISTEN, so it never runs on an ended client. */
  #stop(unlisten: boolean): void {
    const listening = this.#listening;
    if (listening === undefined) return;
    this.#listening = undefined;
    listening.stopped = true;
    clearTimeout(listening.retry);
    if (!unlisten) return;
    const unlistened = listening.ready.then((meta) => meta?.unlisten()).catch(this.#onError);
    this.#unlistening = Promise.all([this.#unlistening, unlistened]).then(() => {});
  }

  #notified(payload: string): void {
    const colon = payload.lastIndexOf(':');
    const version = Number(payload.slice(colon + 1));
    if (colon <= 0 || !Number.isInteger(version)) {
      this.#onError(
        new Error(
          `The PostgreSQL ask store ignored a notification on "${this.#channel}" that is not askId:version: ${JSON.stringify(payload)}.`,
        ),
      );
      return;
    }
    const change: AskStoreChange = { type: 'changed', askId: payload.slice(0, colon), version };
    const writing = this.#writing(change.askId);
    if (writing === undefined) this.#emit(change);
    else void writing.then(() => this.#emit(change));
  }

  #emit(change: AskStoreChange): void {
    this.#fanout.emit(change);
  }
}

interface Listening {
  /** The current LISTEN attempt: its handle, or undefined when it failed. */
  ready: Promise<ListenMeta | undefined>;
  stopped: boolean;
  retry: ReturnType<typeof setTimeout> | undefined;
}
