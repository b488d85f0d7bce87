/**
 * Every field of a stored ask is checked where the row enters the engine: a stored quorum ask
 * (quorum, responses, a refused response, progress, owner) is corrupted one field at a time, at
 * every depth, and each corruption is refused with an error that names the field's path, inside
 * unions (outcomes, responses) too. The list of fields is read from the row itself, so
 * a field added to the machine's context or the row is corrupted here without an edit.
 */
import { describe, expect, it } from 'vitest';
import { checkStoredAsk } from '../../src/engine/stored-ask-check.js';
import { createInteractionService, createMemoryAskStore } from '../../src/index.js';
import { manualProvider } from './helpers.js';

const deploy = { question: 'Deploy 4.2 to production?', options: ['Approve', 'Reject', 'Deny'] };
const pick = (title: string) => [
  { questionId: 'q1', response: { kind: 'selection' as const, selections: [title] } },
];
const by = (recipient: string) => ({ by: { recipient, channel: 'web' } });

async function storedQuorumAsk(settle: boolean) {
  const store = createMemoryAskStore();
  const service = createInteractionService({ store, redact: true });
  service.registerProvider(manualProvider());
  const handle = service.start(deploy, {
    quorum: { required: 2, from: ['ana', 'ben', 'cy'], veto: ['Deny'] },
    timeoutMs: 60_000,
    toolCallId: 'call-1',
    sessionId: 'session-1',
    key: 'deploy-4.2',
  });
  await handle.stored;
  await service.respond(handle.id, pick('Approve'), by('ana'));
  await service.respond(handle.id, pick('Approve'), by('ana')).catch(() => undefined);
  if (settle) await service.respond(handle.id, pick('Approve'), by('ben'));
  const row = await store.get(handle.id);
  await service.close();
  return JSON.parse(JSON.stringify(row)) as Record<string, unknown>;
}

/** Every path in `value` with the value found there, objects and arrays included. */
function paths(value: unknown, at: string[] = []): { at: string[]; value: unknown }[] {
  const found = at.length === 0 ? [] : [{ at, value }];
  if (typeof value !== 'object' || value === null) return found;
  for (const [key, child] of Object.entries(value)) found.push(...paths(child, [...at, key]));
  return found;
}

/** A value of the wrong kind for whatever is there now. */
function wrongFor(value: unknown): unknown {
  if (Array.isArray(value)) return 'not an array';
  if (typeof value === 'object' && value !== null) return ['not an object'];
  if (typeof value === 'string') return 42;
  return 'not a number or flag';
}

function corrupted(row: Record<string, unknown>, at: string[], value: unknown) {
  const copy = structuredClone(row);
  let parent = copy as Record<string, unknown>;
  for (const key of at.slice(0, -1)) parent = parent[key] as Record<string, unknown>;
  parent[at.at(-1) as string] = value;
  return copy;
}

describe('a stored quorum ask is refused when any field is corrupt', () => {
  for (const settle of [false, true]) {
    it(`names the field, for every field of a ${settle ? 'settled' : 'pending'} quorum ask`, async () => {
      const row = await storedQuorumAsk(settle);
      expect(() => checkStoredAsk(row, 'the test row')).not.toThrow();
      const context = (row.snapshot as { context: Record<string, unknown> }).context;
      for (const field of ['quorum', 'responses', 'refused', 'progress', 'redact', 'toolCallId']) {
        if (field === 'refused' && settle) continue;
        expect(Object.keys(context), field).toContain(field);
      }
      const all = paths(row);
      expect(all.length).toBeGreaterThan(40);
      for (const { at, value } of all) {
        const pointer = `/${at.join('/')}`;
        let message = '';
        try {
          checkStoredAsk(corrupted(row, at, wrongFor(value)), 'the test row');
        } catch (error) {
          message = (error as Error).message;
        }
        expect(message, `${pointer} was accepted`).toContain('Refused the test row');
        expect(message, `${pointer}: ${message}`).toContain(`: ${pointer} `);
      }
    });
  }

  it('refuses the shapes a review found passing: responses not an array, a quorum of words', async () => {
    const row = await storedQuorumAsk(false);
    const context = ['snapshot', 'context'];
    expect(() =>
      checkStoredAsk(corrupted(row, [...context, 'responses'], 'not an array'), 'the row'),
    ).toThrow(/\/snapshot\/context\/responses/);
    expect(() =>
      checkStoredAsk(corrupted(row, [...context, 'quorum', 'required'], 'two'), 'the row'),
    ).toThrow(/\/snapshot\/context\/quorum\/required/);
  });
});
