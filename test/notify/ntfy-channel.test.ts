/**
 * The ntfy channel end to end: the notify provider publishes to a local HTTP receiver standing
 * in for an ntfy server, and the message's action buttons are POSTed to the answer server as
 * the ntfy app would (a double tap and retries included).
 */
import { type AskAuditEvent, createInteractionService } from 'ask-engine';
import {
  createNotifyProvider,
  createNtfyChannel,
  NotificationDeliveryError,
  type NtfyMessage,
} from 'ask-engine/notify';
import { createWebAnswerServer } from 'ask-engine/web';
import { afterEach, describe, expect, it } from 'vitest';
import { type HttpRecorder, startHttpRecorder } from './http-recorder.js';
import { created } from './notifications.js';

const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Route = Parameters<typeof createNotifyProvider>[0]['route'];
const aliceOnly: Route = () => [{ id: 'alice', channel: 'ntfy', address: 'alice-approvals_1' }];

async function setUp(now: { value: number } = { value: Date.now() }, route = aliceOnly) {
  const service = createInteractionService();
  cleanups.push(() => service.close());
  const server = await createWebAnswerServer({
    service,
    secret: 's'.repeat(32),
    linkTtlMs: 3_600_000,
    clock: { now: () => now.value },
  });
  cleanups.push(() => server.close());
  const ntfy = await startHttpRecorder();
  cleanups.push(() => ntfy.close());
  const provider = createNotifyProvider({
    server,
    channels: [createNtfyChannel({ server: ntfy.url, answers: server, token: 'tk_test0123' })],
    route,
    delivery: { pollMs: 50 },
  });
  cleanups.push(() => provider.close());
  service.registerProvider(provider);
  return { service, server, ntfy };
}

function published(ntfy: HttpRecorder, n: number): NtfyMessage {
  return JSON.parse(ntfy.received[n]!.body.toString('utf8')) as NtfyMessage;
}

async function history(service: ReturnType<typeof createInteractionService>, askId: string) {
  const events: AskAuditEvent[] = [];
  for await (const event of service.history(askId)) events.push(event);
  return events;
}

const SHIP = { question: 'Ship release 4.2 to production?', options: ['Ship it', 'Hold'] };

