/** The service's options and an ask's options, each checked up front with the value received. */
import { type AskAttachment, AskAttachmentSchema } from '../contracts/attachment.js';
import { describe } from '../rules/describe.js';
import { UserInteractionError } from '../rules/errors.js';
import { MAX_ATTACHMENT_BYTES, utf8ByteLength } from '../rules/limits.js';
import { checkStoreText } from '../rules/store-text.js';
import { renewalInterval } from '../stores/owner-lease.js';
import { type AskStorePorts, missingPort, readStorePorts } from '../stores/store-ports.js';
import { isAbortSignalLike } from './abortable.js';
import { ASK_TELEMETRY_METHODS, type AskTelemetry } from './ask-observer.js';
import type { Clock } from './clock.js';
import type { Inspect } from './inspection.js';
import type { LeaseTimes } from './owner-lease.js';
import type { RetentionOptions } from './retention.js';
import type { AskOptions } from './service-contract.js';

/** Options of `createInteractionService`; every one is optional and checked up front. */
export interface InteractionServiceOptions {
  /** Time source for deadlines and audit times; xstate's `SimulatedClock` works in tests. */
  clock?: Clock;
  /** Receives xstate inspection events of every ask (e.g. `createBrowserInspector().inspect`). */
  inspect?: Inspect;
  /**
   * Where asks live; services sharing a store share their asks. Defaults to a new memory store.
   * Any store with the ask log port; `list`, `purge` and `retention` need its index port too,
   * and the notify provider its outbox port (the memory, SQLite and PostgreSQL stores have all).
   */
  store?: AskStorePorts;
  /** Replace answers by `'[redacted]'` in audit and inspection events and refusal messages. */
  redact?: boolean;
  /** Generates ask ids; defaults to a random prefix per service plus a counter. */
  ids?: () => string;
  /**
   * How often this service claims asks of the store whose deadline passed (deferred asks, and
   * pending asks whose service went away). Default 250 ms.
   */
  sweepIntervalMs?: number;
  /**
   * How long this service's owner lease runs (ms of the `clock`), renewed every `leaseRenewMs`
   * while the service is open and released by `close()`. The asks it delivers are its own while
   * the lease runs; once it has run out (the process died), a keyed `start` or a `restore` in
   * another service takes them over and the sweeper times them out. Default 15,000.
   */
  leaseMs?: number;
  /** How often (ms of real time) the lease is renewed; below `leaseMs`. Default a third of it. */
  leaseRenewMs?: number;
  /**
   * Hears of every failure that has no caller to reject: a stored row that fails its check (the
   * ask is skipped, never guessed at), a sweep the store failed, a re-read or a deadline write
   * of an ask the store failed (tried again while the service holds the ask), a stored version
   * that went back, an audit write that failed after the outcome. Default: `console.error`.
   */
  onError?: (error: unknown) => void;
  /**
   * Traces and metrics of every ask: what `createOtel()` of `ask-engine/otel` returns (that
   * subpath needs the optional peer `@opentelemetry/api`; without this option nothing loads it).
   */
  otel?: AskTelemetry;
  /**
   * Deletes final asks and their histories once they are `finalAfterMs` old (by the time they
   * settled), checking every `everyMs` (default 60,000) of real time; pending and deferred
   * asks are kept. One service per store is enough. Default: none for a store you pass (data
   * is only deleted when asked); for the memory store the service creates when you pass none,
   * `{ finalAfterMs: 3_600_000 }`. `false`: never.
   */
  retention?: RetentionOptions | false;
}

