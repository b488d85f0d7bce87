/**
 * Quorum asks through the service: `start(request, { quorum })` is checked against the
 * questions, each person responds with `service.respond(..., { by })`, the machine counts,
 * refuses (the same person twice, someone not in `from`) and decides (the quorum, a veto, no
 * quorum left), and every response is audited. Deadlines and cancels behave as for any ask.
 */
import { describe, expect, it } from 'vitest';
import {
  type AskAuditEvent,
  createInteractionService,
  createMemoryAskStore,
  isUserInteractionError,
} from '../../src/index.js';
import { CountingClock, manualProvider, tick } from './helpers.js';

const deploy = { question: 'Deploy 4.2 to production?', options: ['Approve', 'Reject', 'Deny'] };
const pick = (title: string) => [
  { questionId: 'q1', response: { kind: 'selection' as const, selections: [title] } },
];
const person = (recipient: string) => ({ by: { recipient, channel: 'web' } });
const twoOfThree = { required: 2, from: ['ana', 'ben', 'cy'], veto: ['Deny'] };

function setup(options: { redact?: boolean; clock?: CountingClock } = {}) {
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

async function refusal(
  promise: Promise<unknown>,
): Promise<Error & { code?: string; data?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a refusal');
}

describe('quorum asks through the service', () => {
  it('decides 2 of 3 when two people agree, with every response in the outcome and history', async () => {
    const { store, service, history } = setup();
    const handle = service.start(deploy, { quorum: twoOfThree });
    await handle.stored;
    const other = createInteractionService({ store });
    const first = await other.respond(handle.id, pick('Approve'), person('ana'));
    expect(first).toEqual({
      askId: handle.id,
      state: 'pending',
      quorum: {
        required: 2,
        agree: 'same',
        from: ['ana', 'ben', 'cy'],
        veto: ['Deny'],
        responded: ['ana'],
        needed: 1,
      },
    });
    expect((await service.get(handle.id))?.quorum).toMatchObject({ responded: ['ana'], needed: 1 });
    // A different answer does not agree with ana's: still one more needed.
    const second = await service.respond(handle.id, pick('Reject'), person('ben'));
    expect(second.quorum).toMatchObject({ responded: ['ana', 'ben'], needed: 1 });
    const third = await other.respond(handle.id, pick('Approve'), person('cy'));
    expect(third.state).toBe('answered');
    expect(third.quorum?.needed).toBe(0);
    const outcome = await handle.outcome;
    expect(third.outcome).toEqual(outcome);
    expect(outcome).toMatchObject({ status: 'answered', answers: pick('Approve') });
    if (outcome.status !== 'answered') throw new Error('not answered');
    expect(outcome.responses?.map((each) => [each.by, each.answers])).toEqual([
      ['ana', pick('Approve')],
      ['ben', pick('Reject')],
      ['cy', pick('Approve')],
    ]);
    const recorded = (await history(handle.id)).filter((e) => e.type === 'response.recorded');
    expect(recorded.map((e) => [e.from, e.to, e.data])).toEqual([
      ['pending', 'pending', { by: 'ana', answers: pick('Approve') }],
      ['pending', 'pending', { by: 'ben', answers: pick('Reject') }],
      ['pending', 'answered', { by: 'cy', answers: pick('Approve'), decided: 'quorum' }],
    ]);
    await other.close();
    await service.close();
  });

  it('refuses and audits the same person twice and someone not in from; the ask stays open', async () => {
    const { service, history } = setup();
    const handle = service.start(deploy, { quorum: twoOfThree });
    await service.respond(handle.id, pick('Approve'), person('ana'));
    const twice = await refusal(service.respond(handle.id, pick('Approve'), person('ana')));
    expect(isUserInteractionError(twice, 'INVALID_REQUEST')).toBe(true);
    expect(twice.message).toMatch(/ana has already responded/);
    expect(twice.data).toMatchObject({ by: 'ana', reason: 'duplicate' });
    const outsider = await refusal(service.respond(handle.id, pick('Approve'), person('eve')));
    expect(outsider.message).toMatch(/eve is not among the people who may respond/);
    expect(outsider.data).toMatchObject({ by: 'eve', reason: 'not-allowed' });
    expect(handle.getSnapshot().state).toBe('pending');
    const refused = (await history(handle.id)).filter((e) => e.type === 'response.refused');
    expect(refused.map((e) => e.data)).toEqual([
      { by: 'ana', reason: 'duplicate' },
      { by: 'eve', reason: 'not-allowed' },
    ]);
    // The refusals counted for nothing: ben's approval completes the quorum.
    const done = await service.respond(handle.id, pick('Approve'), person('ben'));
    expect(done.outcome).toMatchObject({ status: 'answered', answers: pick('Approve') });
  });

  it('ends at once on a veto, whoever has approved', async () => {
    const { service, history } = setup();
    const handle = service.start(deploy, { quorum: twoOfThree });
    await service.respond(handle.id, pick('Approve'), person('ana'));
    const veto = await service.respond(handle.id, pick('Deny'), person('cy'));
    expect(veto.outcome).toMatchObject({
      status: 'answered',
      answers: pick('Deny'),
      vetoedBy: 'cy',
    });
    expect((await history(handle.id)).at(-1)?.data).toMatchObject({ decided: 'veto' });
    const late = await refusal(service.respond(handle.id, pick('Approve'), person('ben')));
    expect(isUserInteractionError(late, 'ASK_SETTLED')).toBe(true);
  });

  it('ends cancelled with reason no-quorum when everyone in from responded without agreeing', async () => {
    const { service } = setup();
    const handle = service.start(deploy, { quorum: { required: 2, from: ['ana', 'ben'] } });
    await service.respond(handle.id, pick('Approve'), person('ana'));
    const last = await service.respond(handle.id, pick('Reject'), person('ben'));
    expect(last.state).toBe('cancelled');
    const outcome = await handle.outcome;
    expect(outcome).toMatchObject({ status: 'cancelled', reason: 'no-quorum' });
    if (outcome.status !== 'cancelled') throw new Error('not cancelled');
    expect(outcome.responses?.map((each) => each.by)).toEqual(['ana', 'ben']);
  });

  it('counts responses of any kind with agree: any, and anyone identified without from', async () => {
    const { service } = setup();
    const handle = service.start(deploy, { quorum: { required: 2, agree: 'any' } });
    await service.respond(handle.id, pick('Approve'), person('zoe@example.com'));
    const done = await service.respond(handle.id, pick('Reject'), person('yan@example.com'));
    // The response that completed the quorum gives the answers; all of them are kept.
    expect(done.outcome).toMatchObject({ status: 'answered', answers: pick('Reject') });
  });

  it('times out with 1 of 2 responses kept in the history, never counted as a decision', async () => {
    const clock = new CountingClock();
    const { service, history } = setup({ clock });
    const handle = service.start(deploy, { quorum: { required: 2 }, timeoutMs: 1_000 });
    await service.respond(handle.id, pick('Approve'), person('ana'));
    clock.increment(1_000);
    expect(await handle.outcome).toEqual({ status: 'timedOut', deadlineAt: clock.now() });
    const types = (await history(handle.id)).map((e) => e.type);
    expect(types).toEqual(['start', 'response.recorded', 'deadline']);
  });

  it('cancels and aborts like any ask', async () => {
    const { service } = setup();
    const cancelled = service.start(deploy, { quorum: { required: 2 } });
    await service.respond(cancelled.id, pick('Approve'), person('ana'));
    expect(await service.cancel(cancelled.id)).toMatchObject({
      status: 'cancelled',
      reason: 'user',
    });
    const controller = new AbortController();
    const aborted = service.start(deploy, { quorum: { required: 2 }, signal: controller.signal });
    await tick();
    controller.abort(new Error('the run stopped'));
    expect(await aborted.outcome).toMatchObject({ status: 'aborted' });
  });

  it('refuses answer (one answer cannot decide) and a response without by', async () => {
    const { service } = setup();
    const handle = service.start(deploy, { quorum: { required: 2 } });
    const answered = await refusal(service.answer(handle.id, pick('Approve')));
    expect(answered.message).toMatch(/needs 2 people to respond.*service\.respond/);
    const anonymous = await refusal(service.respond(handle.id, pick('Approve')));
    expect(anonymous.message).toMatch(/pass \{ by: \{ recipient \} \}/);
    const invalid = await refusal(service.respond(handle.id, pick('Maybe'), person('ana')));
    expect(isUserInteractionError(invalid, 'INVALID_ANSWER')).toBe(true);
    expect(handle.getSnapshot().state).toBe('pending');
  });

  it('respond on an ask that is not a quorum ask is answer', async () => {
    const { service } = setup();
    const handle = service.start(deploy);
    const receipt = await service.respond(handle.id, pick('Approve'), person('ana'));
    expect(receipt).toEqual({
      askId: handle.id,
      state: 'answered',
      outcome: {
        status: 'answered',
        answers: pick('Approve'),
        answeredBy: { recipient: 'ana', channel: 'web' },
      },
    });
  });

  it('counts a provider’s answer as the response of whom it names; one naming nobody is refused', async () => {
    const { service, provider, history } = setup();
    const handle = service.start(deploy, { quorum: { required: 2 } });
    await tick();
    provider.calls[0]!.resolve({
      status: 'answered',
      answers: pick('Approve'),
      answeredBy: { recipient: 'ana', channel: 'terminal' },
    });
    await tick();
    await tick();
    expect((await service.get(handle.id))?.quorum?.responded).toEqual(['ana']);
    const unnamed = service.start(deploy, { quorum: { required: 2 } });
    await tick();
    provider.calls[1]!.resolve({ status: 'answered', answers: pick('Approve') });
    await tick();
    await tick();
    expect(unnamed.getSnapshot().state).toBe('pending');
    expect((await history(unnamed.id)).at(-1)).toMatchObject({
      type: 'response.refused',
      data: { reason: 'unidentified' },
    });
    const done = await service.respond(handle.id, pick('Approve'), person('ben'));
    expect(done.outcome).toMatchObject({ status: 'answered' });
  });

  it('redacts the answers of responses in audit events, never who responded', async () => {
    const { service, history } = setup({ redact: true });
    const handle = service.start(deploy, { quorum: { required: 2 } });
    await service.respond(handle.id, pick('Approve'), person('ana'));
    await service.respond(handle.id, pick('Approve'), person('ben'));
    const recorded = (await history(handle.id)).filter((e) => e.type === 'response.recorded');
    expect(recorded.map((e) => e.data)).toEqual([
      { by: 'ana', answers: '[redacted]' },
      { by: 'ben', answers: '[redacted]', decided: 'quorum' },
    ]);
  });

  it.each([
    [{ required: 0 }, /quorum\.required.*whole number of people from 1/],
    [{ required: 1.5 }, /quorum\.required/],
    [
      { required: 3, from: ['ana', 'ben'] },
      /names only 2 people: the quorum could never be reached/,
    ],
    [{ required: 2, from: ['ana', 'ana'] }, /names "ana" twice/],
    [{ required: 2, from: [] }, /non-empty array of recipient ids/],
    [{ required: 2, from: ['ana', ''] }, /quorum\.from\[1\]/],
    [{ required: 2, agree: 'most' }, /"same" or "any"/],
    [{ required: 2, veto: ['Nope'] }, /"Nope", which is not the title of any option/],
    [{ required: 2, quota: 1 }, /field "quota", which it does not take/],
    ['two', /object \{ required, from\?, agree\?, veto\? \}/],
  ])('refuses the quorum option %j, naming the field', (quorum, message) => {
    const { service } = setup();
    let thrown: unknown;
    try {
      service.start(deploy, { quorum: quorum as never });
    } catch (error) {
      thrown = error;
    }
    expect(isUserInteractionError(thrown, 'INVALID_REQUEST')).toBe(true);
    expect((thrown as Error).message).toMatch(message);
  });

  it('refuses a key reused with another quorum', async () => {
    const { service } = setup();
    const first = service.start(deploy, { key: 'deploy-42', quorum: { required: 2 } });
    expect(service.start(deploy, { key: 'deploy-42', quorum: { required: 2 } }).id).toBe(first.id);
    expect(() => service.start(deploy, { key: 'deploy-42', quorum: { required: 3 } })).toThrow(
      /other questions \(or another quorum\)/,
    );
  });
});