describe('createNtfyChannel', () => {
  it('publishes the question with one button per option, and a button answers once however often it is POSTed', async () => {
    const { service, ntfy } = await setUp();
    const handle = service.start({ questions: [SHIP] }, { timeoutMs: 600_000 });
    expect(await handle.outcome).toMatchObject({ status: 'deferred' });
    await ntfy.arrived(1);

    const request = ntfy.received[0]!;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/');
    expect(request.headers.authorization).toBe('Bearer tk_test0123');
    const message = published(ntfy, 0);
    expect(message).toMatchObject({ topic: 'alice-approvals_1', priority: 4, tags: ['question'] });
    expect(message.title).toContain('Ship release 4.2 to production?');
    expect(message.message).toContain('1. Ship it');
    expect(message.click).toMatch(/\/a\/[^/?]+\?t=/);
    expect(message.actions?.map(({ label, method, action }) => [label, method, action])).toEqual([
      ['Ship it', 'POST', 'http'],
      ['Hold', 'POST', 'http'],
    ]);
    const [ship, hold] = message.actions!.map((action) => action.url);

    // A link previewer's GET answers nothing.
    const got = await fetch(ship!);
    expect(got.status).toBe(405);
    expect(got.headers.get('allow')).toBe('POST');
    expect((await service.get(handle.id))?.state).toBe('deferred');

    // The ntfy app retries and the person taps twice: five POSTs at once, one answer.
    const taps = await Promise.all(
      Array.from({ length: 5 }, () => fetch(ship!, { method: 'POST' })),
    );
    const said = await Promise.all(taps.map((tap) => tap.text()));
    expect(taps.map((tap) => tap.status)).toEqual([200, 200, 200, 200, 200]);
    expect(
      said.filter((text) => text.startsWith('Recorded: alice answered “Ship it”')),
    ).toHaveLength(1);
    expect(said.filter((text) => text.startsWith('Already recorded: alice answered'))).toHaveLength(
      4,
    );

    // The other button, tapped later, changes nothing and says who decided.
    const late = await fetch(hold!, { method: 'POST' });
    expect(late.status).toBe(409);
    expect(await late.text()).toMatch(/answered by alice \(via ntfy\)/);

    const stored = await service.get(handle.id);
    expect(stored?.outcome).toMatchObject({
      status: 'answered',
      answers: [{ response: { kind: 'selection', selections: ['Ship it'] } }],
      answeredBy: { recipient: 'alice', channel: 'ntfy' },
    });
    const events = await history(service, handle.id);
    expect(events.filter((event) => event.type === 'answer')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'late-answer')).toHaveLength(5);

    // How it ended is a new message, low priority, without buttons.
    await ntfy.arrived(2);
    const settled = published(ntfy, 1);
    expect(settled).toMatchObject({ topic: 'alice-approvals_1', priority: 2 });
    expect(settled.actions).toBeUndefined();
    expect(settled.message).toContain('You answered this');
  });

  it('refuses a tampered, moved or expired button and changes nothing', async () => {
    const now = { value: Date.now() };
    const { service, ntfy } = await setUp(now);
    const handle = service.start({ questions: [SHIP] });
    await handle.outcome;
    await ntfy.arrived(1);
    const [ship] = published(ntfy, 0).actions!.map((action) => action.url);
    const url = new URL(ship!);
    const token = url.searchParams.get('t')!;

    const flipped = `${token.slice(0, -2)}${token.at(-2) === 'A' ? 'B' : 'A'}${token.at(-1)}`;
    const tampered = await fetch(`${url.origin}${url.pathname}?t=${flipped}`, { method: 'POST' });
    expect(tampered.status).toBe(403);
    expect(await tampered.text()).toContain('not valid');
    // Ship it's token on Hold's URL: the token names its option.
    const moved = await fetch(ship!.replace('/pick/1?', '/pick/2?'), { method: 'POST' });
    expect(moved.status).toBe(403);
    // Another ask's id under the same token.
    const other = await fetch(ship!.replace(`/a/${handle.id}/`, '/a/ask_other/'), {
      method: 'POST',
    });
    expect(other.status).toBe(403);
    // A button's token opens no page, and the page link's token presses no button.
    expect((await fetch(`${url.origin}/a/${handle.id}?t=${token}`)).status).toBe(403);
    const page = new URL(published(ntfy, 0).click!);
    const pageToken = page.searchParams.get('t')!;
    const pressed = await fetch(`${url.origin}${url.pathname}?t=${pageToken}`, { method: 'POST' });
    expect(pressed.status).toBe(403);
    expect((await service.get(handle.id))?.state).toBe('deferred');

    now.value += 3_600_001;
    const expired = await fetch(ship!, { method: 'POST' });
    expect(expired.status).toBe(410);
    expect(await expired.text()).toContain('expired');
    expect((await service.get(handle.id))?.state).toBe('deferred');
    expect((await history(service, handle.id)).map((event) => event.type)).not.toContain(
      'late-answer',
    );
  });

  it('sends hostile text as inert plain text, and no buttons where they cannot hold the question', async () => {
    const { service, ntfy } = await setUp();
    const hostile = 'Deploy?\u001b[2J <b>now</b> [x](https://evil.example) \u202eevil';
    service.start({
      questions: [
        { question: hostile, options: ['A\u0007', 'B', 'C', 'D'], header: 'Ops\r\nX-Evil: 1' },
      ],
    });
    await ntfy.arrived(1);
    const message = published(ntfy, 0);
    expect(message.actions).toBeUndefined();
    // With buttons, a tap's answer shows the option's title escaped too.
    service.start({ questions: [{ question: 'Go?', options: ['Go\u001b[2J', 'Stop'] }] });
    await ntfy.arrived(2);
    const button = published(ntfy, 1).actions![0]!;
    expect(button.label).toBe('Go\\x1b[2J');
    const tapped = await fetch(button.url, { method: 'POST' });
    expect(await tapped.text()).toBe('Recorded: alice answered “Go\\x1b[2J”.\n');
    expect(message.message).toContain(
      'Deploy?\\x1b[2J <b>now</b> [x](https://evil.example) \\u202eevil',
    );
    expect(message.message).toContain('1. A\\x07');
    const raw = [...`${message.title}${message.message}`].filter((ch) => {
      const code = ch.codePointAt(0)!;
      return (code < 0x20 && ch !== '\n') || code === 0x7f || code === 0x202e;
    });
    expect(raw).toEqual([]);
    expect(message.title).not.toMatch(/[\r\n]/);
    // Markdown stays off: ntfy shows the text as written.
    expect(message).not.toHaveProperty('markdown');
  });

  it('counts a quorum member’s taps once, and the second member’s tap decides', async () => {
    const { service, ntfy } = await setUp(undefined, () => ({
      recipients: [
        { id: 'alice', channel: 'ntfy', address: 'alice-approvals_1' },
        { id: 'bob', channel: 'ntfy', address: 'bob-approvals_2' },
      ],
      quorum: { required: 2 },
    }));
    const handle = service.start({ questions: [SHIP] });
    await handle.outcome;
    await ntfy.arrived(2);
    const shipFor = (topic: string) =>
      ntfy.received
        .map((request) => JSON.parse(request.body.toString('utf8')) as NtfyMessage)
        .find((message) => message.topic === topic)!.actions![0]!.url;

    const first = await fetch(shipFor('alice-approvals_1'), { method: 'POST' });
    expect(first.status).toBe(200);
    expect(await first.text()).toMatch(
      /^Recorded: alice responded “Ship it”\..*1 more response needed/,
    );
    const again = await fetch(shipFor('alice-approvals_1'), { method: 'POST' });
    expect(again.status).toBe(409);
    expect(await again.text()).toMatch(/^Already recorded: /);
    expect((await service.get(handle.id))?.state).toBe('deferred');

    expect((await fetch(shipFor('bob-approvals_2'), { method: 'POST' })).status).toBe(200);
    expect((await service.get(handle.id))?.outcome).toMatchObject({
      status: 'answered',
      responses: [
        { by: 'alice', answers: [{ response: { selections: ['Ship it'] } }] },
        { by: 'bob', answers: [{ response: { selections: ['Ship it'] } }] },
      ],
    });
    const refused = (await history(service, handle.id)).filter(
      (event) => event.type === 'response.refused',
    );
    expect(refused).toHaveLength(1);
  });

  it('fails for good on a refused token, naming ntfy’s words, and retryably when rate limited', async () => {
    const ntfy = await startHttpRecorder();
    cleanups.push(() => ntfy.close());
    const channel = createNtfyChannel({ server: `${ntfy.url}/ntfy`, token: 'tk_wrong0123' });
    const notification = created({
      recipient: { id: 'alice', channel: 'ntfy', address: 'alice-approvals_1' },
    });
    ntfy.respond = (res) =>
      res
        .writeHead(403, { 'content-type': 'application/json' })
        .end('{"code":40301,"http":403,"error":"forbidden"}');
    const refused = await channel.send(notification, new AbortController().signal).catch((e) => e);
    expect(refused).toBeInstanceOf(NotificationDeliveryError);
    expect(refused).toMatchObject({ retryable: false, status: 403, channel: 'ntfy' });
    expect(refused.message).toMatch(/HTTP 403 "forbidden" \(check `token`/);
    expect(refused.message).not.toContain('tk_wrong0123');
    // Published to the root below the server's path prefix; no buttons without `answers`.
    expect(ntfy.received[0]?.path).toBe('/ntfy/');
    expect(JSON.parse(ntfy.received[0]!.body.toString('utf8')).actions).toBeUndefined();

    ntfy.respond = (res) => res.writeHead(429).end('limit reached');
    const limited = await channel.send(notification, new AbortController().signal).catch((e) => e);
    expect(limited).toMatchObject({ retryable: true, status: 429 });
    expect(limited.message).toContain('HTTP 429 "limit reached"');
  });

  it('names what is wrong with its options and with an address', () => {
    expect(() => createNtfyChannel({ server: 'ftp://ntfy.sh' })).toThrow(/`server`.*http\(s\)/);
    expect(() => createNtfyChannel({ server: 'https://user:pw@ntfy.sh' })).toThrow(/token/);
    expect(() => createNtfyChannel({ server: 'https://ntfy.sh', priority: 7 as 1 })).toThrow(
      /`priority`/,
    );
    expect(() => createNtfyChannel({ server: 'https://ntfy.sh', answers: {} as never })).toThrow(
      /pushActionsFor/,
    );
    const channel = createNtfyChannel({ server: 'https://ntfy.sh' });
    expect(() => channel.checkAddress?.('alice/approvals')).toThrow(
      /ntfy topic.*"alice\/approvals"/,
    );
    expect(() => channel.checkAddress?.('a'.repeat(65))).toThrow(/1 to 64/);
    expect(() => channel.checkAddress?.('alice-approvals')).not.toThrow();
  });
});
