/**
 * The notification channels against floors measured in the same run, on loopback:
 * (a) the email channel's send (check the notification, render text and HTML, send) to a local
 *     SMTP server, against nodemailer sending the same, already rendered mail through the same
 *     pooled transport; goal <= 1.5x.
 * (c) notification overhead per ask: the notify provider hands the ask over (route, link, its
 *     outbox entries: the first notification, written leased to this sender, and the settled
 *     one), the ask's row is written with them (SQLite file), then the provider sends the
 *     first notification (a read of what it leased itself, with the ask; no claim write)
 *     through the email channel to the local SMTP server and marks it done with its audit
 *     event; against the same ask's row written without an outbox plus nodemailer sending the
 *     same rendered mail; goal <= 1.5x. The ask is written either way: what notify adds is
 *     the hand-over, the entries in that write, the read, the rendering and the done mark.
 *     For scale, the same subject against the bare send only (the ask's own write then counts
 *     as overhead too).
 * (b) the webhook channel's send (check, sign, POST) to a local receiver, against a bare fetch
 *     POST of the same body and headers, signed once beforehand; for scale.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { Webhook } from 'standardwebhooks';
import { createInteractionService } from '../src/engine/service.js';
import { createEmailChannel } from '../src/notify/email-channel.js';
import type { Notification } from '../src/notify/notification.js';
import { createNotifyProvider } from '../src/notify/notify-provider.js';
import { createWebhookChannel } from '../src/notify/webhook-channel.js';
import { webhookBodyOf } from '../src/notify/webhook-event.js';
import type { OutboxEntry } from '../src/stores/ask-store.js';
import { createSqliteAskStore } from '../src/stores/sqlite/store.js';
import { yesNoRequest } from './fixtures.js';
import { timeRatio } from './ratio.js';

const notification: Notification = {
  kind: 'created',
  askId: 'ask_12345678',
  at: Date.now(),
  questions: [1, 2].map((n) => ({
    id: `q${n}`,
    header: `Step ${n}`,
    question: `Should step ${n} of the <b>migration</b> run tonight?`,
    context: 'Plan:\n1. copy rows\n2. switch reads',
    options: Array.from({ length: 4 }, (_, i) => ({
      title: `Option ${i + 1}`,
      description: `Moves module ${i + 1}`,
    })),
    allowMultiple: false,
    allowFreeform: true,
    allowComment: false,
  })),
  recipient: { id: 'alice', channel: 'email', address: 'alice@example.com' },
  link: 'https://answers.example.com/a/ask_12345678?t=abc.def',
  deadline: Date.now() + 3_600_000,
};
const signal = new AbortController().signal;

// (a) email
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  logger: false,
  onData(stream, _session, callback) {
    stream.on('data', () => {});
    stream.on('end', () => callback());
  },
});
await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
const smtpPort = (smtp.server.address() as AddressInfo).port;
const transport = nodemailer.createTransport({
  host: '127.0.0.1',
  port: smtpPort,
  ignoreTLS: true,
  pool: true,
  maxConnections: 1,
  maxMessages: Number.POSITIVE_INFINITY,
});
const email = createEmailChannel({ transport, from: 'Approvals <approvals@example.com>' });
// The floor mails what the channel mails, rendered once: one message taken from the channel.
let rendered: Parameters<typeof transport.sendMail>[0] | undefined;
await createEmailChannel({
  transport: {
    async sendMail(message) {
      rendered = message;
    },
  },
  from: 'Approvals <approvals@example.com>',
}).send(notification, signal);

await timeRatio(
  '(a) email channel send vs nodemailer sending the same rendered mail (local SMTP)',
  1.5,
  () => transport.sendMail(rendered!),
  () => email.send(notification, signal),
  { rounds: 31, chunkMs: 50 },
);
// (c) outbox write + claim + send + done, per ask
const dir = mkdtempSync(join(tmpdir(), 'ask-engine-notify-bench-'));
const store = createSqliteAskStore({ path: join(dir, 'asks.db') });
// A real pending row, written by a service, copied under a new id for each ask.
const seed = createInteractionService({ store });
seed.registerProvider({ ask: () => new Promise(() => {}) });
const seeded = seed.start(yesNoRequest);
await seeded.stored;
const row = (await store.get(seeded.id))!;
const template = {
  ask: row,
  event: {
    askId: row.askId,
    type: 'start',
    at: row.createdAt,
    from: null,
    to: 'pending',
    data: { questions: 1 },
  } as const,
};
const provider = createNotifyProvider({
  server: { linkFor: async () => notification.link as string },
  store,
  channels: [email],
  route: () => [notification.recipient],
  delivery: { pollMs: 3_600_000 },
});
let asks = 0;
/**
 * A new ask's row and start event, written as the service writes them; with `notify`, the
 * provider hands it over first and its outbox entries go into that write, as the service's
 * `ctx.queueOutbox` does.
 */
const createAsk = async (notify: boolean) => {
  const askId = `ask_${++asks}`;
  let outbox: readonly OutboxEntry[] | undefined;
  if (notify) {
    const deferral = await provider.ask(
      { questions: notification.questions },
      { askId, signal, reportProgress() {} },
    );
    outbox = 'outbox' in deferral ? deferral.outbox : undefined;
  }
  await store.create({
    ask: { ...template.ask, askId },
    event: { ...template.event, askId },
    ...(outbox === undefined ? {} : { outbox }),
  });
};
const notifiedAsk = async () => {
  await createAsk(true);
  await provider.flush();
};
await timeRatio(
  '(c) notification per ask (hand-over + outbox in the ask write + send + done, SQLite) vs the ask write without outbox + nodemailer sending the same mail (local SMTP)',
  1.5,
  async () => {
    await createAsk(false);
    await transport.sendMail(rendered!);
  },
  notifiedAsk,
  { rounds: 31, chunkMs: 50 },
);
await timeRatio(
  '(c) for scale: the same notified ask vs nodemailer sending the mail alone (the ask write counted as overhead)',
  undefined,
  () => transport.sendMail(rendered!),
  notifiedAsk,
  { rounds: 31, chunkMs: 50 },
);
await provider.close();
await seed.close();
await store.close();
rmSync(dir, { recursive: true, force: true });
transport.close();
await new Promise<void>((resolve) => smtp.close(() => resolve()));

// (b) webhooks
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(204).end());
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
const secret = `whsec_${randomBytes(32).toString('base64')}`;
const hook = createWebhookChannel({ url, secret });
const webhookNotification = {
  ...notification,
  recipient: { id: 'ops', channel: 'webhook', address: 'ops' },
};
const body = webhookBodyOf(webhookNotification);
const now = new Date();
const headers = {
  'content-type': 'application/json',
  'webhook-id': 'msg_floor',
  'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
  'webhook-signature': new Webhook(secret).sign('msg_floor', now, body),
};

await timeRatio(
  '(b) webhook channel send vs a bare fetch POST of the same signed body (local receiver)',
  undefined,
  async () => {
    const response = await fetch(url, { method: 'POST', headers, body });
    await response.body?.cancel();
  },
  () => hook.send(webhookNotification, signal),
  { rounds: 31, chunkMs: 50 },
);
receiver.closeAllConnections();
await new Promise<void>((resolve) => receiver.close(() => resolve()));
