/**
 * A randomized race between several services sharing one store: N services x M asks, with
 * provider answers and deferrals, answers and resumes from other services, restores (take
 * overs), cancels, deadlines, drains and a service closing mid-run, in a seeded random order.
 * Afterwards every ask must have exactly one outcome: one `start`, one transition into a final
 * state in its history, the store's outcome matching it, and no caller told anything else.
 * Used by the race tests of each store (memory here; SQLite and PostgreSQL in their own files).
 */
import { expect } from 'vitest';
import {
  type AskAuditEvent,
  type AskHandle,
  type AskOutcome,
  type AskStore,
  createInteractionService,
  isUserInteractionError,
} from '../../src/index.js';
import { CountingClock, manualProvider, tick, yesNo } from './helpers.js';

export interface StoreRaceOptions {
  services: number;
  asks: number;
  seed: number;
}

const FINAL = new Set(['answered', 'cancelled', 'timedOut', 'aborted']);
const answers = (title: string) => [
  { questionId: 'q1', response: { kind: 'selection' as const, selections: [title] } },
];

export async function raceOnStore(
  createStore: () => AskStore | Promise<AskStore>,
  { services: serviceCount, asks: askCount, seed }: StoreRaceOptions,
): Promise<void> {
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const clock = new CountingClock();
  const stores: AskStore[] = [];
  const services = await Promise.all(
    Array.from({ length: serviceCount }, async () => {
      // Each service gets its own store handle (its own connection for a database).
      const store = await createStore();
      stores.push(store);
      const service = createInteractionService({ store, clock, sweepIntervalMs: 5 });
      const provider = manualProvider();
      service.registerProvider(provider);
      return { service, provider, closed: false };
    }),
  );
  const handles: AskHandle[] = [];
  const outcomes: Promise<AskOutcome | Error>[] = [];
  const unexpected: unknown[] = [];
  // Only these refusals are honest answers to a racing caller.
  const expectRefusal = (error: unknown) => {
    if (
      isUserInteractionError(error, 'ASK_SETTLED') ||
      isUserInteractionError(error, 'INVALID_REQUEST') ||
      isUserInteractionError(error, 'UNKNOWN_INTERACTION') ||
      (error instanceof Error && /closed/.test(error.message))
    ) {
      return;
    }
    unexpected.push(error);
  };
  for (let index = 0; index < askCount; index++) {
    const owner = pick(services.filter((entry) => !entry.closed));
    const handle = owner.service.start(yesNo, { timeoutMs: 1_000 + Math.floor(random() * 4_000) });
    handles.push(handle);
    outcomes.push(handle.outcome.catch((error: Error) => error));
  }
  await tick();
  const open = () => services.filter((entry) => !entry.closed);
  const steps = askCount * 4;
  for (let step = 0; step < steps; step++) {
    const handle = pick(handles);
    const actor = pick(open());
    const roll = random();
    const call = services
      .flatMap((entry) => entry.provider.calls)
      .find((candidate) => candidate.ctx.askId === handle.id && !candidate.ctx.signal.aborted);
    if (roll < 0.2 && call !== undefined) {
      call.resolve({ status: 'answered', answers: answers(pick(['Yes', 'No'])) });
    } else if (roll < 0.3 && call !== undefined) {
      call.resolve({ status: 'deferred', interactionId: `thread-${handle.id}` });
    } else if (roll < 0.45) {
      actor.service.answer(handle.id, answers(pick(['Yes', 'No']))).catch(expectRefusal);
    } else if (roll < 0.55) {
      actor.service.resume(`thread-${handle.id}`, answers('Yes')).catch(expectRefusal);
    } else if (roll < 0.62) {
      const snapshot = services
        .map((entry) => entry.service.getPersistedSnapshot(handle.id))
        .find((value) => value !== undefined);
      if (snapshot !== undefined) actor.service.restore(snapshot).catch(expectRefusal);
    } else if (roll < 0.7) {
      handle.cancel('user');
    } else if (roll < 0.8) {
      clock.increment(Math.floor(random() * 600));
    } else if (roll < 0.83) {
      actor.service.drain(new Error('drained')).catch(expectRefusal);
    } else if (roll < 0.84 && open().length > 1) {
      actor.closed = true;
      await actor.service.close();
    }
    if (random() < 0.3) await tick();
  }
  // Whatever is still open times out.
  clock.increment(100_000);
  const judge = open()[0]!.service;
  await waitUntil(async () => {
    for (const handle of handles) {
      const stored = await judge.get(handle.id);
      if (stored === undefined || !stored.final) return false;
    }
    return true;
  });
  const settled = await Promise.all(outcomes);
  for (const [index, handle] of handles.entries()) {
    const stored = (await judge.get(handle.id))!;
    const history: AskAuditEvent[] = [];
    for await (const event of judge.history(handle.id)) history.push(event);
    expect(
      history.filter((event) => event.type === 'start'),
      handle.id,
    ).toHaveLength(1);
    const finals = history.filter(
      (event) => event.from !== null && !FINAL.has(event.from) && FINAL.has(event.to),
    );
    expect(finals, `${handle.id}: ${JSON.stringify(history)}`).toHaveLength(1);
    expect(stored.state).toBe(finals[0]!.to);
    expect(stored.outcome?.status).toBe(stored.state);
    // A caller was told the outcome, the deferral before it, or that its service closed.
    const told = settled[index]!;
    if (told instanceof Error) expect(told.message).toMatch(/closed/);
    else if (told.status !== 'deferred') expect(told.status).toBe(stored.state);
  }
  expect(unexpected).toEqual([]);
  for (const entry of open()) await entry.service.close();
  for (const store of stores) await store.close();
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('Some asks never reached a final state.');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A small seeded PRNG, so a failing seed replays the same race. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
