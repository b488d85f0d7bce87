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
import { Annotation, Command, END, START, StateGraph } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { type AskOutcome, createInteractionService, createScriptedProvider } from 'ask-engine';
import { askOrInterrupt } from 'ask-engine/langgraph';
import { afterEach, describe, expect, it } from 'vitest';
import { bundleProgram } from '../support/program-bundle.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = await bundleProgram('test/adapters/fixtures/langgraph-process.ts');

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
  const args = [fixture, phase, dir];
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

describe('LangGraph with redact: true and the SQLite checkpointer', () => {
  it('refuses resume answers that do not fit without quoting them in the interrupt, so the checkpointer never keeps them', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ask-engine-langgraph-'));
    const service = createInteractionService({ redact: true });
    service.registerProvider(createScriptedProvider([{ defer: 'chat-thread-2' }]));
    const checkpointer = SqliteSaver.fromConnString(join(dir, 'checkpoints.db'));
    const graph = new StateGraph(
      Annotation.Root({
        outcome: Annotation<AskOutcome | undefined>({ reducer: (_, b) => b }),
      }),
    )
      .addNode('choose', async () => ({
        outcome: await askOrInterrupt(service, {
          questions: [
            { question: 'Which database?', options: ['PostgreSQL', 'SQLite'] },
            { question: 'Name the branch' },
          ],
        }),
      }))
      .addEdge(START, 'choose')
      .addEdge('choose', END)
      .compile({ checkpointer });
    const config = { configurable: { thread_id: 'redacted-thread' } };
    await graph.invoke({}, config);
    const secret = 'hunter2-the-launch-code';
    const typed = [
      { questionId: 'q1', response: { kind: 'selection', selections: [secret] } },
      { questionId: 'q2', response: { kind: 'freeform', text: secret } },
    ];
    const refused = await graph.invoke(new Command({ resume: typed }), config);
    const pause = (refused as { __interrupt__?: { value: { error?: string } }[] })
      .__interrupt__?.[0]?.value;
    expect(pause?.error).toMatch(/q1|Which database/);
    expect(pause?.error).not.toContain(secret);
    // What the checkpointer keeps of the paused thread: its interrupts.
    const state = await graph.getState(config);
    const kept = JSON.stringify(state.tasks.map((task) => task.interrupts));
    expect(kept).toContain('error');
    expect(kept).not.toContain(secret);
    // Read straight from the checkpointer's file: only the caller's own resume value (LangGraph's
    // `__resume__` write) holds the text; the interrupt and the checkpoints do not.
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(join(dir, 'checkpoints.db'), { readonly: true });
    try {
      const writes = db.prepare('SELECT channel, value FROM writes').all() as {
        channel: string;
        value: Buffer | string;
      }[];
      const interrupts = writes.filter((write) => write.channel === '__interrupt__');
      expect(interrupts.map((write) => String(write.value)).join('')).toContain('"error"');
      for (const write of writes.filter((write) => write.channel !== '__resume__')) {
        expect(String(write.value)).not.toContain(secret);
      }
      const checkpoints = db.prepare('SELECT checkpoint, metadata FROM checkpoints').all() as {
        checkpoint: Buffer | string;
        metadata: Buffer | string;
      }[];
      expect(checkpoints.length).toBeGreaterThan(0);
      for (const row of checkpoints) {
        expect(String(row.checkpoint) + String(row.metadata)).not.toContain(secret);
      }
    } finally {
      db.close();
    }
    await service.close();
  }, 60_000);
});
