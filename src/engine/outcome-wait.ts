/**
 * `service.outcome(askId)`: the final outcome of an ask, whichever host settles it. A waiter
 * listens to the store's news of every write (this service's own included) before its first
 * read, so no settle falls between the two, and reads the ask again on news of it (or on
 * 'missed'). One read at a time per waiter; news during a read asks for one more.
 */
import type { AskOutcome } from '../contracts/outcome.js';
import { describe } from '../rules/describe.js';
import { UserInteractionError } from '../rules/errors.js';
import type { AskLog } from '../stores/ask-store.js';
import { isAbortSignalLike } from './abortable.js';
import { freezeOutcome } from './outcome-copy.js';
import type { OutcomeOptions } from './service-contract.js';
import { checkStoredAsk } from './stored-ask-check.js';

export class OutcomeWaits {
  readonly #store: AskLog;
  readonly #writing: (askId: string) => Promise<unknown> | undefined;
  /** Each waiter's rejection, for `close()`. */
  readonly #waiting = new Set<(error: unknown) => void>();

  /** `writing(askId)`: this service's first write of that ask while it is in flight, if any. */
  constructor(store: AskLog, writing: (askId: string) => Promise<unknown> | undefined) {
    this.#store = store;
    this.#writing = writing;
  }

  wait(askId: string, options: OutcomeOptions | undefined): Promise<AskOutcome> {
    const signal = readOutcomeOptions(askId, options);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<AskOutcome>((resolve, reject) => {
      let reading = false;
      let again = false;
      let seen = false;
      let ended = false;
      let unsubscribe: (() => void) | undefined;
      const end = (): boolean => {
        if (ended) return false;
        ended = true;
        unsubscribe?.();
        signal?.removeEventListener('abort', onAbort);
        this.#waiting.delete(fail);
        return true;
      };
      const fail = (error: unknown) => {
        if (end()) reject(error);
      };
      const onAbort = () => fail(signal?.reason);
      const read = async (): Promise<void> => {
        if (reading) {
          again = true;
          return;
        }
        reading = true;
        try {
          // An ask this service has just started is read once its row is in the store.
          const writing = this.#writing(askId);
          if (writing !== undefined) await writing.catch(() => undefined);
          do {
            again = false;
            const row = await this.#store.get(askId);
            if (ended) return;
            if (row === undefined) {
              fail(
                new UserInteractionError(
                  'UNKNOWN_INTERACTION',
                  seen
                    ? `Ask ${askId} was purged from the store before it settled here; its outcome can no longer be read.`
                    : `No ask has id "${askId}".`,
                  { askId },
                ),
              );
              return;
            }
            seen = true;
            const checked = checkStoredAsk(row, 'the stored ask');
            if (checked.final && checked.outcome !== undefined) {
              if (end()) resolve(freezeOutcome(checked.outcome, undefined));
              return;
            }
          } while (again);
        } catch (error) {
          fail(error);
        } finally {
          reading = false;
        }
      };
      this.#waiting.add(fail);
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        unsubscribe = this.#store.subscribe((change) => {
          if (change.type === 'missed' || change.askId === askId) void read();
        });
      } catch (error) {
        fail(error);
        return;
      }
      void read();
    });
  }

  /** The service closed: every waiter is rejected with `error`. */
  close(error: Error): void {
    for (const fail of [...this.#waiting]) fail(error);
  }
}

function readOutcomeOptions(
  askId: unknown,
  options: OutcomeOptions | undefined,
): AbortSignal | undefined {
  if (typeof askId !== 'string' || askId === '') {
    throw new UserInteractionError(
      'UNKNOWN_INTERACTION',
      `Expected an ask id (a non-empty string), got ${describe(askId)}.`,
    );
  }
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null) {
    throw new UserInteractionError(
      'INVALID_REQUEST',
      `Expected outcome options to be an object { signal? }, got ${describe(options)}.`,
    );
  }
  const { signal } = options;
  if (signal !== undefined && !isAbortSignalLike(signal)) {
    throw new UserInteractionError(
      'INVALID_REQUEST',
      `Expected outcome option \`signal\` to be an AbortSignal, got ${describe(signal)}.`,
      { option: 'signal' },
    );
  }
  return signal;
}
