/**
 * The parts of one interaction service, built in the order they depend on each other, each
 * calling only the ones built before it: the audit trail, the replica of open asks, the owner
 * lease, the compare-and-set writes (which return what they applied), settlement (the one
 * settle step of every applied write, and the commit loop), delivery, ownership (first writes
 * and take-overs), the commands and the sweeper. The facade (service.ts) only delegates to them.
 */
import type { AskIndex, AskLog } from '../stores/ask-store.js';
import { createMemoryAskStore } from '../stores/memory-store.js';
import { readStorePorts } from '../stores/store-ports.js';
import { AskCommands } from './ask-commands.js';
import { AskCommits } from './ask-commit.js';
import { sequentialIds } from './ask-ids.js';
import type { AskObserver } from './ask-observer.js';
import { AskOwnership } from './ask-ownership.js';
import { AskReplica } from './ask-replica.js';
import { redacts } from './ask-write.js';
import { AuditTrail } from './audit-trail.js';
import { type Clock, systemClock } from './clock.js';
import { Delivery } from './delivery.js';
import { AskInspection } from './inspection.js';
import type { OpenAsk } from './open-ask.js';
import { OutcomeWaits } from './outcome-wait.js';
import { OwnerLease } from './owner-lease.js';
import type { AskProvider } from './provider.js';
import { RetentionTimer } from './retention.js';
import { type InteractionServiceOptions, leaseTimes } from './service-options.js';
import { Settlement } from './settlement.js';
import { StoreSweeper } from './store-sweeper.js';
import { WriteLedger } from './write-ledger.js';

/** The retention of a memory store the service creates itself: settled asks kept an hour. */
const OWN_MEMORY_STORE_RETENTION = { finalAfterMs: 3_600_000 };

export interface ServiceParts {
  clock: Clock;
  /** The store's ask log (the store itself). */
  store: AskLog;
  /** The store's index port, if it has one (`list`, `purge`, retention). */
  index: AskIndex | undefined;
  /** True when this service redacts every ask it writes. */
  redact: boolean;
  ids: () => string;
  trail: AuditTrail;
  replica: AskReplica;
  settlement: Settlement;
  commits: AskCommits;
  ownership: AskOwnership;
  commands: AskCommands;
  sweeper: StoreSweeper;
  /** This service's owner lease, renewed while it is open. */
  lease: OwnerLease;
  /** The store writes in flight, which `close()` waits for. */
  ledger: WriteLedger;
  /** Callers waiting for asks' final outcomes (`service.outcome`). */
  outcomes: OutcomeWaits;
  /** Traces and metrics of this service's asks (the `otel` option), if any. */
  observer: AskObserver | undefined;
  /** Purges old final asks on a timer, when the service has a `retention`. */
  retention: RetentionTimer | undefined;
  /** Stops listening to the store's news. */
  unsubscribe: () => void;
  /** Hands a failure with no caller to the host's `onError` (which may not throw it back). */
  report: (error: unknown) => void;
}

/** The parts of the service `serviceId` with these (checked) options. */
export function createServiceParts(
  options: InteractionServiceOptions,
  serviceId: string,
  provider: () => AskProvider | undefined,
): ServiceParts {
  const clock = options.clock ?? systemClock;
  const { log: store, index } = readStorePorts(options.store ?? createMemoryAskStore());
  // A memory store of the service's own would otherwise grow for as long as the process runs.
  const retentionOptions =
    options.retention ?? (options.store === undefined ? OWN_MEMORY_STORE_RETENTION : false);
  const redact = options.redact === true;
  const onError = options.onError ?? ((error: unknown) => console.error(error));
  const report = (error: unknown) => {
    try {
      onError(error);
    } catch (thrown) {
      queueMicrotask(() => {
        throw thrown;
      });
    }
  };
  // Answers stay out of the audit and messages of an ask that redacts, or in a service that does.
  const quoteInput = (open: OpenAsk) => !(redact || redacts(open.state));
  const observer = options.otel?.observe(serviceId, report);
  const ledger = new WriteLedger();
  // Each part is built from the ones above it, and calls only those.
  const trail = new AuditTrail(store, clock, observer, ledger);
  const replica = new AskReplica(store, serviceId);
  const lease = new OwnerLease(store, clock, serviceId, leaseTimes(options), report);
  const commits = new AskCommits(store, clock, serviceId, lease, ledger, report);
  const inspection =
    options.inspect === undefined ? undefined : new AskInspection(options.inspect, redact);
  const settlement = new Settlement(
    clock,
    store,
    replica,
    trail,
    inspection,
    commits,
    observer,
    report,
  );
  const delivery = new Delivery({
    provider,
    quoteInput,
    commit: (open, event, outbox) => settlement.commit(open, event, outbox),
    abort: (open, cause) => settlement.abort(open, cause),
    recordAttempt: (open, result) => trail.attempt(open, 'provider', result),
    recordUnidentified: (open) => trail.unidentifiedResponse(open),
    now: () => clock.now(),
    report,
  });
  const ownership = new AskOwnership(
    store,
    clock,
    serviceId,
    replica,
    commits,
    settlement,
    delivery,
    lease,
    report,
  );
  const commands = new AskCommands(store, replica, settlement, ownership, trail, quoteInput);
  // A memory store of the service's own has no other writer (the sweeper's writes are settled
  // here directly): news of its changes would only repeat this service's own writes. A shared
  // store leaves this service's own writes out of its news, as their writer.
  const unsubscribe =
    options.store === undefined
      ? doNothing
      : store.subscribe((change) => settlement.onChange(change), { writer: serviceId });
  const sweeper = new StoreSweeper(
    store,
    serviceId,
    clock,
    options.sweepIntervalMs ?? 250,
    (write) => settlement.settle({ how: 'swept', write }),
    report,
    observer,
    (now) => settlement.deadlinesDue(now),
    ledger,
  );
  const retention =
    retentionOptions === false
      ? undefined
      : new RetentionTimer(index as AskIndex, clock, retentionOptions, report, ledger);
  return {
    clock,
    store,
    index,
    redact,
    ids: options.ids ?? sequentialIds(),
    trail,
    replica,
    settlement,
    commits,
    ownership,
    commands,
    sweeper,
    lease,
    ledger,
    outcomes: new OutcomeWaits(store, (askId) => replica.get(askId)?.ready),
    observer,
    retention,
    unsubscribe,
    report,
  };
}

function doNothing(): void {}
