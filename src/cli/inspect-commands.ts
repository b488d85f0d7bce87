/**
 * `ask-engine list`, `show` and `export`: an operator reads a store (SQLite file or
 * PostgreSQL URL) without a program: what waits, what happened to one ask, everything since a
 * time as JSON Lines. Model text is shown escaped (C1 and bidi controls as `\uXXXX`).
 */
import { shownOfAsk } from '../engine/ask-info.js';
import { ASK_STATES, type AskAuditEvent, type AskState } from '../engine/audit.js';
import type { AskInfo, InteractionService } from '../engine/service-contract.js';
import { escapeControlCharacters } from '../rules/escape-text.js';
import type { AskListFilter, AskStore } from '../stores/ask-store.js';
import { looksLikeDuration, parseDuration } from './duration.js';
import { EXIT } from './exit-codes.js';
import { parseFlags } from './parse-flags.js';
import { toTerminalSafeJson } from './stderr-text.js';
import { withStoreService } from './store-service.js';
import { UsageError } from './usage-error.js';

const STORE =
  '--store PATH|URL   the SQLite file, or postgres://… URL, the asks live in (never created)';

export const LIST_HELP = `Usage: ask-engine list --store PATH|URL [options]

Lists the asks of the store, newest first: id, state, when it was created, its first question.

Options:
  ${STORE}
  --state S[,S…]     only these states (${ASK_STATES.join(', ')})
  --session ID       only asks of this session id
  --agent NAME       only asks of this agent
  --key KEY          only the ask with this idempotency key
  --answered-by ID   only asks answered by this recipient (the outcome's answeredBy)
  --notified ID      only asks a notification reached this recipient about
  --limit N          at most N asks (1 to 1000, default 50); the next page's cursor goes to stderr
  --cursor C         the page after the one that printed this cursor
  --json             one JSON object { items, cursor? } instead of the table; the answers of
                     an ask whose service redacts read "[redacted]"
  -h, --help         this help

Examples:
  ask-engine list --store asks.db --state pending,deferred
  ask-engine list --store postgres://ask@db/app --agent deployer --json
`;

export const SHOW_HELP = `Usage: ask-engine show ASK_ID --store PATH|URL [--json]

Prints one ask: its state, questions and outcome, then its history (every audit event, oldest
first). The answers of an ask whose service redacts read "[redacted]", in its outcome as in its
history and the web's live asks view.

Options:
  ${STORE}
  --json             one JSON object { ask, history }
  -h, --help         this help
`;

export const EXPORT_HELP = `Usage: ask-engine export --store PATH|URL [--since TIME]

Writes every ask of the store (newest first) with its history as JSON Lines on stdout: one
{ "ask": …, "history": […] } per line, for an auditor or another system. The answers of an ask
whose service redacts read "[redacted]".

Options:
  ${STORE}
  --since TIME       only asks written since TIME: an ISO date (2026-12-01T00:00:00Z), or a
                     duration back from now (30s, 2m, 24h; at most 876000h, 100 years)
  -h, --help         this help
`;

