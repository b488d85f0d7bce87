/**
 * The notify provider end to end on a SQLite file: a real SMTP server and a real webhook
 * receiver, the recipient's emailed link answered over HTTP, reminders and an escalation at
 * short intervals, audit events for each, and a scanner's GET that changes nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AskAuditEvent, createInteractionService } from 'ask-engine';
import { createEmailChannel, createNotifyProvider, createWebhookChannel } from 'ask-engine/notify';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { createWebAnswerServer } from 'ask-engine/web';
import { afterEach, describe, expect, it } from 'vitest';
import { launchChromium } from '../web/web-fixture.js';
import { answerThroughLink, linkIn } from './answer-link.js';
import { startSmtpReceiver } from './smtp-receiver.js';
import { startWebhookReceiver } from './webhook-receiver.js';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 10_000) {
  const end = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

type ProviderOptions = Parameters<typeof createNotifyProvider>[0];

async function setUp(
  overrides: Partial<Pick<ProviderOptions, 'route' | 'reminders' | 'escalation'>> = {},
) {
  const dir = await mkdtemp(join(tmpdir(), 'notify-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const store = createSqliteAskStore({ path: join(dir, 'asks.db') });
  const service = createInteractionService({ store });
  cleanups.push(() => service.close());
  const server = await createWebAnswerServer({ service, secret: 'a'.repeat(32) });
  cleanups.push(() => server.close());
  const smtp = await startSmtpReceiver();
  cleanups.push(() => smtp.close());
  const hooks = await startWebhookReceiver(SECRET);
  cleanups.push(() => hooks.close());
  const provider = createNotifyProvider({
    server,
    // No `store`: the provider takes the one `server.service` writes to.
    channels: [
      createEmailChannel({ transport: smtp.transport, from: 'Approvals <approvals@example.com>' }),
      createWebhookChannel({ url: hooks.url, secret: SECRET }),
    ],
    route: () => [
      { id: 'alice', channel: 'email', address: 'alice@example.com' },
      { id: 'ops', channel: 'webhook', address: 'ops-hook' },
    ],
    reminders: { afterMs: 300, everyMs: 300, max: 2 },
    escalation: [
      {
        afterMs: 700,
        route: () => [{ id: 'lead', channel: 'email', address: 'lead@example.com' }],
      },
    ],
    delivery: { pollMs: 50 },
    ...overrides,
  });
  cleanups.push(() => provider.close());
  service.registerProvider(provider);
  return { service, server, smtp, hooks, provider };
}

async function history(
  service: ReturnType<typeof createInteractionService>,
  askId: string,
): Promise<AskAuditEvent[]> {
  const events: AskAuditEvent[] = [];
  for await (const event of service.history(askId)) events.push(event);
  return events;
}

describe('createNotifyProvider', () => {
  it('mails and hooks each recipient, reminds, escalates, and records who answered', async () => {
    const { service, smtp, hooks } = await setUp();
    const handle = service.start(
      {
        questions: [{ question: 'Ship release 4.2?', options: ['Ship it', 'Hold'] }],
      },
      { timeoutMs: 60_000 },
    );
    expect(await handle.outcome).toMatchObject({ status: 'deferred', interactionId: handle.id });
    const mailTo = (to: string) => smtp.received.filter((m) => m.rcptTo.includes(to));

    // The first mail, two reminders threaded under it, then the escalation to the lead.
    await until(() => mailTo('alice@example.com').length >= 3, 'two reminders');
    await until(() => mailTo('lead@example.com').length >= 1, 'the escalation');
    const [first, ...reminders] = mailTo('alice@example.com');
    expect(reminders.map((m) => m.mail.inReplyTo)).toEqual([
      first?.mail.messageId,
      first?.mail.messageId,
    ]);
    await hooks.arrived(1);
    expect(hooks.received.every((hook) => hook.verified.ok)).toBe(true);

    // A mail scanner follows the link: the form is shown, nothing changes.
    const link = linkIn(first?.mail.text);
    const scanned = await fetch(link);
    expect(scanned.status).toBe(200);
    expect((await service.get(handle.id))?.state).toBe('deferred');

    // Alice answers through her link; the escalated lead's link still opens until then.
    const leadLink = linkIn(mailTo('lead@example.com')[0]?.mail.text);
    expect((await fetch(leadLink)).status).toBe(200);
    const posted = await answerThroughLink(link, 1);
    expect(posted.status).toBe(200);
    const stored = await service.get(handle.id);
    expect(stored?.outcome).toMatchObject({
      status: 'answered',
      answeredBy: { recipient: 'alice', channel: 'email' },
    });

    // The webhook gets ask.settled naming alice; every settled mail too.
    await until(
      () => hooks.received.some((hook) => hook.body.includes('"ask.settled"')),
      'ask.settled',
    );
    const settled = hooks.received.find((hook) => hook.body.includes('"ask.settled"'));
    expect(JSON.parse(settled?.body ?? '{}').data.outcome).toMatchObject({
      status: 'answered',
      answeredBy: { recipient: 'alice', channel: 'email' },
    });
    // The lead's link now says who answered, and when.
    const leadPage = await (await fetch(leadLink)).text();
    expect(leadPage).toContain('answered by alice (via email) on');
    await until(() => mailTo('lead@example.com').length >= 2, 'the settled mail to the lead');
    expect(mailTo('lead@example.com')[1]?.mail.text).toContain('Answered by alice');

    const events = await history(service, handle.id);
    const notes = events
      .filter((e) => ['notified', 'reminded', 'escalated'].includes(e.type))
      .map((e) => `${e.type}:${(e.data as { recipient: string }).recipient}`);
    expect(notes).toEqual(
      expect.arrayContaining([
        'notified:alice',
        'notified:ops',
        'reminded:alice',
        'escalated:lead',
      ]),
    );
    // Audit events of notifications never carry the answer.
    expect(JSON.stringify(events.filter((e) => e.type === 'notified'))).not.toContain('Ship it');
  });

  it('is answered in Chromium through the emailed link, and the other link shows who answered', async () => {
    const { service, smtp } = await setUp({
      route: () => [
        { id: 'alice', channel: 'email', address: 'alice@example.com' },
        { id: 'bob', channel: 'email', address: 'bob@example.com' },
      ],
      escalation: [],
    });
    const handle = service.start(
      { questions: [{ question: 'Rotate the signing key?', options: ['Rotate now', 'Wait'] }] },
      { timeoutMs: 60_000 },
    );
    await handle.outcome;
    const mailTo = (to: string) => smtp.received.find((m) => m.rcptTo.includes(to));
    await until(() => mailTo('alice@example.com') !== undefined, "alice's mail");
    await until(() => mailTo('bob@example.com') !== undefined, "bob's mail");
    // The links as mailparser reads them from each mail's text part.
    const aliceLink = linkIn(mailTo('alice@example.com')?.mail.text);
    const bobLink = linkIn(mailTo('bob@example.com')?.mail.text);
    expect(aliceLink).not.toBe(bobLink);

    const browser = await launchChromium();
    cleanups.push(() => browser.close());
    const page = await browser.context.newPage();
    expect((await page.goto(aliceLink))?.status()).toBe(200);
    await page.getByLabel('Rotate now', { exact: true }).check();
    await page.getByRole('button', { name: 'Send answer' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Answer recorded');

    expect((await service.get(handle.id))?.outcome).toEqual({
      status: 'answered',
      answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['Rotate now'] } }],
      answeredBy: { recipient: 'alice', channel: 'email' },
    });
    // Bob's link, opened after alice answered, says who did and that nothing is left to answer
    // (410 Gone: the ask is settled).
    expect((await page.goto(bobLink))?.status()).toBe(410);
    expect(await page.locator('body').textContent()).toContain(
      'It was answered by alice (via email) on',
    );
    expect(await page.getByRole('button', { name: 'Send answer' }).count()).toBe(0);
  });

  it('takes a 2-of-3 approval through the emailed links, each answering as its recipient', async () => {
    const people = ['ana', 'ben', 'cy'];
    const { service, smtp } = await setUp({
      route: () => people.map((id) => ({ id, channel: 'email', address: `${id}@example.com` })),
      escalation: [],
    });
    const handle = service.start(
      { questions: [{ question: 'Release the payment run?', options: ['Approve', 'Deny'] }] },
      { timeoutMs: 60_000, quorum: { required: 2, from: people, veto: ['Deny'] } },
    );
    await handle.outcome;
    const mailTo = (id: string) =>
      smtp.received.find((m) => m.rcptTo.includes(`${id}@example.com`));
    await until(() => people.every((id) => mailTo(id) !== undefined), 'the three mails');
    const link = (id: string) => linkIn(mailTo(id)?.mail.text);
    // Each mail also carries its recipient's inbox link, which lists the ask.
    const inbox = /https?:\/\/\S+\/inbox\?t=\S+/.exec(mailTo('ben')?.mail.text ?? '')?.[0];
    expect(inbox).toBeDefined();
    expect(mailTo('ben')?.mail.html).toContain(`href="${inbox}"`);
    const listed = await fetch(inbox!);
    expect(listed.status).toBe(200);
    expect(await listed.text()).toContain('Release the payment run?');
    const first = await answerThroughLink(link('ana'), 1);
    expect(first.status).toBe(200);
    expect(await first.text()).toContain('Responded so far: ana. 1 more response needed.');
    // Ana's link again: refused and counted once; cy's page shows the standing.
    expect((await answerThroughLink(link('ana'), 1)).status).toBe(409);
    expect(await (await fetch(link('cy'))).text()).toContain('Responded so far: ana.');
    expect((await answerThroughLink(link('cy'), 1)).status).toBe(200);
    const outcome = (await service.get(handle.id))?.outcome;
    expect(outcome).toMatchObject({
      status: 'answered',
      answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['Approve'] } }],
      responses: [{ by: 'ana' }, { by: 'cy' }],
    });
    // Ben's link now says who decided it.
    const settled = await fetch(link('ben'));
    expect(settled.status).toBe(410);
    expect(await settled.text()).toContain('It was decided by the responses of ana, cy');
    const types = (await history(service, handle.id)).map((event) => event.type);
    expect(types.filter((type) => type.startsWith('response.'))).toEqual([
      'response.recorded',
      'response.refused',
      'response.recorded',
    ]);
  });

  it('takes the quorum from the route: set with the deferral, audited, counted through the links', async () => {
    const people = ['ana', 'ben', 'cy'];
    const { service, smtp } = await setUp({
      route: () => ({
        recipients: people.map((id) => ({ id, channel: 'email', address: `${id}@example.com` })),
        quorum: { required: 2, from: people },
      }),
      escalation: [],
    });
    const handle = service.start(
      { questions: [{ question: 'Wire 40,000 EUR?', options: ['Approve', 'Deny'] }] },
      { timeoutMs: 60_000 },
    );
    await handle.outcome;
    const deferral = (await history(service, handle.id)).find(
      (event) => event.type === 'provider.deferred',
    );
    expect(deferral?.data).toMatchObject({ quorum: { required: 2, from: people, agree: 'same' } });
    expect((await service.get(handle.id))?.quorum).toMatchObject({ required: 2, needed: 2 });
    const mailTo = (id: string) =>
      smtp.received.find((m) => m.rcptTo.includes(`${id}@example.com`));
    await until(() => people.every((id) => mailTo(id) !== undefined), 'the three mails');
    const link = (id: string) => linkIn(mailTo(id)?.mail.text);
    expect((await answerThroughLink(link('ben'), 1)).status).toBe(200);
    expect((await service.get(handle.id))?.state).toBe('deferred');
    expect((await answerThroughLink(link('ana'), 1)).status).toBe(200);
    expect((await service.get(handle.id))?.outcome).toMatchObject({
      status: 'answered',
      responses: [{ by: 'ben' }, { by: 'ana' }],
    });
  });

  it('refuses a route quorum that does not fit the questions, and one for an ask with its own', async () => {
    const { service } = await setUp({
      route: () => ({
        recipients: [{ id: 'ana', channel: 'email', address: 'ana@example.com' }],
        quorum: { required: 1, veto: ['Nope'] },
      }),
      escalation: [],
    });
    const outcome = await service.ask(
      { questions: [{ question: 'Wire it?', options: ['Approve', 'Deny'] }] },
      { timeoutMs: 60_000 },
    );
    expect(outcome).toMatchObject({ status: 'cancelled', reason: 'provider-error' });
    expect(outcome.status === 'cancelled' && outcome.message).toMatch(/quorum\.veto.*"Nope"/);
    const own = await service.ask(
      { questions: [{ question: 'Wire it?', options: ['Approve', 'Deny'] }] },
      { timeoutMs: 60_000, quorum: { required: 1 } },
    );
    expect(own.status === 'cancelled' && own.message).toMatch(/started with a quorum of its own/);
  });

  it('tells a person a route names under two spellings of one id once, recorded as first named, and answers as them', async () => {
    const { service, smtp, hooks } = await setUp({
      route: () => [
        { id: 'Ana', channel: 'email', address: 'ana@example.com' },
        { id: '\u0430NA', channel: 'webhook', address: 'ops-hook' },
      ],
    });
    const handle = service.start({ question: 'Ship release 4.2?', options: ['Ship it', 'Hold'] });
    expect(await handle.outcome).toMatchObject({ status: 'deferred' });
    await until(() => smtp.received.length >= 1, 'the mail');
    const told = (await history(service, handle.id)).filter((event) => event.type === 'notified');
    expect(told.map((event) => event.data.recipient)).toEqual(['Ana']);
    expect(hooks.received).toEqual([]);
    expect((await service.list({ notified: 'ana' })).items.map(({ askId }) => askId)).toEqual([
      handle.id,
    ]);
    const posted = await answerThroughLink(linkIn(smtp.received[0]?.mail.text), 1);
    expect(posted.status).toBe(200);
    expect((await service.get(handle.id))?.outcome).toMatchObject({
      answeredBy: { recipient: 'Ana', channel: 'email' },
    });
  });

  it('sends no reminder or escalation once the ask settled first', async () => {
    // Reminders and the escalation fall due well after the answer, which follows the deferral
    // at once: the shorter times of setUp were overtaken by a loaded machine (a reminder due
    // 300 ms after the deferral went out before the answer), and the test then failed.
    const { service, smtp } = await setUp({
      reminders: { afterMs: 1_500, everyMs: 300, max: 2 },
      escalation: [
        {
          afterMs: 1_800,
          route: () => [{ id: 'lead', channel: 'email', address: 'lead@example.com' }],
        },
      ],
    });
    const handle = service.start(
      {
        questions: [{ question: 'Quick one?', options: ['Yes', 'No'] }],
      },
      { timeoutMs: 60_000 },
    );
    expect((await handle.outcome).status).toBe('deferred');
    await service.answer(handle.id, [
      { questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } },
    ]);
    // Past every reminder's and the escalation's time, with the sender polling all along.
    await new Promise((resolve) => setTimeout(resolve, 2_600));
    const kinds = (await history(service, handle.id)).map((e) => e.type);
    expect(kinds).not.toContain('reminded');
    expect(kinds).not.toContain('escalated');
    expect(smtp.received.filter((m) => m.rcptTo.includes('lead@example.com'))).toEqual([]);
  });
});

describe('the notify provider’s store', () => {
  it('is taken from the server’s service, and asked for when a server has none', async () => {
    const channel = { name: 'email', send: async () => undefined };
    const route = () => [{ id: 'alice', channel: 'email', address: 'alice@example.com' }];
    const bare = { linkFor: async () => 'https://example.com/a/1?t=x' };
    expect(() => createNotifyProvider({ server: bare, channels: [channel], route })).toThrow(
      "Expected `store` (the interaction service's ask store): the `server` given has no `service` made by createInteractionService to take it from.",
    );
    expect(() =>
      createNotifyProvider({
        server: bare,
        store: {} as never,
        channels: [channel],
        route,
      }),
    ).toThrow(/Expected `store` to implement the ask log \(create, .*\); it lacks create, /);
  });
});
