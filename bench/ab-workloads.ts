/**
 * The workloads `npm run bench:ab` times on two builds of the stores (bench/ab-stores.ts). Each
 * workload is set up once per build, from that build's public exports alone (`Build`), so the
 * same code runs against both commits: a durable ask through a service, then the store alone
 * (create + update + get, one page of `list` with a filter, `history`, the outbox claim), on the
 * memory store, on SQLite (a file of its own per build and workload) and on PostgreSQL (a
 * database of its own per build and workload). Every store and service runs with its defaults.
 * Rows written by the store workloads are copies of the rows the build's own service wrote for
 * one ask, so each build stores what it would store.
 */
import { join } from 'node:path';
import postgres from 'postgres';
import type * as Root from '../src/index.js';
import type * as Postgres from '../src/postgres.js';
import type * as Sqlite from '../src/sqlite.js';
import { yesAnswer, yesNoRequest } from './fixtures.js';

/** What a workload may use of one build: its public exports, nothing else. */
export interface Build {
  /** `before` or `after`. */
  readonly label: string;
  readonly createInteractionService: typeof Root.createInteractionService;
  readonly createMemoryAskStore: typeof Root.createMemoryAskStore;
  readonly createSqliteAskStore: typeof Sqlite.createSqliteAskStore;
  readonly createPostgresAskStore: typeof Postgres.createPostgresAskStore;
}

type AskStore = Root.AskStore;
type StoredAsk = Root.StoredAsk;
type AskAuditEvent = Root.AskAuditEvent;
type AskWrite = Root.AskWrite;

/** One build's side of a workload: the call to time, and what closes what it opened. */
export interface Side {
  run(): Promise<unknown>;
  close(): Promise<void>;
}

export interface Workload {
  readonly kind: StoreKind;
  readonly name: string;
  /** Opens this build's store (and service), fills it, and checks one call works. */
  setup(build: Build): Promise<Side>;
}

export type StoreKind = 'memory' | 'SQLite' | 'PostgreSQL';

/** Where the stores of a run live: a temp folder for SQLite files, a cluster for PostgreSQL. */
export interface Places {
  readonly dir: string;
  /**
   * A connection string of the cluster's `postgres` database, read when a PostgreSQL workload
   * is set up (so the cluster is started only when one was chosen).
   */
  postgresUrl?: string;
}

/** Asks in the store `list` and `history` read from; one in five is pending. */
export const LISTED_ASKS = 1_000;
const PAGE = 50;
const CHANNEL = 'ab-stores';

export const STORE_KINDS: readonly StoreKind[] = ['memory', 'SQLite', 'PostgreSQL'];

/** Every workload on each kind of store, in `places`. */
export function workloads(kinds: readonly StoreKind[], places: Places): Workload[] {
  const opener = storeOpener(places);
  return kinds.flatMap((kind): Workload[] => [
    {
      kind,
      name: `${kind}: durable ask through a service (start, answer, outcome)`,
      setup: (build) => durableAsk(build, opener(build, kind, 'durable')),
    },
    {
      kind,
      name: `${kind} store: create + update + get`,
      setup: (build) => createUpdateGet(build, opener(build, kind, 'writes')),
    },
    {
      kind,
      name: `${kind} store: list one page (${PAGE} pending of ${LISTED_ASKS.toLocaleString('en')} asks)`,
      setup: (build) => listPage(build, opener(build, kind, 'list')),
    },
    {
      kind,
      name: `${kind} store: history of an answered ask (2 events)`,
      setup: (build) => history(build, opener(build, kind, 'history')),
    },
    {
      kind,
      name: `${kind} store: outbox (create with a message + claimOutbox + completeOutbox)`,
      setup: (build) => outbox(build, opener(build, kind, 'outbox')),
    },
  ]);
}

/** Opens a store of the build with its default options; `fill` opens one to fill fast. */
interface StoreOpening {
  open(): Promise<AskStore>;
  /**
   * A store on the same data for filling it before the timing: SQLite's writes there skip the
   * fsync per commit (the data is the same; the store timed is `open()`'s, with the defaults).
   * Closed before `open()` is called. The memory store has no second opening: it is `open()`'s.
   */
  fill?(): AskStore;
}

function storeOpener(places: Places) {
  return (build: Build, kind: StoreKind, workload: string): StoreOpening => {
    const opening = openingOf(places, build, kind, workload);
    const checked = (store: AskStore) => {
      const methods = store as unknown as Record<string, unknown>;
      const missing = STORE_METHODS.filter((method) => typeof methods[method] !== 'function');
      if (missing.length > 0) {
        throw new Error(`The ${build.label} build's ${kind} store has no ${missing.join(', ')}.`);
      }
      return store;
    };
    const { fill } = opening;
    return {
      open: async () => checked(await opening.open()),
      ...(fill === undefined ? {} : { fill: () => checked(fill()) }),
    };
  };
}

