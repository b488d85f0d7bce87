/**
 * What the operator view shows of stored asks (redacted answers as written, damaged rows
 * marked), and its live stream's backpressure: in memory, through `app.request`.
 */
import { randomBytes } from 'node:crypto';
import {
  type Clock,
  createInteractionService,
  createMemoryAskStore,
  createScriptedProvider,
} from 'ask-engine';
import { createAnswerApp } from 'ask-engine/web';
import { describe, expect, it } from 'vitest';
import { OPERATOR_TOKEN, startAnswerApp, tokenOf } from './web-fixture.js';

/** Reads a server-sent event stream as text, a chunk at a time. */
function streamText(response: Response) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  return {
    get text() {
      return text;
    },
    /** Reads until `done(text)` holds or the stream ends; true when it ended. */
    async readUntil(done: (text: string) => boolean): Promise<boolean> {
      while (!done(text)) {
        const chunk = await reader.read();
        if (chunk.done) return true;
        text += chunk.value;
      }
      return false;
    },
    cancel: () => reader.cancel(),
  };
}

describe('the operator view', () => {
  it('needs the operator token, compared whole, on every page and the stream', async () => {
    const web = startAnswerApp();
    try {
      for (const path of ['/asks', '/asks/events', '/asks/some-ask']) {
        expect((await web.request(path)).status).toBe(403);
        expect((await web.request(`${path}?token=${OPERATOR_TOKEN}x`)).status).toBe(403);
        expect((await web.request(`${path}?token=${OPERATOR_TOKEN.slice(0, -1)}`)).status).toBe(
          403,
        );
        expect(
          (await web.request(`${path}?token=${OPERATOR_TOKEN}`, { method: 'POST' })).status,
        ).toBe(405);
      }
      expect((await web.request(`/asks?token=${OPERATOR_TOKEN}`)).status).toBe(200);
    } finally {
      await web.close();
    }
    const without = startAnswerApp({ operatorView: false });
    try {
      expect((await without.request(`/asks?token=${OPERATOR_TOKEN}`)).status).toBe(404);
    } finally {
      await without.close();
    }
  });
});

describe('the operator view with a redacting service', () => {
  it('never shows what the person typed or picked, in the list, the history or the live stream', async () => {
    const web = startAnswerApp({ service: { redact: true } });
    try {
      const stream = streamText(await web.request(`/asks/events?token=${OPERATOR_TOKEN}`));
      const { handle, link } = await web.ask({
        question: 'The passphrase?',
        options: ['Keep-the-old-one'],
        allowFreeform: true,
        allowComment: true,
      });
      const token = tokenOf(link);
      // Refused first (a comment on a typed answer), then answered, then a late second answer.
      const refused = await web.post(link, [
        ['token', token],
        ['action', 'submit'],
        ['q1.mode', 'text'],
        ['q1.text', 'typed-secret-one'],
        ['q1.comment', 'typed-secret-two'],
      ]);
      expect(refused.status).toBe(422);
      const answered = await web.post(link, [
        ['token', token],
        ['action', 'submit'],
        ['q1.mode', 'text'],
        ['q1.text', 'typed-secret-three'],
      ]);
      expect(answered.status).toBe(200);
      expect(await handle.outcome).toMatchObject({ status: 'answered' });
      const late = await web.post(link, [
        ['token', token],
        ['action', 'submit'],
        ['q1.mode', 'options'],
        ['q1.selection', 'option1'],
      ]);
      expect(late.status).toBe(409);

      await stream.readUntil((text) => text.includes('"to":"answered"'));
      const streamed = stream.text;
      await stream.cancel();
      const list = await (await web.request(`/asks?token=${OPERATOR_TOKEN}`)).text();
      const page = await web.request(
        `/asks/${encodeURIComponent(handle.id)}?token=${OPERATOR_TOKEN}`,
      );
      expect(page.status).toBe(200);
      const history = await page.text();
      expect(history).toContain('answer</td>');
      expect(history).toContain('[redacted]');
      for (const shown of [list, history, streamed]) {
        expect(shown).not.toMatch(/typed-secret|Keep-the-old-one/);
      }
    } finally {
      await web.close();
    }
  });
});

