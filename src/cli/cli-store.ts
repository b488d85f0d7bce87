/**
 * The store behind `--store PATH`: a SQLite file, or a PostgreSQL URL. Every problem opening it
 * is a `StoreProblem` (exit code 5), and a driver that is not installed a `MissingPackage` (exit
 * code 6, like every optional package): one line naming the problem and the fix, never a stack
 * trace, and never a password. Commands that only read or answer open an existing store and
 * never create one, so a mistyped path is reported instead of becoming an empty database.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { AskStore } from '../stores/ask-store.js';
import { withoutCredentials } from './credentials.js';
import { importOptionalPackage, MissingPackage } from './optional-package.js';
import { oneLineMessage } from './stderr-text.js';
import { StoreProblem } from './store-problem.js';

/** `create`: `ask` may make a new store. `existing`: the store must be there already. */
export type StoreAccess = 'create' | 'existing';

export interface CliStore {
  store: AskStore;
  /** How messages name the store: `--store "<path>"`, a URL's password masked. */
  where: string;
  close(): Promise<void>;
}

// The table the SQLite store's first migration creates (src/stores/sqlite/schema.ts): a file
// without it is a SQLite database of something else, which a reading command must not migrate.
const SQLITE_SCHEMA_TABLE = 'ask_schema_version';

/**
 * Opens the store and reads from it once, so a store that cannot be used is reported before
 * anything is asked or served.
 *
 * @example
 * const { store, close } = await openCliStore('asks.db', 'existing');
 */
export async function openCliStore(path: string, access: StoreAccess): Promise<CliStore> {
  try {
    return await openStore(path, access);
  } catch (error) {
    // Every line about the store, ours or a driver's, is masked here, once.
    if (error instanceof StoreProblem) {
      throw new StoreProblem(withoutCredentials(error.message, path));
    }
    if (error instanceof MissingPackage) {
      throw new MissingPackage(withoutCredentials(error.message, path));
    }
    throw error;
  }
}

async function openStore(path: string, access: StoreAccess): Promise<CliStore> {
  const where = `--store ${JSON.stringify(withoutCredentials(path, path))}`;
  if (POSTGRES_URL.test(path)) return openPostgresStore(path, where);
  const file = resolve(path);
  const directory = dirname(file);
  if (!existsSync(directory)) {
    throw new StoreProblem(
      `${where}: the directory ${directory} does not exist; create it (mkdir -p ${directory}) or give another path.`,
    );
  }
  if (existsSync(file) && statSync(file).isDirectory()) {
    throw new StoreProblem(`${where} is a directory; give the path of a store file in it.`);
  }
  if (access === 'existing' && !existsSync(file)) {
    throw new StoreProblem(
      `${where}: no such store; check the path (ask-engine ask --store PATH, or any program with the SQLite store, creates one).`,
    );
  }
  // Not installed: a MissingPackage (exit code 6), as for every optional package.
  const { default: Database } = await importOptionalPackage(
    'better-sqlite3',
    'the SQLite store',
    () => import('better-sqlite3'),
  );
  let db: InstanceType<typeof Database>;
  try {
    db = new Database(file, { fileMustExist: access === 'existing' });
  } catch (error) {
    throw new StoreProblem(
      `${where} cannot be opened: ${oneLineMessage(error)}; check its permissions.`,
    );
  }
  try {
    const schema = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
      .get(SQLITE_SCHEMA_TABLE);
    if (schema === undefined && access === 'existing') {
      throw new StoreProblem(
        `${where} is a SQLite database but not an ask-engine store; give the path of the store the asking program uses.`,
      );
    }
  } catch (error) {
    db.close();
    if (error instanceof StoreProblem) throw error;
    throw new StoreProblem(
      isNotADatabase(error)
        ? `${where} is not a SQLite database; give the path of an ask-engine store${access === 'create' ? ', or a new file name to create one' : ''}.`
        : `${where} cannot be read: ${oneLineMessage(error)}.`,
    );
  }
  const { createSqliteAskStore } = await import('../stores/sqlite/store.js');
  const store = createSqliteAskStore({ database: db });
  const close = async () => {
    await store.close();
    db.close();
  };
  await probe(store, where, close);
  return { store, where, close };
}

/** A `postgres://` or `postgresql://` URL names a PostgreSQL store; anything else a SQLite file. */
const POSTGRES_URL = /^postgres(?:ql)?:\/\//;

async function openPostgresStore(url: string, where: string): Promise<CliStore> {
  const { createPostgresAskStore } = await importOptionalPackage(
    'postgres',
    'the PostgreSQL store',
    () => import('../stores/postgres/store.js'),
  );
  let store: AskStore;
  try {
    store = createPostgresAskStore({ connectionString: url });
  } catch (error) {
    throw new StoreProblem(`${where} is not a usable PostgreSQL URL: ${oneLineMessage(error)}.`);
  }
  const close = () => store.close();
  await probe(store, where, close);
  return { store, where, close };
}

/** One read, so a store that cannot be used fails here, with a line saying so. */
async function probe(store: AskStore, where: string, close: () => Promise<void>): Promise<void> {
  try {
    await store.get('');
  } catch (error) {
    await close().catch(() => undefined);
    throw new StoreProblem(`${where} cannot be used: ${oneLineMessage(error)}`);
  }
}

function isNotADatabase(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT';
}
