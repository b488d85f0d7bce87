/**
 * A service process on SQLite killed with SIGKILL at random moments, 20 times: after every
 * kill each ask it started is in the file with a consistent history and at most one outcome,
 * and a service started afterwards times out the asks the dead processes left open.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AskAuditEvent, type AskStore, createInteractionService } from 'ask-engine';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleProgram } from '../support/program-bundle.js';

const KILLS = 20;
const FINAL = new Set<string | null>(['answered', 'cancelled', 'timedOut', 'aborted']);

describe('a service process on SQLite killed with SIGKILL 20 times', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ask-engine-crash-'));
  const path = join(dir, 'asks.db');
  let worker: string;
  const started = new Set<string>();
  const problems: string[] = [];
  let openAfterKills: string[] = [];

  beforeAll(async () => {
    worker = await bundleProgram('test/fixtures/sqlite-crash-worker.ts');
    const store = createSqliteAskStore({ path });
    try {
      // Two workers at a time, so a kill also lands while the other process holds the lock.
      for (let run = 0; run < KILLS; run += 2) {
        const lanes = await Promise.all(
          [run, run + 1].map((each) => runAndKill(worker, path, each, Math.random() * 150)),
        );
        for (const id of lanes.flat()) started.add(id);
        const found = await check(store, path, started);
        problems.push(...found.map((problem) => `after kills ${run}, ${run + 1}: ${problem}`));
      }
      openAfterKills = openAsks(path);
    } finally {
      await store.close();
    }
  }, 120_000);

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds every started ask after each kill, with a consistent history and one outcome', () => {
    expect(started.size).toBeGreaterThan(KILLS);
    expect(problems).toEqual([]);
  });

  it('times out what the dead processes left open once a later service runs', async () => {
    expect(openAfterKills.length).toBeGreaterThan(0);
    const store = createSqliteAskStore({ path });
    // An hour later: every deadline has passed; the service's sweeper claims them.
    const later = {
      now: () => Date.now() + 3_600_000,
      setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
      clearTimeout: (handle: unknown) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    };
    const service = createInteractionService({ store, clock: later, sweepIntervalMs: 10 });
    try {
      const until = Date.now() + 10_000;
      while (openAsks(path).length > 0 && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(openAsks(path)).toEqual([]);
      for (const askId of openAfterKills) {
        const ask = await service.get(askId);
        expect(ask?.state, askId).toBe('timedOut');
        const history: AskAuditEvent[] = [];
        for await (const event of service.history(askId)) history.push(event);
        expect(
          history.filter((event) => event.type === 'deadline'),
          askId,
        ).toHaveLength(1);
      }
      expect(await check(store, path, started)).toEqual([]);
    } finally {
      await service.close();
      await store.close();
    }
  });
});

/** Runs one worker until `afterMs` past its start-up, kills it, returns the asks it started. */
async function runAndKill(file: string, path: string, run: number, afterMs: number) {
  const child = spawn(process.execPath, [file, path, String(run)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ids: string[] = [];
  let buffer = '';
  let ready: () => void;
  const isReady = new Promise<void>((resolve) => {
    ready = resolve;
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (line === 'ready') ready();
      else if (line.startsWith('started ')) ids.push(line.slice('started '.length));
    }
  });
  const exited = exitOf(child);
  await Promise.race([isReady, exited]);
  await new Promise((resolve) => setTimeout(resolve, afterMs));
  child.kill('SIGKILL');
  const signal = await exited;
  if (signal !== 'SIGKILL') throw new Error(`worker ${run} ended by itself (${signal})`);
  return ids;
}

function exitOf(child: ChildProcess): Promise<NodeJS.Signals | number | null> {
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
}

/** Ask ids that are not final, read straight from the file. */
function openAsks(path: string): string[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('SELECT id FROM asks WHERE final = 0').pluck().all() as string[];
  } finally {
    db.close();
  }
}

/** Everything that is wrong with the file, as sentences (empty when all is well). */
async function check(store: AskStore, path: string, started: Set<string>): Promise<string[]> {
  const problems: string[] = [];
  const db = new Database(path, { readonly: true });
  const all = db.prepare('SELECT id FROM asks').pluck().all() as string[];
  db.close();
  const inFile = new Set(all);
  for (const askId of started) if (!inFile.has(askId)) problems.push(`${askId} is missing`);
  for (const askId of all) {
    const row = await store.get(askId);
    if (row === undefined) continue;
    const history: AskAuditEvent[] = [];
    for await (const event of store.history(askId)) history.push(event);
    const transitions = history.filter(
      (event) => event.type !== 'late-answer' && event.type !== 'answer.refused',
    );
    const finals = transitions.filter((event) => FINAL.has(event.to) && !FINAL.has(event.from));
    const say = (what: string) => problems.push(`${askId} (${row.state}): ${what}`);
    if (history[0]?.type !== 'start') say('history does not begin with start');
    if (history.filter((event) => event.type === 'start').length !== 1) say('not one start');
    if (transitions.length !== row.version)
      say(`version ${row.version}, ${transitions.length} transitions`);
    if (finals.length > 1) say(`${finals.length} final transitions`);
    if (row.final) {
      if (finals[0]?.to !== row.state) say('final state without its final transition');
      if (transitions.at(-1) !== finals[0]) say('a transition after the final one');
      if (row.outcome?.status !== row.state) say(`outcome ${row.outcome?.status}`);
    } else if (finals.length > 0) {
      say('open, yet its history has a final transition');
    }
  }
  return problems;
}
