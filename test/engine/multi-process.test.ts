/**
 * Four processes, four interaction services, one SQLite file, 1,000 asks: every ask is
 * answered, resumed, timed out by a sweeper or drained exactly once, and every losing call is
 * told `ASK_SETTLED` and audited.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  type AskAuditEvent,
  type AskProvider,
  createInteractionService,
  type StoredAsk,
} from 'ask-engine';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleProgram } from '../support/program-bundle.js';

const run = promisify(execFile);
const SEEDED = 1_000;
const WORKERS = ['w1', 'w2', 'w3', 'w4'];
const FINAL = new Set<string | null>(['answered', 'cancelled', 'timedOut', 'aborted']);

interface CallResult {
  target: string;
  status?: string;
  code?: string;
  message?: string;
}
interface WorkerReport {
  name: string;
  ownIds: string[];
  results: CallResult[];
}
interface Ask {
  row: StoredAsk;
  history: AskAuditEvent[];
  /** The calls the workers made for it, with who made them. */
  calls: (CallResult & { worker: string })[];
}

/** The event that moved the ask into its final state. */
const finalTransition = (history: AskAuditEvent[]) =>
  history.filter((event) => FINAL.has(event.to) && !FINAL.has(event.from));

describe('four processes racing over 1,000 asks in one SQLite file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ask-engine-multi-process-'));
  const path = join(dir, 'asks.db');
  let worker: string;
  /** Every ask in the file, read after the workers exited. */
  const asks = new Map<string, Ask>();
  const withDeadline = new Set<string>();
  /** Asks no worker answers: only a sweeper in some process can end them. */
  const sweeperOnly = new Set<string>();

  beforeAll(async () => {
    worker = await bundleProgram('test/fixtures/sqlite-service-race-worker.ts');

    // Seed: even asks are deferred to `thread-<n>`; odd ones stay pending with a provider that
    // then goes away (the seeding service closes): orphans that any service may answer. Every
    // third ask has a deadline that falls while the workers run, so sweepers race the answers;
    // the workers leave every 21st ask to the sweepers alone.
    const store = createSqliteAskStore({ path }, { synchronous: 'normal' });
    const seeder = createInteractionService({ store, sweepIntervalMs: Number.POSITIVE_INFINITY });
    const provider: AskProvider = {
      ask: (request, ctx) => {
        const n = Number(/seed (\d+)/.exec(request.questions[0]!.question)?.[1]);
        if (n % 2 === 0) {
          return Promise.resolve({ status: 'deferred', interactionId: `thread-${n}` });
        }
        return new Promise((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }),
        );
      },
    };
    seeder.registerProvider(provider);
    const targets = new Map<string, string>();
    const firstDeadline = Date.now() + 3_000;
    let lastDeadline = 0;
    const handles = [];
    for (let n = 0; n < SEEDED; n++) {
      const deadlineAt = n % 3 === 0 ? firstDeadline + ((n * 7_919) % 2_500) : undefined;
      // At least a second: the shortest timeout an ask takes.
      const timeoutMs =
        deadlineAt === undefined ? undefined : Math.max(1_000, deadlineAt - Date.now());
      if (timeoutMs !== undefined) lastDeadline = Math.max(lastDeadline, Date.now() + timeoutMs);
      const handle = seeder.start(
        { question: `Who answers seed ${n}?`, options: WORKERS },
        { key: `seed-${n}`, ...(timeoutMs === undefined ? {} : { timeoutMs }) },
      );
      handles.push(handle);
      targets.set(handle.id, n % 2 === 0 ? `thread-${n}` : `seed-${n}`);
      if (deadlineAt !== undefined) withDeadline.add(handle.id);
      if (n % 21 === 0) sweeperOnly.add(handle.id);
    }
    await Promise.all(handles.filter((_, n) => n % 2 === 0).map((handle) => handle.outcome));
    await seeder.close();

    const outputs = await Promise.all(
      WORKERS.map((name) =>
        run(
          process.execPath,
          [worker, path, name, String(SEEDED), WORKERS.join(','), String(lastDeadline + 500)],
          {
            maxBuffer: 64 * 1024 * 1024,
          },
        ),
      ),
    );
    const reports = outputs.map(({ stdout }) => JSON.parse(stdout) as WorkerReport);
    for (const report of reports) {
      for (const [i, askId] of report.ownIds.entries()) targets.set(askId, `${report.name}-${i}`);
    }
    const calls = new Map<string, Ask['calls']>();
    for (const report of reports) {
      for (const result of report.results) {
        calls.set(result.target, [
          ...(calls.get(result.target) ?? []),
          { ...result, worker: report.name },
        ]);
      }
    }
    for (const [askId, target] of targets) {
      const row = await store.get(askId);
      const history: AskAuditEvent[] = [];
      for await (const event of store.history(askId)) history.push(event);
      if (row !== undefined) asks.set(askId, { row, history, calls: calls.get(target) ?? [] });
    }
    await store.close();
  }, 120_000);

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('ends every ask, seeded or started by a worker', () => {
    expect(asks.size).toBe(SEEDED + WORKERS.length * 25);
    const open = [...asks.values()].filter(({ row }) => !row.final);
    expect(open.map(({ row }) => `${row.askId} ${row.state}`)).toEqual([]);
  });

  it('gives each ask one start and one final transition; its version counts its transitions', () => {
    for (const { row, history } of asks.values()) {
      const transitions = history.filter(
        (event) => event.type !== 'late-answer' && event.type !== 'answer.refused',
      );
      expect(
        history.filter((event) => event.type === 'start'),
        row.askId,
      ).toHaveLength(1);
      const finals = finalTransition(history);
      expect(
        finals.map((event) => event.to),
        row.askId,
      ).toEqual([row.state]);
      expect(transitions.at(-1), row.askId).toBe(finals[0]);
      expect(transitions, row.askId).toHaveLength(row.version);
      expect(row.outcome?.status, row.askId).toBe(row.state);
    }
  });

  it('lets at most one call win each ask, the winner’s answer being the outcome', () => {
    for (const { row, calls } of asks.values()) {
      const winners = calls.filter((call) => call.status !== undefined);
      if (row.state === 'answered') {
        expect(
          winners.map((winner) => winner.status),
          row.askId,
        ).toEqual(['answered']);
        const response =
          row.outcome?.status === 'answered' ? row.outcome.answers[0]?.response : undefined;
        expect(response, row.askId).toEqual({
          kind: 'selection',
          selections: [winners[0]?.worker],
        });
      } else {
        expect(winners, row.askId).toEqual([]);
      }
    }
  });

  it('tells every losing call ASK_SETTLED and audits it as a late answer', () => {
    for (const { row, history, calls } of asks.values()) {
      const losers = calls.filter((call) => call.status === undefined);
      const unexpected = losers.filter(
        (call) =>
          call.code !== 'ASK_SETTLED' &&
          // Timed out while still pending (before its deferral was written): no thread to resume.
          !(call.code === 'UNKNOWN_INTERACTION' && row.interactionId === undefined) &&
          // Another worker's ask that was not in the store yet when looked up by key.
          call.code !== 'MISSING',
      );
      expect(unexpected, row.askId).toEqual([]);
      const settled = losers.filter((call) => call.code === 'ASK_SETTLED');
      expect(
        history.filter((event) => event.type === 'late-answer'),
        row.askId,
      ).toHaveLength(settled.length);
    }
  });

  it('raced for real: answers, resumes, sweepers and drains each ended some asks', () => {
    const endings = new Map<string, number>();
    for (const { row, history } of asks.values()) {
      const ending = `${row.state} by ${finalTransition(history)[0]?.type}`;
      endings.set(ending, (endings.get(ending) ?? 0) + 1);
      if (row.state === 'timedOut') expect(withDeadline.has(row.askId), row.askId).toBe(true);
      if (sweeperOnly.has(row.askId)) expect(ending, row.askId).toBe('timedOut by deadline');
    }
    expect([...endings.keys()].sort()).toEqual(
      [
        'aborted by abort',
        'answered by answer',
        'answered by resume',
        'timedOut by deadline',
      ].sort(),
    );
  });
});
