/**
 * A LangGraph thread taken over by a fresh process: the SQLite checkpointer keeps the graph, the
 * SQLite ask store keeps the asks, and the node that runs again never asks the person again.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = 'test/adapters/fixtures/langgraph-process.ts';

interface ProcessReport {
  result: {
    outcome?: unknown;
    __interrupt__?: { value: { askId: string; questions: { question: string }[] } }[];
    error?: string;
  };
  nodeRuns: number;
  providerCalls: number;
}

async function processRun(phase: string, dir: string, answers?: unknown): Promise<ProcessReport> {
  const args = ['--conditions=ask-engine:source', '--import', 'tsx', fixture, phase, dir];
  if (answers !== undefined) args.push(JSON.stringify(answers));
  const { stdout } = await run(process.execPath, args, { cwd: root });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as ProcessReport;
}

const sqlite = [{ questionId: 'q1', response: { kind: 'selection', selections: ['SQLite'] } }];

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('LangGraph on SQLite, across processes', () => {
  it('resumes an interrupted thread in a fresh process with the answers; the person was asked once', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ask-engine-langgraph-'));
    const first = await processRun('interrupt', dir);
    expect(first.providerCalls).toBe(1);
    const pause = first.result.__interrupt__?.[0]?.value;
    expect(pause?.questions.map((question) => question.question)).toEqual(['Which database?']);

    const second = await processRun('resume', dir, sqlite);
    expect(second.nodeRuns).toBe(1);
    expect(second.providerCalls).toBe(0);
    expect(second.result.outcome).toEqual({ status: 'answered', answers: sqlite });
  }, 90_000);

  it('runs a failed node again in a fresh process and attaches to the answered ask instead of asking again', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ask-engine-langgraph-'));
    const first = await processRun('crash', dir);
    expect(first.providerCalls).toBe(1);
    expect(first.result.error).toContain('the process fell over after the answer');

    const second = await processRun('rerun', dir);
    expect(second.nodeRuns).toBe(1);
    expect(second.providerCalls).toBe(0);
    expect(second.result.outcome).toEqual({ status: 'answered', answers: sqlite });
  }, 90_000);
});
