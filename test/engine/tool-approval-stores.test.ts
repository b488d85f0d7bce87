/**
 * An approval with edits survives the store: the question's intent (the call, its input and its
 * schema) is read back through the stored-row checks by another service over its own connection,
 * which checks an edit against that schema and settles the ask; the edited outcome and the audit
 * event's digests read back the same, in memory, SQLite and PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresAskStore } from 'ask-engine/postgres';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AskAuditEvent,
  type AskStore,
  createInteractionService,
  createMemoryAskStore,
  decideToolApproval,
  type ToolApprovalCall,
  toolApprovalRequest,
} from '../../src/index.js';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';
import { manualProvider } from './helpers.js';

const call: ToolApprovalCall = {
  toolName: 'transfer',
  toolCallId: 'call-3',
  approvalId: 'approval-3',
  input: { amount: 120, currency: 'EUR', memo: { note: 'rent', tags: ['home'] } },
  inputSchema: {
    type: 'object',
    properties: {
      amount: { type: 'number', exclusiveMinimum: 0, maximum: 1000 },
      currency: { type: 'string', enum: ['EUR', 'USD'] },
      memo: { $ref: '#/$defs/memo' },
    },
    required: ['amount', 'currency'],
    additionalProperties: false,
    $defs: {
      memo: {
        type: 'object',
        properties: {
          note: { type: 'string' },
          tags: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
};

const dir = mkdtempSync(join(tmpdir(), 'ask-tool-approval-'));
let cluster: PostgresCluster | undefined;
let files = 0;
let schemas = 0;

beforeAll(async () => {
  if (postgresMissing === undefined) cluster = await startPostgresCluster();
});
afterAll(async () => {
  await cluster?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

type Pair = () => [AskStore, AskStore];
const pairs: [string, Pair][] = [
  [
    'memory',
    () => {
      const store = createMemoryAskStore();
      return [store, store];
    },
  ],
  [
    'SQLite',
    () => {
      const path = join(dir, `asks-${++files}.db`);
      return [createSqliteAskStore({ path }), createSqliteAskStore({ path })];
    },
  ],
];
if (postgresMissing === undefined) {
  pairs.push([
    'PostgreSQL',
    () => {
      const schema = `tool_approval_${++schemas}`;
      const open = () =>
        createPostgresAskStore({ connectionString: cluster!.url }, { schema, max: 2 });
      return [open(), open()];
    },
  ]);
}

const approve = (input?: unknown) => [
  {
    questionId: 'q1',
    response: {
      kind: 'selection' as const,
      selections: ['Approve'],
      ...(input === undefined ? {} : { input }),
    },
  },
];

describe.each(pairs)('an approval with edits in the %s store', (_, pair) => {
  it('is checked and settled by another service, and reads back with both digests', async () => {
    const [mine, theirs] = pair();
    const asking = createInteractionService({ store: mine });
    asking.registerProvider(manualProvider());
    const other = createInteractionService({ store: theirs });
    const handle = asking.start(toolApprovalRequest(call), { toolCallId: call.toolCallId });
    await handle.stored;
    // The other service reads the schema back from the store and refuses what it refuses.
    await expect(
      other.answer(handle.id, approve({ amount: 5000, currency: 'EUR' })),
    ).rejects.toThrow(/at \/amount, above 1000/);
    await expect(
      other.answer(handle.id, approve({ amount: 5, currency: 'EUR', memo: { note: 7 } })),
    ).rejects.toThrow(/at \/memo\/note, expected string/);
    const edited = { amount: 80, currency: 'EUR', memo: { note: 'rent', tags: ['home'] } };
    const by = { recipient: 'ana@example.com', channel: 'web' };
    const outcome = await other.answer(handle.id, approve(edited), { by });
    expect(outcome).toMatchObject({ status: 'answered', edited: { fields: ['amount'] } });
    expect(await handle.outcome).toEqual(outcome);
    expect((await other.get(handle.id))?.outcome).toEqual(outcome);
    expect(decideToolApproval(call, outcome)).toMatchObject({
      approved: true,
      input: edited,
      answeredBy: by,
    });
    const events: AskAuditEvent[] = [];
    for await (const event of other.history(handle.id)) events.push(event);
    const answered = events.find((event) => event.type === 'answer');
    expect(answered?.data).toMatchObject({
      edited: outcome.status === 'answered' && outcome.edited,
    });
    await other.close();
    await asking.close();
  });
});
