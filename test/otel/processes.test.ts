/**
 * Traces across two processes on one SQLite file: the ask is started in one, its outcome
 * written by the other. The trace context kept with the ask puts both processes' spans in one
 * trace, and the asking process ends its span when it learns the outcome from the store.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleProgram } from '../support/program-bundle.js';
import type { spanJson } from './sdk.js';

const run = promisify(execFile);
type SpanJson = ReturnType<typeof spanJson>;
interface Report {
  outcome: string;
  spans: SpanJson[];
}

describe('an ask started in one process and settled in another', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ask-engine-otel-'));
  let worker: { file: string };

  beforeAll(async () => {
    worker = { file: await bundleProgram('test/fixtures/otel-worker.ts') };
  }, 60_000);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts process A; resolves with the ask id once stored, and with A's report at its exit. */
  function asking(path: string, mode: 'pending' | 'defer') {
    const child = spawn(process.execPath, [worker.file, path, 'ask', mode], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines = createInterface({ input: child.stdout });
    const reports: unknown[] = [];
    let stored: (askId: string) => void;
    const askId = new Promise<string>((resolve) => {
      stored = resolve;
    });
    lines.on('line', (line) => {
      const message = JSON.parse(line) as { askId?: string };
      if (message.askId !== undefined) stored(message.askId);
      else reports.push(message);
    });
    const report = new Promise<Report>((resolve, reject) => {
      child.on('exit', (code) =>
        code === 0 ? resolve(reports[0] as Report) : reject(new Error(`A exited ${code}`)),
      );
    });
    return { askId, report };
  }

  async function settling(path: string, role: 'answer' | 'resume', arg: string): Promise<Report> {
    const { stdout } = await run(process.execPath, [worker.file, path, role, arg]);
    return JSON.parse(stdout.trim().split('\n').at(-1) as string) as Report;
  }

  const named = (report: Report, name: string) => {
    const found = report.spans.filter((span) => span.name === name);
    expect(found).toHaveLength(1);
    return found[0] as SpanJson;
  };

  it('answered by B while A waits: A’s span ends at the outcome, B’s answer is in its trace', async () => {
    const path = join(dir, 'pending.db');
    const a = asking(path, 'pending');
    const askId = await a.askId;
    const b = await settling(path, 'answer', askId);
    const reportA = await a.report;
    expect(reportA.outcome).toBe('answered');
    expect(b.outcome).toBe('answered');

    const ask = named(reportA, 'ask-engine.ask');
    const turn = named(reportA, 'agent turn');
    expect(ask.parentSpanId).toBe(turn.spanId);
    expect(ask.events.map((event) => event.name)).toEqual(['start', 'store.changed']);
    expect(ask.events[1]?.attributes).toMatchObject({
      'ask_engine.state.from': 'pending',
      'ask_engine.state': 'answered',
      'ask_engine.outcome.status': 'answered',
    });
    expect(ask.attributes).toMatchObject({ 'ask_engine.outcome.status': 'answered' });

    const answer = named(b, 'ask-engine.answer');
    const request = named(b, 'http request');
    expect(answer).toMatchObject({
      traceId: ask.traceId,
      parentSpanId: ask.spanId,
      links: [request.spanId],
      attributes: { 'ask_engine.ask.id': askId, 'ask_engine.outcome.status': 'answered' },
    });
    expect(request.traceId).not.toBe(ask.traceId);
  }, 60_000);

  it('deferred in A, resumed in B after A exited: B’s span is in the ask’s trace', async () => {
    const path = join(dir, 'deferred.db');
    const a = asking(path, 'defer');
    await a.askId;
    const reportA = await a.report;
    expect(reportA.outcome).toBe('deferred');
    const b = await settling(path, 'resume', 'thread-1');
    expect(b.outcome).toBe('answered');

    const ask = named(reportA, 'ask-engine.ask');
    expect(ask.events.map((event) => event.name)).toEqual(['start', 'provider.deferred']);
    const resume = named(b, 'ask-engine.resume');
    expect(resume).toMatchObject({
      traceId: ask.traceId,
      parentSpanId: ask.spanId,
      links: [named(b, 'http request').spanId],
      attributes: { 'ask_engine.state.from': 'deferred', 'ask_engine.state': 'answered' },
    });
  }, 60_000);
});
