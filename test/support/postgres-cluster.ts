/** A throwaway PostgreSQL cluster for one test file, started from Debian's server binaries. */
import { spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = process.env.ASK_ENGINE_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

/**
 * Why PostgreSQL tests cannot run here, or undefined when they can. In CI a missing server is
 * an error (thrown at import), never a silent skip; locally the tests are skipped with this
 * reason in their name.
 */
export const postgresMissing: string | undefined = findMissing();

function findMissing(): string | undefined {
  const missing = ['initdb', 'pg_ctl', 'postgres'].filter((name) => !existsSync(join(BIN, name)));
  if (missing.length === 0) return undefined;
  const reason = `PostgreSQL server binaries ${missing.join(', ')} not found in ${BIN} (install Debian's postgresql package or set ASK_ENGINE_POSTGRES_BIN)`;
  if (process.env.CI) throw new Error(`${reason}; CI must run the PostgreSQL tests.`);
  console.warn(`Skipping the PostgreSQL tests: ${reason}.`);
  return reason;
}

export interface PostgresCluster {
  /** A connection string for the `postgres` superuser over TCP on 127.0.0.1. */
  readonly url: string;
  readonly port: number;
  /** Stops the server (fast shutdown: connections are cut) and keeps the data. */
  stop(): Promise<void>;
  /** Starts the server again on the same port after `stop()`. */
  restart(): Promise<void>;
  /** Stops the server and deletes the cluster. */
  destroy(): Promise<void>;
  /** The server log, for a failing test's message. */
  log(): string;
}

/**
 * `initdb` into a temp folder (as the `postgres` OS user when we run as root, since the server
 * refuses to run as root), then `pg_ctl start` on a free port; about 2 s.
 */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  if (postgresMissing !== undefined) throw new Error(postgresMissing);
  const dir = mkdtempSync(join(tmpdir(), 'ask-engine-pg-'));
  const data = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  const asRoot = process.getuid?.() === 0;
  const run = (command: string, args: string[]) =>
    asRoot
      ? exec('runuser', ['-u', 'postgres', '--', join(BIN, command), ...args])
      : exec(join(BIN, command), args);
  const port = await freePort();
  const start = () =>
    run('pg_ctl', [
      '-D',
      data,
      '-w',
      '-l',
      logFile,
      '-o',
      `-k ${dir} -p ${port} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
      'start',
    ]);
  const stop = () => run('pg_ctl', ['-D', data, '-w', '-m', 'fast', 'stop']);
  try {
    if (asRoot) {
      const [uid, gid] = await Promise.all([idOf('-u'), idOf('-g')]);
      chownSync(dir, uid, gid);
    }
    await run('initdb', ['-D', data, '-A', 'trust', '--no-sync', '-U', 'postgres', '-E', 'UTF8']);
    await start();
  } catch (error) {
    // Leave nothing behind: no half-started server, no temp folder; keep the log in the error.
    const log = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
    await run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `Could not start a PostgreSQL test cluster: ${(error as Error).message}\n${log}`,
      {
        cause: error,
      },
    );
  }
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      await stop();
      running = false;
    },
    async restart() {
      await start();
      running = true;
    },
    async destroy() {
      try {
        if (running) await run('pg_ctl', ['-D', data, '-w', '-m', 'immediate', 'stop']);
      } finally {
        running = false;
        rmSync(dir, { recursive: true, force: true });
      }
    },
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
  };
}

/** Runs a command to its end; stdio is ignored, since a server inheriting a pipe would keep us waiting. */
function exec(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? `exit ${code}`})`));
    });
  });
}

function idOf(flag: '-u' | '-g'): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('id', [flag, 'postgres'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) => {
      const id = Number.parseInt(out, 10);
      if (code === 0 && Number.isInteger(id)) resolve(id);
      else
        reject(new Error('There is no `postgres` OS user to run the server as (we run as root).'));
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('No free port')),
      );
    });
  });
}
