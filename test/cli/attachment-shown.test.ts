/**
 * An ask's attachment on the operator's commands: `show --json` names its kind, version and
 * size, never its data (an agent run's saved state, with the conversation in it), and neither
 * `show` nor `export` prints the data.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'ask-engine-attachment-cli-'));
const store = join(dir, 'asks.db');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = 'the conversation of the run: my password is hunter2';

it('shows an attachment as its kind, version and size, never its data', async () => {
  const { createInteractionService } = await import('ask-engine');
  const { createSqliteAskStore } = await import('ask-engine/sqlite');
  const asks = createSqliteAskStore({ path: store });
  const service = createInteractionService({ store: asks, retention: false });
  service.registerProvider({
    ask: async (_request, ctx) => ({ status: 'deferred', interactionId: `link-${ctx.askId}` }),
  });
  const data = JSON.stringify({ state: SECRET, note: 'ü' });
  const handle = service.start(
    { questions: [{ question: 'Run it?', options: ['Yes', 'No'] }] },
    { attachment: { kind: 'test.run-state', version: '1.0', data } },
  );
  await handle.stored;
  await service.close();
  await asks.close();

  const json = await runCli(['show', handle.id, '--store', store, '--json']);
  expect(json.code).toBe(0);
  expect(json.stdout).not.toContain('hunter2');
  expect(JSON.parse(json.stdout).ask.attachment).toEqual({
    kind: 'test.run-state',
    version: '1.0',
    bytes: Buffer.byteLength(data),
  });
  for (const args of [['show', handle.id], ['export']]) {
    const result = await runCli([...args, '--store', store]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('hunter2');
  }
}, 60_000);
