/** The PostgreSQL store's change feed: one LISTEN per store, fanned out to its subscribers. */
import type { ListenMeta, Sql } from 'postgres';
import type { AskStoreChange } from '../ask-store.js';
import { ChangeFanout } from '../change-fanout.js';

/** Retries of a LISTEN that failed outright: the first after 250 ms, doubling up to 10 s. */
const LISTEN_RETRY_MS = [250, 10_000] as const;
/**
 * Own writes remembered at most while their NOTIFY is on its way. Only a write whose NOTIFY
 * never comes (committed just before a LISTEN came up) stays longer; past this many, all are
 * forgotten, which only lets their writers hear of them.
 */
const MAX_OWN_WRITES = 10_000;

/**
 * Listens on `channel` while it has subscribers: every `askId:version` notification becomes a
 * `changed`, and every LISTEN that comes up becomes a `missed`. Writes made before it was up were
 * not heard: on the first LISTEN, those made since `subscribe()` (a subscriber may already hold
 * asks it read or wrote); after a reconnect or a retry, those made while it was down.
 *
 * The payload stays `askId:version` (stores of older releases read it). A write's writer is
 * known only to the store that applied it: that store remembers its own writes by the same
 * `askId:version` (one write per version, by the version check) until their NOTIFY comes back,
 * and tells that NOTIFY with its writer. Other stores tell it with no writer, to everyone.
 */
export class PostgresChangeFeed {
  readonly #sql: Sql;
  readonly #channel: string;
  readonly #onError: (error: unknown) => void;
  /** This store's own write of an ask under way, whose news waits for it to settle. */
  readonly #writing: (askId: string) => Promise<unknown> | undefined;
  readonly #fanout: ChangeFanout;
  /** This store's writes whose NOTIFY has not come back yet: `askId:version` to its writer. */
  readonly #own = new Map<string, string>();
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

  subscribe(listener: (change: AskStoreChange) => void, writer: string | undefined): () => void {
    const unsubscribe = this.#fanout.subscribe(listener, writer, () => this.#stop(true));
    this.#listening ??= this.#listen();
    return unsubscribe;
  }

  /**
   * This store applied `askId` at `version` for `writer`: the NOTIFY of it is not told to the
   * subscriber of that writer. Called before the write's promise settles (a NOTIFY waits for
   * it, see the store's `writing`), so the NOTIFY never comes back before this is known.
   */
  wrote(askId: string, version: number, writer: string | undefined): void {
    if (writer === undefined || this.#listening === undefined || !this.#fanout.listensAs(writer)) {
      return;
    }
    if (this.#own.size >= MAX_OWN_WRITES) this.#own.clear();
    this.#own.set(`${askId}:${version}`, writer);
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
            // Runs on the first LISTEN and again after every reconnect. Own writes made before
            // it came up never come back: forgotten (one that does is then told to all).
            if (listening.stopped) return;
            this.#own.clear();
            this.#fanout.missed();
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
    this.#own.clear();
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
    const askId = payload.slice(0, colon);
    const writing = this.#writing(askId);
    if (writing === undefined) this.#changed(payload, askId, version);
    else void writing.then(() => this.#changed(payload, askId, version));
  }

  /** Tells the NOTIFY `payload` (`askId:version`), with its writer if this store made it. */
  #changed(payload: string, askId: string, version: number): void {
    const writer = this.#own.size === 0 ? undefined : this.#own.get(payload);
    if (writer !== undefined) this.#own.delete(payload);
    this.#fanout.changed(askId, version, writer);
  }
}

interface Listening {
  /** The current LISTEN attempt: its handle, or undefined when it failed. */
  ready: Promise<ListenMeta | undefined>;
  stopped: boolean;
  retry: ReturnType<typeof setTimeout> | undefined;
}