/** @example process.exitCode = await runListCommand(['--store', 'asks.db', '--state', 'pending']); */
export async function runListCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags('list', argv, {
    store: { type: 'string' },
    state: { type: 'string' },
    session: { type: 'string' },
    agent: { type: 'string' },
    key: { type: 'string' },
    'answered-by': { type: 'string' },
    notified: { type: 'string' },
    limit: { type: 'string' },
    cursor: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return help(LIST_HELP);
  noArguments('list', positionals);
  const filter: AskListFilter = {
    ...(values.state === undefined ? {} : { state: parseStates(values.state) }),
    ...(values.session === undefined ? {} : { sessionId: values.session }),
    ...(values.agent === undefined ? {} : { agent: values.agent }),
    ...(values.key === undefined ? {} : { key: values.key }),
    ...(values['answered-by'] === undefined ? {} : { answeredBy: values['answered-by'] }),
    ...(values.notified === undefined ? {} : { notified: values.notified }),
  };
  const limit = values.limit === undefined ? undefined : parseLimit(values.limit);
  return withStoreService('list', values.store, async (service, store) => {
    const page = await service.list(filter, {
      ...(limit === undefined ? {} : { limit }),
      ...(values.cursor === undefined ? {} : { cursor: values.cursor }),
    });
    if (values.json) {
      const items = await shownAsks(store, page.items);
      const shown = page.cursor === undefined ? { items } : { items, cursor: page.cursor };
      process.stdout.write(`${toTerminalSafeJson(shown)}\n`);
    } else {
      for (const ask of page.items) process.stdout.write(`${listLine(ask)}\n`);
      if (page.cursor !== undefined) {
        process.stderr.write(`More: ask-engine list … --cursor ${page.cursor}\n`);
      }
    }
    return EXIT.answered;
  });
}

/** @example process.exitCode = await runShowCommand(['ask-1', '--store', 'asks.db']); */
export async function runShowCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags('show', argv, {
    store: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return help(SHOW_HELP);
  const askId = oneAskId('show', positionals);
  return withStoreService('show', values.store, async (service, store) => {
    const info = await service.get(askId);
    if (info === undefined) {
      throw new UsageError(`show: no ask ${JSON.stringify(askId)} in this store.`);
    }
    const ask = shownOfAsk(info, await store.get(askId));
    const history = await historyOf(service, askId);
    if (values.json) {
      process.stdout.write(`${toTerminalSafeJson({ ask, history })}\n`);
      return EXIT.answered;
    }
    const lines = [
      `ask ${ask.askId}  ${ask.state}  version ${ask.version}`,
      `created ${iso(ask.createdAt)}  updated ${iso(ask.updatedAt)}`,
      ...ask.questions.map(
        (question) =>
          `${question.id}: ${question.question}${question.options.length === 0 ? '' : ` [${question.options.map((option) => option.title).join(' | ')}]`}`,
      ),
      ...(ask.outcome === undefined ? [] : [`outcome ${JSON.stringify(ask.outcome)}`]),
      'history:',
      ...history.map(
        (event) => `  ${iso(event.at)}  ${event.type}  ${event.from ?? 'new'} -> ${event.to}`,
      ),
    ];
    process.stdout.write(`${lines.map((line) => escapeControlCharacters(line)).join('\n')}\n`);
    return EXIT.answered;
  });
}

/** @example process.exitCode = await runExportCommand(['--store', 'asks.db', '--since', '24h']); */
export async function runExportCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags('export', argv, {
    store: { type: 'string' },
    since: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return help(EXPORT_HELP);
  noArguments('export', positionals);
  const filter: AskListFilter =
    values.since === undefined ? {} : { updated: { from: parseSince(values.since) } };
  return withStoreService('export', values.store, async (service, store) => {
    let cursor: string | undefined;
    do {
      const page = await service.list(filter, { limit: 200, ...(cursor ? { cursor } : {}) });
      for (const ask of await shownAsks(store, page.items)) {
        const history = await historyOf(service, ask.askId);
        process.stdout.write(`${toTerminalSafeJson({ ask, history })}\n`);
      }
      cursor = page.cursor;
    } while (cursor !== undefined);
    return EXIT.answered;
  });
}

function help(text: string): number {
  process.stdout.write(text);
  return EXIT.answered;
}

function noArguments(command: string, positionals: string[]): void {
  if (positionals.length > 0) {
    throw new UsageError(`${command} takes no arguments, got ${JSON.stringify(positionals[0])}.`);
  }
}

/** The one ask id `show`, `answer` and `cancel` take. */
export function oneAskId(command: string, positionals: string[]): string {
  const [askId, ...extra] = positionals;
  if (askId === undefined || askId === '' || extra.length > 0) {
    throw new UsageError(`${command} takes one ask id, got ${positionals.length} argument(s).`);
  }
  return askId;
}

function parseStates(text: string): AskState[] {
  return text.split(',').map((state) => {
    if (!(ASK_STATES as readonly string[]).includes(state)) {
      throw new UsageError(
        `--state ${JSON.stringify(state)} is not a state; use ${ASK_STATES.join(', ')}.`,
      );
    }
    return state as AskState;
  });
}

function parseLimit(text: string): number {
  const limit = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(limit)) {
    throw new UsageError(`--limit ${JSON.stringify(text)} is not a whole number of asks.`);
  }
  return limit; // the service refuses 0 or more than 1,000, naming the limit
}

function parseSince(text: string): number {
  if (looksLikeDuration(text)) return Date.now() - parseDuration('--since', text);
  const at = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(at)) {
    throw new UsageError(
      `--since ${JSON.stringify(text)} is neither an ISO date (2026-12-01T00:00:00Z) nor a duration (24h).`,
    );
  }
  return at;
}

/** Listed asks as a reader is shown them: each one's answers redacted where that ask redacts. */
async function shownAsks(store: AskStore, items: readonly AskInfo[]): Promise<AskInfo[]> {
  const shown: AskInfo[] = [];
  for (const item of items) shown.push(shownOfAsk(item, await store.get(item.askId)));
  return shown;
}

async function historyOf(service: InteractionService, askId: string): Promise<AskAuditEvent[]> {
  const events: AskAuditEvent[] = [];
  for await (const event of service.history(askId)) events.push(event);
  return events;
}

function listLine(ask: AskInfo): string {
  const question = ask.questions[0]?.question ?? '';
  const more = ask.questions.length > 1 ? ` (+${ask.questions.length - 1})` : '';
  return escapeControlCharacters(
    `${ask.askId}  ${ask.state.padEnd(9)}  ${iso(ask.createdAt)}  ${question}${more}`,
  );
}

function iso(at: number): string {
  return new Date(at).toISOString();
}