/** The store methods the workloads call: a build whose store lacks one is named. */
const STORE_METHODS = [
  'create',
  'update',
  'get',
  'list',
  'history',
  'claimOutbox',
  'completeOutbox',
  'close',
] as const;

/** Where the build's store of `kind` for `workload` lives, and how it is opened. */
function openingOf(places: Places, build: Build, kind: StoreKind, workload: string): StoreOpening {
  const name = `ab_${build.label}_${workload}`;
  if (kind === 'memory') {
    return { open: async () => build.createMemoryAskStore() };
  }
  if (kind === 'SQLite') {
    const path = join(places.dir, `${name}.db`);
    return {
      open: async () => build.createSqliteAskStore({ path }),
      fill: () => build.createSqliteAskStore({ path }, { synchronous: 'normal' }),
    };
  }
  const url = places.postgresUrl;
  if (url === undefined) throw new Error('The PostgreSQL workloads need a cluster.');
  return {
    open: async () => {
      const admin = postgres(url, { max: 1, onnotice: () => {} });
      try {
        await admin.unsafe(`create database ${name}`);
      } finally {
        await admin.end();
      }
      const own = new URL(url);
      own.pathname = `/${name}`;
      return build.createPostgresAskStore({ connectionString: own.href });
    },
  };
}

/** The rows and events the build's own service wrote for one ask: started, then answered. */
interface Template {
  started: StoredAsk;
  answered: StoredAsk;
  startEvent: AskAuditEvent;
  answerEvent: AskAuditEvent;
  /** A copy of a value of the template with its ask id replaced. */
  renamed: <T>(value: T, askId: string) => T;
}

async function templateOf(build: Build): Promise<Template> {
  const store = build.createMemoryAskStore();
  const service = build.createInteractionService({ store });
  try {
    service.registerProvider({ ask: () => new Promise(() => undefined) });
    const handle = service.start(yesNoRequest, { timeoutMs: 60_000 });
    await handle.stored;
    const started = await store.get(handle.id);
    await service.answer(handle.id, yesAnswer);
    const outcome = await handle.outcome;
    const answered = await store.get(handle.id);
    const events: AskAuditEvent[] = [];
    for await (const event of store.history(handle.id)) events.push(event);
    const [startEvent, answerEvent] = events;
    if (
      outcome.status !== 'answered' ||
      started?.version !== 1 ||
      answered?.version !== 2 ||
      startEvent?.type !== 'start' ||
      answerEvent?.type !== 'answer' ||
      events.length !== 2
    ) {
      throw new Error(
        `The ${build.label} build did not write an ask as expected (start, answer): ${JSON.stringify({ outcome, started, answered, events })}`,
      );
    }
    return {
      started,
      answered,
      startEvent,
      answerEvent,
      renamed: renamer(handle.id),
    };
  } finally {
    await service.close();
    await store.close();
  }
}

/**
 * Copies a value with every string equal to `askId` replaced, copying only the objects on the
 * way to one: the paths are found once per template value, so a copy costs a few spreads.
 */
function renamer(askId: string): <T>(value: T, newId: string) => T {
  const plans = new Map<unknown, Plan | undefined>();
  return <T>(value: T, newId: string): T => {
    if (!plans.has(value)) plans.set(value, planOf(value, askId));
    const plan = plans.get(value);
    return plan === undefined ? value : (apply(value, plan, newId) as T);
  };
}

/** Which keys of an object lead to the id: `true` is the id itself. */
type Plan = Map<string, Plan | true>;

function planOf(value: unknown, askId: string): Plan | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const plan: Plan = new Map();
  for (const [key, child] of Object.entries(value)) {
    if (child === askId) plan.set(key, true);
    else {
      const inner = planOf(child, askId);
      if (inner !== undefined) plan.set(key, inner);
    }
  }
  return plan.size === 0 ? undefined : plan;
}

function apply(value: unknown, plan: Plan, newId: string): unknown {
  const copy: Record<string, unknown> = Array.isArray(value)
    ? (value.slice() as unknown as Record<string, unknown>)
    : { ...(value as Record<string, unknown>) };
  for (const [key, inner] of plan) {
    copy[key] = inner === true ? newId : apply(copy[key], inner, newId);
  }
  return copy;
}

/** The writes of one ask under a new id: created as the service created it, then answered. */
function writesOf(template: Template, askId: string): { create: AskWrite; answer: AskWrite } {
  const { renamed } = template;
  return {
    create: { ask: renamed(template.started, askId), event: renamed(template.startEvent, askId) },
    answer: { ask: renamed(template.answered, askId), event: renamed(template.answerEvent, askId) },
  };
}