/** Every service option is checked up front, with the value received. */
export function checkServiceOptions(options: InteractionServiceOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`Expected service options to be an object, got ${describe(options)}.`);
  }
  const { clock, inspect, store, redact, ids, sweepIntervalMs, onError, otel, retention } = options;
  leaseTimes(options);
  const hasMethods = (value: unknown, names: string[]) =>
    typeof value === 'object' &&
    value !== null &&
    names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');
  if (clock !== undefined && !hasMethods(clock, ['now', 'setTimeout', 'clearTimeout'])) {
    throw new TypeError(
      `Expected \`clock\` to have now(), setTimeout() and clearTimeout(), got ${describe(clock)}.`,
    );
  }
  if (
    inspect !== undefined &&
    typeof inspect !== 'function' &&
    (typeof inspect !== 'object' || inspect === null)
  ) {
    throw new TypeError(
      `Expected \`inspect\` to be a function or an observer { next }, got ${describe(inspect)}.`,
    );
  }
  if (store !== undefined && readStorePorts(store).index === undefined && retention) {
    throw missingPort('The `retention` option', 'index');
  }
  if (redact !== undefined && typeof redact !== 'boolean') {
    throw new TypeError(`Expected \`redact\` to be a boolean, got ${describe(redact)}.`);
  }
  if (ids !== undefined && typeof ids !== 'function') {
    throw new TypeError(
      `Expected \`ids\` to be a function returning a string, got ${describe(ids)}.`,
    );
  }
  if (onError !== undefined && typeof onError !== 'function') {
    throw new TypeError(
      `Expected \`onError\` to be a function (error) => void, got ${describe(onError)}.`,
    );
  }
  if (otel !== undefined && !hasMethods(otel, [...ASK_TELEMETRY_METHODS])) {
    throw new TypeError(
      `Expected \`otel\` to be what createOtel() of ask-engine/otel returns, got ${describe(otel)}.`,
    );
  }
  if (
    sweepIntervalMs !== undefined &&
    (typeof sweepIntervalMs !== 'number' || !(sweepIntervalMs > 0))
  ) {
    throw new TypeError(
      `Expected \`sweepIntervalMs\` to be a number of milliseconds > 0 (or Infinity to never sweep), got ${describe(sweepIntervalMs)}.`,
    );
  }
  if (retention !== undefined && retention !== false) checkRetention(retention);
}

/** The default of `leaseMs`; `leaseRenewMs` defaults to a third of the lease. */
export const DEFAULT_LEASE_MS = 15_000;

/** The lease's duration and renewal interval of these options, checked, defaults resolved. */
export function leaseTimes(options: InteractionServiceOptions): LeaseTimes {
  const { leaseMs = DEFAULT_LEASE_MS, leaseRenewMs } = options;
  if (typeof leaseMs !== 'number' || !Number.isFinite(leaseMs) || !(leaseMs > 0)) {
    throw new TypeError(
      `Expected \`leaseMs\` to be a number of milliseconds > 0, got ${describe(leaseMs)}.`,
    );
  }
  const renewMs = leaseRenewMs ?? renewalInterval(leaseMs);
  if (
    typeof renewMs !== 'number' ||
    !Number.isFinite(renewMs) ||
    !(renewMs > 0) ||
    renewMs >= leaseMs
  ) {
    throw new TypeError(
      `Expected \`leaseRenewMs\` to be a number of milliseconds > 0 and below \`leaseMs\` (${leaseMs}), so the lease is renewed before it runs out, got ${describe(leaseRenewMs)}.`,
    );
  }
  return { leaseMs, renewMs };
}

function checkRetention(retention: RetentionOptions): void {
  if (typeof retention !== 'object' || retention === null) {
    throw new TypeError(
      `Expected \`retention\` to be { finalAfterMs, everyMs? } or false, got ${describe(retention)}.`,
    );
  }
  for (const name of Object.keys(retention)) {
    if (name !== 'finalAfterMs' && name !== 'everyMs') {
      throw new TypeError(
        `Unknown \`retention.${name}\`: retention takes { finalAfterMs, everyMs? }.`,
      );
    }
  }
  const { finalAfterMs, everyMs } = retention;
  if (typeof finalAfterMs !== 'number' || !Number.isFinite(finalAfterMs) || finalAfterMs < 0) {
    throw new TypeError(
      `Expected \`retention.finalAfterMs\` to be a number of milliseconds from 0 and up, got ${describe(finalAfterMs)}.`,
    );
  }
  if (
    everyMs !== undefined &&
    (typeof everyMs !== 'number' || !Number.isFinite(everyMs) || !(everyMs > 0))
  ) {
    throw new TypeError(
      `Expected \`retention.everyMs\` to be a number of milliseconds > 0, got ${describe(everyMs)}.`,
    );
  }
}

