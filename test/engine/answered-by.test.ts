/**
 * Who answered: `service.answer(..., { by })`, `resume(..., { by })` and a provider's
 * `answeredBy` end in the outcome's `answeredBy` and in the answering audit event, on every
 * service sharing the store; a bad one is refused naming the field; redaction keeps it.
 */
import { describe, expect, it } from 'vitest';
import {
  type AskAuditEvent,
  createInteractionService,
  createMemoryAskStore,
  isUserInteractionError,
} from '../../src/index.js';
import { manualProvider, tick, yesNo } from './helpers.js';

const yes = [{ questionId: 'q1', response: { kind: 'selection' as const, selections: ['Yes'] } }];
const alice = { recipient: 'alice@example.com', channel: 'email' };

function setup(options: { redact?: boolean } = {}) {
  const store = createMemoryAskStore();
  const service = createInteractionService({ store, ...options });
  const provider = manualProvider();
  service.registerProvider(provider);
  const history = async (askId: string) => {
    const events: AskAuditEvent[] = [];
    for await (const event of service.history(askId)) events.push(event);
    return events;
  };
  return { store, service, provider, history };
}

describe('who answered', () => {
  it('records service.answer’s `by` in the outcome, the stored row and the answer event', async () => {
    const { store, service, history } = setup();
    const handle = service.start(yesNo);
    await handle.stored;
    // Another service sharing the store answers it.
    const other = createInteractionService({ store });
    const outcome = await other.answer(handle.id, yes, { by: alice });
    expect(outcome).toEqual({ status: 'answered', answers: yes, answeredBy: alice });
    expect(await handle.outcome).toEqual(outcome);
    expect((await service.get(handle.id))?.outcome).toEqual(outcome);
    const answered = (await history(handle.id)).find((event) => event.type === 'answer');
    expect(answered?.data).toEqual({ answers: yes, answeredBy: alice });
    await other.close();
    await service.close();
  });

  it('records who tried in the late-answer event of an answer or response after the outcome', async () => {
    const { service, history } = setup();
    const handle = service.start(yesNo);
    await handle.stored;
    await service.answer(handle.id, yes, { by: alice });
    const bob = { recipient: 'bob', channel: 'slack' };
    await expect(service.answer(handle.id, yes, { by: bob })).rejects.toMatchObject({
      code: 'ASK_SETTLED',
    });
    await expect(service.respond(handle.id, yes, { by: bob })).rejects.toMatchObject({
      code: 'ASK_SETTLED',
    });
    await expect(service.answer(handle.id, yes)).rejects.toMatchObject({ code: 'ASK_SETTLED' });
    const late = (await history(handle.id)).filter((event) => event.type === 'late-answer');
    expect(late.map((event) => event.data)).toEqual([
      { source: 'answer', by: bob },
      { source: 'answer', by: bob },
      { source: 'answer' },
    ]);
  });

  it('leaves answeredBy out when nobody says who answered', async () => {
    const { service, history } = setup();
    const handle = service.start(yesNo);
    const outcome = await service.answer(handle.id, yes);
    expect(outcome).toEqual({ status: 'answered', answers: yes });
    expect(Object.keys((await history(handle.id)).at(-1)!.data)).toEqual(['answers']);
  });

  it('records a provider’s answeredBy', async () => {
    const { service, provider, history } = setup();
    const handle = service.start(yesNo);
    await tick();
    provider.calls[0]!.resolve({
      status: 'answered',
      answers: yes,
      answeredBy: { recipient: 'bob', channel: 'terminal' },
    });
    expect(await handle.outcome).toEqual({
      status: 'answered',
      answers: yes,
      answeredBy: { recipient: 'bob', channel: 'terminal' },
    });
    const event = (await history(handle.id)).find((each) => each.type === 'provider.answered');
    expect(event?.data).toMatchObject({ answeredBy: { recipient: 'bob', channel: 'terminal' } });
  });

  it('ends the ask as invalid-answer when a provider names who answered badly', async () => {
    const { service, provider } = setup();
    const handle = service.start(yesNo);
    await tick();
    provider.calls[0]!.resolve({ status: 'answered', answers: yes, answeredBy: { recipient: '' } });
    const outcome = await handle.outcome;
    expect(outcome).toMatchObject({ status: 'cancelled', reason: 'invalid-answer' });
    expect((outcome as { message: string }).message).toMatch(/`answeredBy\.recipient`/);
  });

  it('records resume’s `by` for a deferred ask', async () => {
    const { service, provider } = setup();
    const handle = service.start(yesNo);
    await tick();
    provider.calls[0]!.resolve({ status: 'deferred', interactionId: 'thread-1' });
    await handle.outcome;
    const outcome = await service.resume('thread-1', yes, {
      askId: handle.id,
      by: { recipient: 'carol' },
    });
    expect(outcome).toEqual({
      status: 'answered',
      answers: yes,
      answeredBy: { recipient: 'carol' },
    });
  });

  it.each([
    [{ recipient: '' }, /`by\.recipient` to be a non-empty string, got ""/, 'by.recipient'],
    [{ recipient: 42 }, /`by\.recipient` to be a non-empty string, got 42/, 'by.recipient'],
    [{ channel: 'web' }, /`by\.recipient` to be a non-empty string, got undefined/, 'by.recipient'],
    [{ recipient: 'a', channel: '' }, /`by\.channel` to be a non-empty string/, 'by.channel'],
    [
      { recipient: 'x'.repeat(257) },
      /`by\.recipient` has 257 characters, more than the 256/,
      'by.recipient',
    ],
    [
      { recipient: 'eve\u001b[31m' },
      /`by\.recipient` contains the control character \\x1b at position 3/,
      'by.recipient',
    ],
    [
      { recipient: 'a', channel: 'we\nb' },
      /`by\.channel` contains the control character \\x0a/,
      'by.channel',
    ],
    [
      { recipient: 'a', role: 'admin' },
      /`by` has the field "role", which it does not take/,
      'by.role',
    ],
    ['alice', /`by` to be an object \{ recipient, channel\? \}, got "alice"/, 'by'],
  ])('refuses by = %j naming the field, and leaves the ask open', async (by, message, field) => {
    const { service } = setup();
    const handle = service.start(yesNo);
    const error = await service.answer(handle.id, yes, { by: by as never }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isUserInteractionError(error, 'INVALID_REQUEST')).toBe(true);
    expect((error as Error).message).toMatch(message);
    expect((error as { data: unknown }).data).toEqual({ field });
    expect(handle.getSnapshot().state).toBe('pending');
    // The same check guards resume.
    await expect(service.resume('no-such-thread', yes, { by: by as never })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
  });

  it('accepts names in any script, emoji included, at exactly the length limit', async () => {
    const { service } = setup();
    // Recorded as given: a chat platform's ids are case-sensitive.
    for (const recipient of ['Zoë 文字 🚀', 'X'.repeat(256)]) {
      const handle = service.start(yesNo);
      const outcome = await service.answer(handle.id, yes, { by: { recipient } });
      expect(outcome).toMatchObject({ answeredBy: { recipient } });
    }
  });

  it('keeps answeredBy but no answer text when the service redacts', async () => {
    const { store, service, history } = setup({ redact: true });
    const secret = 'typed-secret-4471';
    const handle = service.start({ question: 'Which account?' });
    const text = [{ questionId: 'q1', response: { kind: 'freeform' as const, text: secret } }];
    const outcome = await service.answer(handle.id, text, { by: alice });
    // The caller gets the answers; every audit surface gets who, never what.
    expect(outcome).toEqual({ status: 'answered', answers: text, answeredBy: alice });
    const events = await history(handle.id);
    const answered = events.find((event) => event.type === 'answer');
    expect(answered?.data).toEqual({ answers: '[redacted]', answeredBy: alice });
    expect(JSON.stringify(events)).not.toContain(secret);
    expect((await store.get(handle.id))?.outcome).toMatchObject({ answeredBy: alice });
  });
});
