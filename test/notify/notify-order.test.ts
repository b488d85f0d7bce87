/**
 * What a person reads, in the order they read it: no "your answer is needed" once the ask is
 * settled, never after its settled notice, and a settled notice only to someone who was told of
 * the ask. Real SMTP; a held DATA reply and a simulated clock make the races happen on cue.
 */
import { type AskAuditEvent, createInteractionService, createMemoryAskStore } from 'ask-engine';
import { createEmailChannel, createNotifyProvider } from 'ask-engine/notify';
import { createWebAnswerServer } from 'ask-engine/web';
import { afterEach, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { type SmtpReceiver, smtpError, startSmtpReceiver } from './smtp-receiver.js';

const HOUR = 3_600_000;
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const yes = [{ questionId: 'q1', response: { kind: 'selection' as const, selections: ['Yes'] } }];
const email = (id: string) => ({ id, channel: 'email', address: `${id}@example.com` });
const subjectsTo = (smtp: SmtpReceiver, id: string) =>
  smtp.received.filter((m) => m.rcptTo.includes(`${id}@example.com`)).map((m) => m.mail.subject);

it('holds the settled notice back until the "needed" mail under way is sent, then sends it after', async () => {
  const smtp = await startSmtpReceiver();
  cleanups.push(() => smtp.close());
  const store = createMemoryAskStore();
  const hosts = [];
  for (const _ of ['a', 'b']) {
    const service = createInteractionService({ store });
    cleanups.push(() => service.close());
    const server = await createWebAnswerServer({ service, secret: 'o'.repeat(32) });
    cleanups.push(() => server.close());
    const provider = createNotifyProvider({
      server,
      channels: [createEmailChannel({ transport: smtp.transport, from: 'approvals@example.com' })],
      route: () => [email('alice')],
      delivery: { pollMs: 3_600_000 },
    });
    cleanups.push(() => provider.close());
    service.registerProvider(provider);
    hosts.push({ service, provider });
  }
  const [a, b] = hosts as [(typeof hosts)[0], (typeof hosts)[0]];
  let release!: () => void;
  smtp.holdUntil = new Promise<void>((resolve) => {
    release = resolve;
  });
  cleanups.push(async () => release());

  const handle = a.service.start({ questions: [{ question: 'Ship it?', options: ['Yes', 'No'] }] });
  expect(await handle.outcome).toMatchObject({ status: 'deferred' });
  // Alice's first mail is on the wire, its reply held; meanwhile the ask is answered.
  await smtp.arrived(1);
  await a.service.answer(handle.id, yes);
  const second = smtp.arrived(2).then(() => 'the settled notice arrived first');
  expect(await Promise.race([b.provider.flush(), second])).toBe(0);

  release();
  await a.provider.flush();
  await b.provider.flush();
  expect(subjectsTo(smtp, 'alice')).toEqual([
    'Your answer is needed: Ship it?',
    'Answered: Ship it?',
  ]);
});

it('sends nothing about an ask to a person whose first mail had not gone out when it settled', async () => {
  const smtp = await startSmtpReceiver();
  cleanups.push(() => smtp.close());
  const clock = new SimulatedClock();
  clock.set(Date.now());
  const store = createMemoryAskStore();
  const service = createInteractionService({ store, clock });
  cleanups.push(() => service.close());
  const server = await createWebAnswerServer({ service, secret: 'p'.repeat(32) });
  cleanups.push(() => server.close());
  const provider = createNotifyProvider({
    server,
    channels: [createEmailChannel({ transport: smtp.transport, from: 'approvals@example.com' })],
    route: () => [email('alice'), email('bob')],
    escalation: [{ afterMs: HOUR, route: () => [email('lead')] }],
    clock,
    delivery: { pollMs: 3_600_000, backoff: () => 10 * 60_000 },
    onError: () => {},
  });
  cleanups.push(() => provider.close());
  service.registerProvider(provider);
  // Alice's and the lead's server says "try again later" until the ask is answered.
  smtp.onRcptTo = async ({ address }) =>
    address === 'bob@example.com' ? undefined : smtpError(451, 'Try again later');

  const handle = service.start(
    { questions: [{ question: 'Rotate the keys?', options: ['Yes', 'No'] }] },
    { timeoutMs: 8 * HOUR },
  );
  await handle.outcome;
  await provider.flush();
  clock.increment(HOUR);
  await provider.flush();
  expect(subjectsTo(smtp, 'bob')).toEqual(['Your answer is needed: Rotate the keys?']);

  await service.answer(handle.id, yes);
  smtp.onRcptTo = async () => undefined;
  clock.increment(HOUR);
  await provider.flush();
  await provider.flush();
  // Bob, told, hears how it ended; alice and the lead were never told, and hear nothing now.
  expect(subjectsTo(smtp, 'bob')).toEqual([
    'Your answer is needed: Rotate the keys?',
    'Answered: Rotate the keys?',
  ]);
  expect(subjectsTo(smtp, 'alice')).toEqual([]);
  expect(subjectsTo(smtp, 'lead')).toEqual([]);
  const events: AskAuditEvent[] = [];
  for await (const event of service.history(handle.id)) events.push(event);
  const told = events
    .filter((event) => ['notified', 'reminded', 'escalated'].includes(event.type))
    .map((event) => `${event.type}:${(event.data as { recipient: string }).recipient}`);
  expect(told).toEqual(['notified:bob', 'notified:bob']);
});