/** Options are checked before anything starts, so a bad one can never leave half an ask behind. */
export function checkAskOptions(options: AskOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw badOption(
      'options',
      options,
      'an object { signal?, timeoutMs?, toolCallId?, sessionId?, key?, quorum?, attachment? }',
    );
  }
  const { signal, toolCallId, sessionId, key } = options;
  if (signal !== undefined && !isAbortSignalLike(signal)) {
    throw badOption('signal', signal, 'an AbortSignal');
  }
  if (toolCallId !== undefined && typeof toolCallId !== 'string') {
    throw badOption('toolCallId', toolCallId, 'a string');
  }
  if (sessionId !== undefined && typeof sessionId !== 'string') {
    throw badOption('sessionId', sessionId, 'a string');
  }
  if (key !== undefined && (typeof key !== 'string' || key === '')) {
    throw badOption('key', key, 'a non-empty string');
  }
  // Each is kept with the ask (and a key looked up) in the store, before any write.
  if (key !== undefined) checkStoreText(key, 'key', 'ask option');
  if (sessionId !== undefined) checkStoreText(sessionId, 'sessionId', 'ask option');
  if (toolCallId !== undefined) checkStoreText(toolCallId, 'toolCallId', 'ask option');
}

/**
 * `start`'s `attachment`, checked where it is written (a store keeps it as given) and copied,
 * frozen, so the caller's object can change afterwards without changing the ask's.
 */
export function readAttachment(attachment: unknown): AskAttachment {
  if (typeof attachment !== 'object' || attachment === null || Array.isArray(attachment)) {
    throw badOption('attachment', attachment, 'an object { kind, version, data }');
  }
  const { kind, version, data, ...other } = attachment as Record<string, unknown>;
  const extra = Object.keys(other)[0];
  if (extra !== undefined) {
    throw badOption(
      'attachment',
      attachment,
      `an object { kind, version, data } without other properties (it has \`${extra}\`)`,
    );
  }
  for (const [field, value] of [
    ['kind', kind],
    ['version', version],
  ] as const) {
    if (typeof value !== 'string' || value === '' || value.length > ATTACHMENT_NAME_LENGTH) {
      throw badOption(
        `attachment.${field}`,
        value,
        `a non-empty string of at most ${ATTACHMENT_NAME_LENGTH} characters`,
      );
    }
    checkStoreText(value, `attachment.${field}`, 'ask option');
  }
  if (typeof data !== 'string') throw badOption('attachment.data', data, 'a string');
  const bytes = utf8ByteLength(data);
  if (bytes > MAX_ATTACHMENT_BYTES) {
    throw new UserInteractionError(
      'LIMIT_EXCEEDED',
      `Ask option \`attachment.data\` is ${bytes} bytes of UTF-8, over the limit of ${MAX_ATTACHMENT_BYTES} (MAX_ATTACHMENT_BYTES). Keep large data in a store of its own and attach a reference to it.`,
      { option: 'attachment.data', bytes, limit: MAX_ATTACHMENT_BYTES },
    );
  }
  checkStoreText(data, 'attachment.data', 'ask option');
  return Object.freeze({ kind, version, data }) as AskAttachment;
}

// The schema's own bound on `kind` and `version` (AskAttachmentSchema).
const ATTACHMENT_NAME_LENGTH = AskAttachmentSchema.properties.kind.maxLength as number;

function badOption(name: string, value: unknown, expected: string): UserInteractionError {
  return new UserInteractionError(
    'INVALID_REQUEST',
    `Expected ask option \`${name}\` to be ${expected}, got ${describe(value)}.`,
    { option: name },
  );
}
