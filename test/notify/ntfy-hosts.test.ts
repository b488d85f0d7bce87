/**
 * ntfy buttons across two hosts on one SQLite file: the ask is started and published on host A,
 * the reminder is a new message with its buttons, and taps land on A and B at once; the store's
 * compare-and-set lets one of them answer, and A's caller hears the answer from B.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInteractionService } from 'ask-engine';
import { createNotifyProvider, createNtfyChannel, type NtfyMessage } from 'ask-engine/notify';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { createWebAnswerServer } from 'ask-engine/web';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpRecorder } from './http-recorder.js';

const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startHost(path: string) {
  const service = createInteractionService({ store: createSqliteAskStore({ path }) });
  cleanups.push(() => service.close());
  const server = await createWebAnswerServer({ service, secret: 'h'.repeat(32) });
  cleanups.push(() => server.close());
  return { service, server };
}

describe('ntfy buttons on two hosts', () => {
  it('settle the ask once when taps reach both hosts, and remind with buttons before that', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ntfy-hosts-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'asks.db');
    const a = await startHost(path);
    const b = await startHost(path);
    const ntfy = await startHttpRecorder();
    cleanups.push(() => ntfy.close());
    const provider = createNotifyProvider({
      server: a.server,
      channels: [createNtfyChannel({ server: ntfy.url, answers: a.server })],
      route: () => [{ id: 'alice', channel: 'ntfy', address: 'alice-approvals_1' }],
      reminders: { afterMs: 200 },
      delivery: { pollMs: 20 },
    });
    cleanups.push(() => provider.close());
    a.service.registerProvider(provider);

    const handle = a.service.start({
      questions: [{ question: 'Rotate the API keys?', options: ['Rotate', 'Later'] }],
    });
    await handle.outcome;
    await ntfy.arrived(2);
    const [first, reminder] = ntfy.received.map(
      (request) => JSON.parse(request.body.toString('utf8')) as NtfyMessage,
    );
    expect(first?.tags).toEqual(['question']);
    expect(reminder?.tags).toEqual(['bell']);
    expect(reminder?.title).toMatch(/^Reminder 1: /);
    expect(reminder?.actions?.map((action) => action.label)).toEqual(['Rotate', 'Later']);

    const final = a.service.outcome(handle.id, { signal: AbortSignal.timeout(10_000) });
    // The reminder's button, tapped on both hosts at once.
    const onA = reminder!.actions![0]!.url;
    const onB = onA.replace(a.server.url, b.server.url);
    expect(onB).not.toBe(onA);
    const taps = await Promise.all(
      [onA, onB, onA, onB, onA, onB].map((url) => fetch(url, { method: 'POST' })),
    );
    const said = await Promise.all(taps.map((tap) => tap.text()));
    expect(taps.map((tap) => tap.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(
      said.filter((text) => text.startsWith('Recorded: alice answered “Rotate”')),
    ).toHaveLength(1);
    expect(await final).toMatchObject({
      status: 'answered',
      answers: [{ response: { selections: ['Rotate'] } }],
      answeredBy: { recipient: 'alice', channel: 'ntfy' },
    });
    const late = [];
    for await (const event of b.service.history(handle.id)) {
      if (event.type === 'late-answer') late.push(event);
    }
    expect(late).toHaveLength(5);
  });
});
