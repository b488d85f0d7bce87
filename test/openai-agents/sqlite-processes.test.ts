/**
 * An OpenAI Agents run across processes on one SQLite file: the first process stops for two
 * approvals and exits, a person answers both on the web page (served here, on the same file),
 * and of two processes already waiting, one continues the run from the state kept in the store
 * (it claimed the round) and the other is told so: the approved call runs once.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createInteractionService } from 'ask-engine';
import { buildAskUserForm, encodeAskUserFormAnswer } from 'ask-engine/data';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { createAnswerApp } from 'ask-engine/web';
import { afterEach, describe, expect, it } from 'vitest';
import { bundleProgram } from '../support/program-bundle.js';
import { decide } from './janitor.js';

const exec = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = await bundleProgram('test/openai-agents/fixtures/run-process.ts');

async function processRun(...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await exec(process.execPath, [fixture, ...args], { cwd: root });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Record<string, unknown>;
}

/**
 * The resuming process: resolves `waiting` once it is waiting for the asks (a moment after its
 * first line), and `result` with its last line once it exits.
 */
function resumeProcess(...args: string[]) {
  const child = spawn(process.execPath, [fixture, ...args], { cwd: root });
  let stdout = '';
  let stderr = '';
  let heard: () => void;
  const waiting = new Promise<void>((resolve) => {
    heard = resolve;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    // Its waits begin right after its first line: give them a moment to be in place.
    if (stdout.includes('\n')) setTimeout(heard, 500);
  });
  const result = new Promise<Record<string, unknown>>((resolve, reject) => {
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`resume exited ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Record<string, unknown>);
    });
  });
  return { waiting, result };
}

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('an OpenAI Agents run on SQLite, across processes and the web page', () => {
  it('stops for approvals in one process and continues in one of two others once both are answered on the page', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ask-engine-openai-agents-'));
    const db = join(dir, 'asks.db');
    const secret = randomBytes(32).toString('hex');

    const first = await processRun('interrupt', db, secret);
    const round = first.round as { status: string; askIds: string[] };
    expect(round.status).toBe('waiting');
    expect(round.askIds).toHaveLength(2);
    expect(first.removed).toEqual([]);
    const links = first.links as string[];
    expect(links).toHaveLength(2);

    // Two processes start before anyone answers (two workers woken for one job): each waits
    // for both asks.
    const resumers = round.askIds.map((askId) => resumeProcess('resume', db, secret, askId));
    await Promise.all(resumers.map((each) => each.waiting));

    // The person, on the web page, served by a host on the same file.
    const store = createSqliteAskStore({ path: db });
    const service = createInteractionService({ store, retention: false });
    const app = createAnswerApp({ service, secret, baseUrl: 'http://answers.test' });
    try {
      for (const link of links) {
        const page = await app.request(link);
        expect(page.status).toBe(200);
        const html = await page.text();
        expect(html).toContain('remove_file');
        const askId = new URL(link).pathname.split('/').at(-1) as string;
        const ask = await service.get(askId);
        const questions = ask?.questions ?? [];
        const keep = JSON.stringify(questions).includes('/tmp/keep');
        const reply = encodeAskUserFormAnswer(
          buildAskUserForm(questions),
          decide({ questions }, !keep, keep ? 'Still in use.' : undefined),
        );
        const body = new URLSearchParams([['token', new URL(link).searchParams.get('t') ?? '']]);
        for (const [name, value] of Object.entries(reply.values)) {
          for (const each of Array.isArray(value) ? value : [value]) body.append(name, each);
        }
        const posted = await app.request(link.split('?')[0] as string, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: body.toString(),
        });
        expect(posted.status).toBe(200);
      }
    } finally {
      app.close();
      await service.close();
      await store.close();
    }

    const results = await Promise.all(resumers.map((each) => each.result));
    const resumed = results.find((each) => each.finalOutput !== undefined);
    const other = results.find((each) => each !== resumed);
    if (resumed === undefined || other === undefined) {
      throw new Error(`expected one process to continue the run, got ${JSON.stringify(results)}`);
    }
    // The other was told who holds the round (or, if it came later, who finished it), and ran
    // nothing.
    const claimed = other.claimed as { status: string; holder: string };
    expect(['held', 'done']).toContain(claimed.status);
    expect(claimed.holder).toBe(resumed.holder);
    expect(other.removed).toEqual([]);
    expect(resumed.finalOutput).toBe('done');
    expect(resumed.removed).toEqual(['/tmp/a']);
    expect(
      (resumed.decisions as { applied: string; message?: string }[]).map(
        (decision) => decision.applied,
      ),
    ).toEqual(['approve', 'reject']);
    expect(JSON.stringify(resumed.decisions)).toContain('Still in use.');
    // Nobody was asked again: both processes attached to the settled asks.
    expect(resumed.links).toEqual([]);
    expect(other.links).toEqual([]);
  }, 90_000);
});
