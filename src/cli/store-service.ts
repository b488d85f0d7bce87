/** What the operator commands share: a service on the existing store `--store` names. */
import { createInteractionService } from '../engine/service.js';
import type { InteractionService } from '../engine/service-contract.js';
import { isUserInteractionError } from '../rules/errors.js';
import type { AskStore } from '../stores/ask-store.js';
import { openCliStore } from './cli-store.js';
import { EXIT } from './exit-codes.js';
import { sentence, toStderrText } from './stderr-text.js';
import { UsageError } from './usage-error.js';

/** The `--store` value, or a usage error naming the command and what to give. */
export function requireStore(command: string, storePath: string | undefined): string {
  if (storePath === undefined) {
    throw new UsageError(
      `${command} needs --store PATH (a SQLite file) or --store postgres://… (a PostgreSQL store).`,
    );
  }
  return storePath;
}

/**
 * Opens the store (never creating it), runs `work` with a service on it (and the store, for
 * what a service does not hand out: the row `shownOfAsk` reads) and closes both. A
 * request the engine refuses (an unknown ask, one already settled, invalid answers, a bad
 * filter) is one line on stderr with its code, exit code 2.
 *
 * @example
 * return withStoreService('show', values.store, async (service) => { ... return EXIT.answered; });
 */
export async function withStoreService(
  command: string,
  storePath: string | undefined,
  work: (service: InteractionService, store: AskStore) => Promise<number>,
): Promise<number> {
  const store = await openCliStore(requireStore(command, storePath), 'existing');
  // Never sweeps nor purges: an operator's command reads and answers, nothing else.
  const service = createInteractionService({
    store: store.store,
    sweepIntervalMs: Number.POSITIVE_INFINITY,
  });
  try {
    return await work(service, store.store);
  } catch (error) {
    if (!isUserInteractionError(error)) throw error;
    process.stderr.write(
      toStderrText(`ask-engine ${command}: ${error.code}: ${sentence(error.message)}\n`),
    );
    return EXIT.invalidInput;
  } finally {
    await service.close();
    await store.close();
  }
}
