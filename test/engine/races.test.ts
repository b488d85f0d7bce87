/** Answer, timeout, abort and drain race in every order: exactly one outcome, nothing left running. */
import { describe, expect, it } from 'vitest';
import {
  type AskAuditEvent,
  createInteractionService,
  createMemoryAskStore,
} from '../../src/index.js';
import { CountingClock, manualProvider, tick, yesNo } from './helpers.js';

type Contender = 'answer' | 'timeout' | 'abort' | 'drain';
const contenders: Contender[] = ['answer', 'timeout', 'abort', 'drain'];
const statusOf: Record<Contender, string> = {
  answer: 'answered',
  timeout: 'timedOut',
  abort: 'aborted',
  drain: 'aborted',
};

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, index) =>
    permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [
      item,
      ...rest,
    ]),
  );
}

async function race(order: Contender[], settleBetween: boolean, fromElsewhere = false) {
  const clock = new CountingClock();
  const provider = manualProvider();
  const store = createMemoryAskStore();
  const service = createInteractionService({ clock, store });
  // The person answers on another service sharing the store (a web page, another worker).
  const other = createInteractionService({ clock, store });
  const trail: AskAuditEvent[] = [];
  service.events$.subscribe((event) => trail.push(event));
  other.events$.subscribe((event) => trail.push(event));
  service.registerProvider(provider);
  const controller = new AbortController();
  const handle = service.start(yesNo, { timeoutMs: 1_000, signal: controller.signal });
  await tick();
  const call = provider.calls[0]!;
  const drains: Promise<unknown>[] = [];
  const yes = [{ questionId: 'q1', response: { kind: 'selection' as const, selections: ['Yes'] } }];
  for (const contender of order) {
    if (contender === 'answer') {
      if (fromElsewhere) drains.push(other.answer(handle.id, yes).catch((error) => error));
      else call.resolve({ status: 'answered', answers: yes });
    } else if (contender === 'timeout') clock.increment(1_000);
    else if (contender === 'abort') controller.abort(new Error('abort'));
    else drains.push(service.drain(new Error('drain')));
    if (settleBetween) await tick();
  }
  await Promise.all(drains);
  const outcome = await handle.outcome;
  await tick();
  return { outcome, trail, signal: call.ctx.signal, clock };
}

describe('races between answer, timeout, abort and drain', () => {
  for (const order of permutations(contenders)) {
    it(`settles once, first come first served: ${order.join(' > ')}`, async () => {
      const { outcome, trail, signal, clock } = await race(order, true);
      expect(outcome.status).toBe(statusOf[order[0]!]);
      if (order[0] === 'drain') expect(outcome).toMatchObject({ message: 'drain' });
      if (order[0] === 'abort') expect(outcome).toMatchObject({ message: 'abort' });
      const terminal = trail.filter((event) => event.from === 'pending' && event.to !== 'pending');
      expect(terminal).toHaveLength(1);
      expect(signal.aborted).toBe(true);
      expect(clock.armed.size).toBe(0);
      // An answer that lost the race is recorded, never applied.
      const answerIndex = order.indexOf('answer');
      if (answerIndex > 0) expect(trail.at(-1)).toMatchObject({ type: 'late-answer' });
    });

    it(`settles once when all arrive in the same tick: ${order.join(' > ')}`, async () => {
      const { outcome, trail, signal, clock } = await race(order, false);
      // Timeout, abort and drain act synchronously; the answer needs the provider's promise
      // to settle, so it can only win when nothing else came.
      const first = order.find((contender) => contender !== 'answer')!;
      expect(outcome.status).toBe(statusOf[first]);
      expect(
        trail.filter((event) => event.from === 'pending' && event.to !== 'pending'),
      ).toHaveLength(1);
      expect(signal.aborted).toBe(true);
      expect(clock.armed.size).toBe(0);
    });

    it(`settles once when the answer comes from another service: ${order.join(' > ')}`, async () => {
      const { outcome, trail, signal, clock } = await race(order, true, true);
      expect(outcome.status).toBe(statusOf[order[0]!]);
      expect(
        trail.filter((event) => event.from === 'pending' && event.to !== 'pending'),
      ).toHaveLength(1);
      expect(signal.aborted).toBe(true);
      expect(clock.armed.size).toBe(0);
    });
  }
});
