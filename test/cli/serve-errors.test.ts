/**
 * `ask-engine serve` where it cannot listen, or told a bad public address: one line naming the
 * flag, the value and the fix, exit code 2, and never a stack trace.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'ask-engine-serve-errors-'));
const store = join(dir, 'asks.db');
let taken: Server;
let takenPort: number;

beforeAll(async () => {
  const deferred = await runCli(['ask', '{"question":"Deploy?"}', '--store', store, '--defer']);
  expect(deferred.code).toBe(4);
  taken = createServer();
  await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
  takenPort = (taken.address() as { port: number }).port;
}, 60_000);

afterAll(async () => {
  await new Promise((done) => taken.close(done));
  rmSync(dir, { recursive: true, force: true });
});

/** Runs serve, which must fail at once with exit code 2 and one line on stderr; returns it. */
async function refused(...flags: string[]): Promise<string> {
  const result = await runCli(['serve', '--store', store, ...flags]);
  expect(result.stdout).toBe('');
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.stderr.split('\n').filter((line) => line !== '')).toHaveLength(1);
  expect(result.code).toBe(2);
  return result.stderr;
}

describe('ask-engine serve, where it cannot serve', () => {
  it('names a port in use, and how to pick a free one', async () => {
    expect(await refused('--port', String(takenPort))).toBe(
      `ask-engine: serve: --port ${takenPort} is in use on 127.0.0.1 (by another server); stop it, or give another port (--port 0 picks a free one). See ask-engine serve --help.\n`,
    );
  });

  it('names a --host that is no address of this machine', async () => {
    expect(await refused('--host', '192.0.2.1')).toMatch(
      /^ask-engine: serve: --host "192\.0\.2\.1" is not an address of this machine; give one of its own \(127\.0\.0\.1, the default, or 0\.0\.0\.0 for every interface\)\. /,
    );
  });

  it('names a --host that cannot be resolved', async () => {
    expect(await refused('--host', 'no-such-host.invalid')).toMatch(
      /^ask-engine: serve: --host "no-such-host\.invalid" cannot be resolved to an address \(E[A-Z_]+\); give an address or host name of this machine/,
    );
  });

  it('names a --base-url that is no http(s) address, its password masked', async () => {
    expect(await refused('--base-url', 'ftp://files.example.com')).toMatch(
      /^ask-engine: serve: --base-url "ftp:\/\/files\.example\.com" is not an http\(s\) URL without credentials, query or fragment; give the address people open, e\.g\. https:\/\/asks\.example\.com\/answers\. /,
    );
    const withPassword = await refused('--base-url', 'https://ana:s3cret@asks.example.com');
    expect(withPassword).toContain('--base-url "https://ana:***@asks.example.com"');
    expect(withPassword).not.toContain('s3cret');
  });

  it('names a --port given a value that reads as an option', async () => {
    expect(await refused('--port', '-1')).toContain(
      'serve: --port got "-1", which reads as an option; to give a value that starts with a dash, write --port=-1.',
    );
  });

  it('names a --port that is no port number', async () => {
    for (const port of ['', '-1', '65536', '80.5', '1e3']) {
      expect(await refused(`--port=${port}`)).toContain(
        `--port must be a whole number from 0 to 65535 (0 picks a free port), got ${JSON.stringify(port)}`,
      );
    }
  });
});
