/** What the operator view shows of stored asks: redacted answers as written, damaged rows marked. */
import { randomBytes } from 'node:crypto';
import {
  type Clock,
  createInteractionService,
  createMemoryAskStore,
  createScriptedProvider,
} from 'ask-engine';
import { createWebAnswerServer } from 'ask-engine/web';
import { describe, expect, it } from 'vitest';
import { OPERATOR_TOKEN, postForm, startWebService, tokenOf } from './web-fixture.js';

describe('the operator view with a redacting service', () => {
  it('never shows what the person typed or picked, in the list, the history or the live stream', async () => {
    const web = await startWebService({ service: { redact: true } });
    try {
      const stream = await fetch(`${web.server.url}/asks/events?token=${OPERATOR_TOKEN}`);
      const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
      const { handle, link } = await web.ask({
        question: 'The passphrase?',
        options: ['Keep-the-old-one'],
        allowFreeform: true,
        allowComment: true,
      });
      const path = link.split('?')[0]!;
      const token = tokenOf(link);
      // Refused first (a comment on a typed answer), then answered, then a late second answer.
      const refused = await postForm(path, [
        ['token', token],
        ['action', 'submit'],
        ['q1.mode', 'text'],
        ['q1.text', 'typed-secret-one'],
        ['q1.comment', 'typed-secret-two'],
      ]);
      expect(refused.status).toBe(422);
      const answered = await postForm(path, [
        ['token', token],
        ['action', 'submit'],
        ['q1.mode', 'text'],
        ['q1.text', 'typed-secret-three'],
      ]);
      expect(answered.status).toBe(200);
      expect(await handle.outcome).toMatchObject({ status: 'answered' });
      const late = await postForm(path, [
        ['token', token],
        ['action', 'submit'],
        ['q1.mode', 'options'],
        ['q1.selection', 'option1'],
      ]);
      expect(late.status).toBe(409);

      let streamed = '';
      while (!streamed.includes('"to":"answered"')) {
        const { value, done } = await reader.read();
        if (done) break;
        streamed += value;
      }
      await reader.cancel();
      const list = await (await fetch(`${web.server.url}/asks?token=${OPERATOR_TOKEN}`)).text();
      const page = await fetch(
        `${web.server.url}/asks/${encodeURIComponent(handle.id)}?token=${OPERATOR_TOKEN}`,
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
    const server = await createWebAnswerServer({
      service,
      secret: randomBytes(32),
      operatorToken: OPERATOR_TOKEN,
    });
    try {
      broken = true;
      const damaged = service.start({ question: 'Damaged?', options: ['Yes', 'No'] });
      await damaged.outcome;
      broken = false;
      const healthy = service.start({ question: 'Healthy?', options: ['Yes', 'No'] });
      await healthy.outcome;

      const list = await fetch(`${server.url}/asks?token=${OPERATOR_TOKEN}`);
      expect(list.status).toBe(200);
      const listed = await list.text();
      expect(listed).toContain(`data-ask="${damaged.id}"`);
      expect(listed).toContain(`data-ask="${healthy.id}"`);
      expect(listed).toContain('<td class="bad-time">not a valid time (8700000000000000)</td>');
      expect(listed).toMatch(/<td>\d{4}-\d\d-\d\dT[\d:.]+Z<\/td>/);

      const history = await fetch(`${server.url}/asks/${damaged.id}?token=${OPERATOR_TOKEN}`);
      expect(history.status).toBe(200);
      expect(await history.text()).toContain('<td class="bad-time">not a valid time');
    } finally {
      await server.close();
      await service.close();
    }
  });
});
