/**
 * Which ports a store implements, read once where a store is handed in: the ask log always,
 * the outbox and the index each wholly or not at all. The method lists are checked against the
 * port interfaces at compile time, so a method added to a port and not listed fails the build.
 */
import { describe } from '../rules/describe.js';
import type { AskIndex, AskLog, AskOutbox, AskStore } from './ask-store.js';
import { WORK_CLAIM_METHODS, type WorkClaimStore } from './work-claims.js';

/** The methods of the ask log (`AskLog`), which every store implements. */
export const ASK_LOG_METHODS = [
  'create',
  'update',
  'append',
  'get',
  'findByInteractionId',
  'findByKey',
  'history',
  'claimDue',
  'acknowledgeSettled',
  'subscribe',
  'renewOwnerLease',
  'releaseOwnerLease',
  'ownerLeaseUntil',
  'close',
] as const satisfies readonly (keyof AskLog)[];

/** The methods of the outbox port (`AskOutbox`). */
export const ASK_OUTBOX_METHODS = [
  'claimOutbox',
  'takeOutbox',
  'completeOutbox',
  'retryOutbox',
  'renewOutbox',
] as const satisfies readonly (keyof AskOutbox)[];

/** The methods of the index port (`AskIndex`). */
export const ASK_INDEX_METHODS = ['list', 'purge'] as const satisfies readonly (keyof AskIndex)[];

/** The methods of a store with every port (`AskStore`). */
export const ASK_STORE_METHODS = [
  ...ASK_LOG_METHODS,
  ...ASK_OUTBOX_METHODS,
  ...ASK_INDEX_METHODS,
  ...WORK_CLAIM_METHODS,
] as const;

/** The names of `T`'s methods that `listed` leaves out: `never` when it lists them all. */
type Unlisted<T, listed extends readonly string[]> = Exclude<
  { [K in keyof T]-?: T[K] extends (...args: never[]) => unknown ? K : never }[keyof T],
  listed[number]
>;
// Each fails to compile, naming the method, when a port gains a method its list leaves out.
const logListed: [Unlisted<AskLog, typeof ASK_LOG_METHODS>] extends [never] ? true : never = true;
const outboxListed: [Unlisted<AskOutbox, typeof ASK_OUTBOX_METHODS>] extends [never]
  ? true
  : never = true;
const indexListed: [Unlisted<AskIndex, typeof ASK_INDEX_METHODS>] extends [never] ? true : never =
  true;
void [logListed, outboxListed, indexListed];

/** A store as the service takes it: the ask log, and each other port if it has that port. */
export type AskStorePorts = AskLog &
  Partial<AskOutbox> &
  Partial<AskIndex> &
  Partial<WorkClaimStore>;

/** The ports of one store object, each typed, `undefined` where the store lacks the port. */
export interface StorePorts {
  log: AskLog;
  outbox: AskOutbox | undefined;
  index: AskIndex | undefined;
  claims: WorkClaimStore | undefined;
}

const PORTS = [
  { name: 'outbox', methods: ASK_OUTBOX_METHODS },
  { name: 'index', methods: ASK_INDEX_METHODS },
  { name: 'work claims', methods: WORK_CLAIM_METHODS },
] as const;

/**
 * Reads which ports `value` implements; throws a `TypeError` naming `field` and what is missing
 * when it is no ask log, or implements part of another port (an outbox without `renewOutbox`
 * would lose messages: a port is implemented wholly or not at all).
 *
 * @example
 * readStorePorts(createMemoryAskStore()).index; // the store itself
 * readStorePorts({ ...onlyTheLog }).index; // undefined
 */
export function readStorePorts(value: unknown, field = 'store'): StorePorts {
  if (typeof value !== 'object' || value === null) {
    throw new TypeError(
      `Expected \`${field}\` to be an ask store (at least the ask log: ${ASK_LOG_METHODS.join(', ')}), got ${describe(value)}.`,
    );
  }
  const missing = ASK_LOG_METHODS.filter((method) => !isMethod(value, method));
  if (missing.length > 0) {
    throw new TypeError(
      `Expected \`${field}\` to implement the ask log (${ASK_LOG_METHODS.join(', ')}); it lacks ${missing.join(', ')}. Every store implements the log; the outbox and the index ports are optional.`,
    );
  }
  for (const { name, methods } of PORTS) {
    const has = methods.filter((method) => isMethod(value, method));
    if (has.length > 0 && has.length < methods.length) {
      const lacks = methods.filter((method) => !has.includes(method));
      throw new TypeError(
        `\`${field}\` implements part of the ${name} port (${has.join(', ')}) but not ${lacks.join(', ')}; a port is implemented wholly (${methods.join(', ')}) or not at all.`,
      );
    }
  }
  const store = value as AskStore;
  return {
    log: store,
    outbox: isMethod(value, 'claimOutbox') ? store : undefined,
    index: isMethod(value, 'list') ? store : undefined,
    claims: isMethod(value, 'claimWork') ? store : undefined,
  };
}

/**
 * The error for an operation that needs a port `store` lacks: names the operation, the port, its
 * methods, and the stores that have it.
 */
export function missingPort(
  operation: string,
  port: 'outbox' | 'index' | 'work claims',
): TypeError {
  const methods = {
    outbox: ASK_OUTBOX_METHODS,
    index: ASK_INDEX_METHODS,
    'work claims': WORK_CLAIM_METHODS,
  }[port];
  return new TypeError(
    `${operation} needs a store with the ${port} port (${methods.join(', ')}), which this store does not implement. The memory, SQLite and PostgreSQL stores implement every port.`,
  );
}

function isMethod(value: object, name: string): boolean {
  return typeof (value as Record<string, unknown>)[name] === 'function';
}