describe('a stored time that is no date', () => {
  it('is marked in its row; the list and every other ask still render', async () => {
    // Times past what a Date holds (8.64e15 ms), as a damaged or hand-edited row would have.
    let broken = false;
    const clock: Clock = {
      now: () => (broken ? 8.7e15 : Date.now()),
      setTimeout: (fn, ms) => setTimeout(fn, ms),
      clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    };
    const service = createInteractionService({ store: createMemoryAskStore(), clock });
    service.registerProvider(createScriptedProvider([{ defer: 'later-1' }, { defer: 'later-2' }]));
    const app = createAnswerApp({
      service,
      secret: randomBytes(32),
      baseUrl: 'https://asks.example.test',
      operatorToken: OPERATOR_TOKEN,
    });
    try {
      broken = true;
      const damaged = service.start({ question: 'Damaged?', options: ['Yes', 'No'] });
      await damaged.outcome;
      broken = false;
      const healthy = service.start({ question: 'Healthy?', options: ['Yes', 'No'] });
      await healthy.outcome;

      const list = await app.request(`/asks?token=${OPERATOR_TOKEN}`);
      expect(list.status).toBe(200);
      const listed = await list.text();
      expect(listed).toContain(`data-ask="${damaged.id}"`);
      expect(listed).toContain(`data-ask="${healthy.id}"`);
      expect(listed).toContain('<td class="bad-time">not a valid time (8700000000000000)</td>');
      // Every page and mail writes a time one way; the exact instant stays in the element.
      expect(listed).toMatch(
        /<td><time datetime="\d{4}-\d\d-\d\dT[\d:.]+Z" title="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time><\/td>/,
      );

      const history = await app.request(`/asks/${damaged.id}?token=${OPERATOR_TOKEN}`);
      expect(history.status).toBe(200);
      expect(await history.text()).toContain('<td class="bad-time">not a valid time');
    } finally {
      app.close();
      await service.close();
    }
  });
});

describe('the live stream', () => {
  it('keeps up with a reader that reads, and ends the stream of one that stalls past 1 MiB', async () => {
    const web = startAnswerApp();
    try {
      const reading = streamText(await web.request(`/asks/events?token=${OPERATOR_TOKEN}`));
      const stalled = streamText(await web.request(`/asks/events?token=${OPERATOR_TOKEN}`));
      // Each answer event carries four texts of 32 KiB: ten of them are 1.3 MB of events.
      const long = 'x'.repeat(32 * 1024);
      const question = (n: number) => ({ question: `Part ${n}?`, header: `Part ${n}` });
      for (let i = 0; i < 10; i++) {
        const { handle } = await web.ask({ questions: [1, 2, 3, 4].map(question) });
        await web.service.answer(
          handle.id,
          ['q1', 'q2', 'q3', 'q4'].map((questionId) => ({
            questionId,
            response: { kind: 'freeform', text: long },
          })),
        );
        const answered = (text: string) => text.split('"to":"answered"').length - 1 === i + 1;
        expect(await reading.readUntil(answered)).toBe(false);
      }
      // The stalled reader gets what was queued for it, then `lagged`, then the end.
      expect(await stalled.readUntil(() => false)).toBe(true);
      expect(stalled.text.endsWith('event: lagged\ndata: {}\n\n')).toBe(true);
      const queued = new TextEncoder().encode(stalled.text).byteLength;
      expect(queued).toBeLessThanOrEqual(1024 * 1024 + 64);
      expect(queued).toBeGreaterThan(512 * 1024);
      // The reader that keeps up still follows new events.
      await web.ask({ question: 'Still there?' });
      const pending = (text: string) => text.split('"to":"pending"').length - 1 === 11;
      expect(await reading.readUntil(pending)).toBe(false);
      await reading.cancel();
    } finally {
      await web.close();
    }
  });

  it('ends every stream when the app is closed', async () => {
    const web = startAnswerApp();
    const stream = streamText(await web.request(`/asks/events?token=${OPERATOR_TOKEN}`));
    expect(await stream.readUntil((text) => text.startsWith(': live'))).toBe(false);
    await web.close();
    expect(await stream.readUntil(() => false)).toBe(true);
  });
});
