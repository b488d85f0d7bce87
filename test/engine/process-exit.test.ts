/**
 * The service's deadline timer keeps a process alive only while an ask waits on a deadline: a
 * program whose ask was answered exits at once, however far its deadline was; one whose ask is
 * pending lives until the ask times out.
 */
import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleProgram } from '../support/program-bundle.js';

let program: string;
beforeAll(async () => {
  program = await bundleProgram('test/fixtures/exit-after-ask.ts');
}, 120_000);

function run(mode: string): { status: number | null; stdout: string; killed: boolean } {
  const child = spawnSync(process.execPath, [program, mode], { encoding: 'utf8', timeout: 30_000 });
  // The spawn timeout kills a process kept alive: it then ends by a signal, not an exit code.
  return { status: child.status, stdout: child.stdout.trim(), killed: child.signal !== null };
}

describe('the deadline timer and the process', () => {
  it('lets a program exit once its ask is answered, long before the deadline', () => {
    const result = run('answered');
    expect(result.stdout).toBe('answered');
    expect(result.status).toBe(0);
    // The deadline was 60 s away; the 30 s spawn timeout would have killed a process kept alive.
    expect(result.killed).toBe(false);
  });

  it('keeps a program alive while its ask waits for its deadline', () => {
    const result = run('pending');
    expect(result.stdout).toBe('timedOut');
    expect(result.status).toBe(0);
  });

  it('keeps it alive again for a later ask once the timer was idle', () => {
    const result = run('answered-then-pending');
    expect(result.stdout).toBe('answered\ntimedOut');
    expect(result.status).toBe(0);
  });
});