async function created(store: AskStore, write: AskWrite): Promise<void> {
  const result = await store.create(write);
  if (!result.created) throw new Error(`create of ${write.ask.askId}: ${JSON.stringify(result)}`);
}

async function updated(store: AskStore, write: AskWrite, expectedVersion: number): Promise<void> {
  const result = await store.update(write, expectedVersion);
  if (!result.ok) throw new Error(`update of ${write.ask.askId}: ${JSON.stringify(result)}`);
}

/** Start, answer, outcome through a service on the store, with a provider that waits. */
async function durableAsk(build: Build, opening: StoreOpening): Promise<Side> {
  const store = await opening.open();
  const service = build.createInteractionService({ store });
  service.registerProvider({ ask: () => new Promise(() => undefined) });
  const run = async () => {
    const handle = service.start(yesNoRequest, { timeoutMs: 60_000 });
    await service.answer(handle.id, yesAnswer);
    const outcome = await handle.outcome;
    if (outcome.status !== 'answered') throw new Error(`ask ${handle.id}: ${outcome.status}`);
    return outcome;
  };
  await run();
  return {
    run,
    close: async () => {
      await service.close();
      await store.close();
    },
  };
}

/** A new ask created, answered (a version-checked update) and read back. */
async function createUpdateGet(build: Build, opening: StoreOpening): Promise<Side> {
  const template = await templateOf(build);
  const store = await opening.open();
  let n = 0;
  const run = async () => {
    const askId = `ab-${n++}`;
    const writes = writesOf(template, askId);
    await created(store, writes.create);
    await updated(store, writes.answer, 1);
    const ask = await store.get(askId);
    if (ask?.version !== 2) throw new Error(`get of ${askId}: ${JSON.stringify(ask)}`);
    return ask;
  };
  await run();
  return { run, close: () => store.close() };
}

/** `LISTED_ASKS` asks, one in five pending and the rest answered, written before the timing. */
async function filled(build: Build, opening: StoreOpening): Promise<AskStore> {
  const template = await templateOf(build);
  const filling = opening.fill?.() ?? (await opening.open());
  for (let i = 0; i < LISTED_ASKS; i++) {
    const writes = writesOf(template, `ab-listed-${i}`);
    await created(filling, writes.create);
    if (i % 5 !== 0) await updated(filling, writes.answer, 1);
  }
  if (opening.fill === undefined) return filling;
  await filling.close();
  return opening.open();
}

/** The first page of the pending asks, newest first. */
async function listPage(build: Build, opening: StoreOpening): Promise<Side> {
  const store = await filled(build, opening);
  const run = async () => {
    const page = await store.list({ state: 'pending' }, { limit: PAGE });
    if (page.items.length !== PAGE || page.items.some((ask) => ask.state !== 'pending')) {
      throw new Error(`list: ${page.items.length} items, states ${page.items.map((a) => a.state)}`);
    }
    return page;
  };
  await run();
  return { run, close: () => store.close() };
}

/** The audit events of one answered ask among `LISTED_ASKS`. */
async function history(build: Build, opening: StoreOpening): Promise<Side> {
  const store = await filled(build, opening);
  const askId = 'ab-listed-1'; // answered: one in five (0, 5, ...) is left pending
  const run = async () => {
    const types: string[] = [];
    for await (const event of store.history(askId)) types.push(event.type);
    if (types.join() !== 'start,answer') throw new Error(`history of ${askId}: ${types}`);
    return types;
  };
  await run();
  return { run, close: () => store.close() };
}

/** An ask created with one message due, the message claimed, then marked done. */
async function outbox(build: Build, opening: StoreOpening): Promise<Side> {
  const template = await templateOf(build);
  const store = await opening.open();
  let n = 0;
  const run = async () => {
    const askId = `ab-outbox-${n++}`;
    const deliveryId = `${askId}-message`;
    const { create } = writesOf(template, askId);
    const due = template.started.createdAt;
    await created(store, {
      ...create,
      outbox: [{ deliveryId, askId, channel: CHANNEL, due, payload: { n } }],
    });
    const claimed = await store.claimOutbox(Date.now(), 1, 60_000, [CHANNEL]);
    if (claimed.length !== 1 || claimed[0]?.deliveryId !== deliveryId) {
      throw new Error(`claimOutbox: ${JSON.stringify(claimed)} instead of ${deliveryId}`);
    }
    if (!(await store.completeOutbox(deliveryId, Date.now()))) {
      throw new Error(`completeOutbox of ${deliveryId} found no leased entry`);
    }
    return claimed;
  };
  await run();
  return { run, close: () => store.close() };
}
