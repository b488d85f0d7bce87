/** `ask-engine serve --store asks.db`: the web answer page for the asks in a SQLite store. */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createInteractionService } from '../engine/service.js';
import { createSqliteAskStore } from '../sqlite.js';
import { createWebAnswerServer } from '../web/answer-server.js';
import { MIN_SECRET_BYTES } from '../web/link-token.js';
import { storeAuditEvents } from '../web/store-events.js';
import { EXIT } from './exit-codes.js';
import { UsageError } from './usage-error.js';

export const SERVE_HELP = `Usage: ask-engine serve --store FILE [options]

Serves the web answer page for the asks in a SQLite store, so that asks deferred by any program
sharing the store can be answered from a browser. Prints the address, the live asks view and
one line "link <askId> <url>" for every ask deferred into the store. Stops on ctrl+c or SIGTERM.

Options:
  --store FILE                the SQLite file the asking programs share (created if missing)
  --port N                    default 0: any free port
  --host HOST                 default 127.0.0.1
  --base-url URL              the public address in links (behind a proxy)
  --secret-file FILE          HMAC key of the links, at least 32 bytes; without it a random key
                              is used and links stop working when the process ends
  --operator-token-file FILE  token of the live asks view (/asks); default random, printed
  -h, --help                  this help

Example:
  openssl rand -base64 48 > web.secret
  ask-engine serve --store asks.db --port 8080 --secret-file web.secret
`;

/**
 * Serves until SIGINT or SIGTERM. Prints the server's address, the operator view's address and,
 * for every ask deferred into the store by any process, its answer link (one `link <askId> <url>` line).
 *
 * @example
 * process.exitCode = await runServeCommand(['--store', 'asks.db', '--port', '8080']);
 */
export async function runServeCommand(
  argv: string[],
  stop: AbortSignal = signalOnExit(),
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      store: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'base-url': { type: 'string' },
      'secret-file': { type: 'string' },
      'operator-token-file': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(SERVE_HELP);
    return EXIT.answered;
  }
  if (positionals.length > 0) {
    throw new UsageError(`serve takes no arguments, got ${JSON.stringify(positionals[0])}.`);
  }
  if (values.store === undefined || values.store === '') {
    throw new UsageError('serve needs --store FILE: the SQLite file the asking programs share.');
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(
      `--port must be an integer from 0 to 65535, got ${JSON.stringify(values.port)}.`,
    );
  }
  const secret =
    values['secret-file'] === undefined
      ? randomBytes(32)
      : await readSecret(values['secret-file'], '--secret-file', MIN_SECRET_BYTES);
  const operatorToken =
    values['operator-token-file'] === undefined
      ? randomBytes(18).toString('base64url')
      : (await readSecret(values['operator-token-file'], '--operator-token-file', 16)).toString(
          'utf8',
        );

  const store = createSqliteAskStore({ path: values.store });
  const service = createInteractionService({ store });
  const server = await createWebAnswerServer({
    service,
    secret,
    port,
    ...(values.host === undefined ? {} : { host: values.host }),
    ...(values['base-url'] === undefined ? {} : { baseUrl: values['base-url'] }),
    operatorToken,
    store,
  });
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`serving ${server.url}`);
  out(`live asks ${server.url}/asks?token=${encodeURIComponent(operatorToken)}`);
  if (values['secret-file'] === undefined) {
    out('note: no --secret-file, so links stop working when this process ends');
  }
  // The store's feed, not service.events$: the asks were deferred by other processes.
  const subscription = storeAuditEvents(store).subscribe((event) => {
    if (event.type !== 'provider.deferred') return;
    server.linkFor(event.askId).then(
      (link) => out(`link ${event.askId} ${link}`),
      (error: unknown) => process.stderr.write(`ask-engine serve: ${(error as Error).message}\n`),
    );
  });
  await new Promise<void>((resolve) => {
    if (stop.aborted) resolve();
    stop.addEventListener('abort', () => resolve(), { once: true });
  });
  subscription.unsubscribe();
  await server.close();
  await service.close();
  await store.close();
  return EXIT.answered;
}

async function readSecret(path: string, flag: string, minBytes: number): Promise<Buffer> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new UsageError(
      `${flag} ${JSON.stringify(path)} cannot be read: ${(error as Error).message}.`,
    );
  }
  // A file written by `echo` ends in a newline that is not part of the secret.
  const secret = bytes.subarray(
    0,
    bytes.length - (/\r?\n$/.exec(bytes.toString('latin1'))?.[0].length ?? 0),
  );
  if (secret.length < minBytes) {
    throw new UsageError(
      `${flag} ${JSON.stringify(path)} holds ${secret.length} bytes; it needs at least ${minBytes} (e.g. openssl rand -base64 48 > ${path}).`,
    );
  }
  return secret;
}

function signalOnExit(): AbortSignal {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return controller.signal;
}
