import { normalizeAskUserRequest } from 'ask-engine';
import { createEmailChannel, createWebhookChannel, type Notification } from 'ask-engine/notify';
import nodemailer from 'nodemailer';

const email = createEmailChannel({
  transport: nodemailer.createTransport(process.env.SMTP_URL ?? 'smtp://smtp.example.com:587'),
  from: 'approvals@example.com',
});
const hook = createWebhookChannel({
  url: process.env.WEBHOOK_URL ?? 'https://hooks.example.com/ask',
  secret: process.env.WEBHOOK_SECRET ?? 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', // 'whsec_' + base64
});

const normalized = normalizeAskUserRequest({ question: 'Deploy now?', options: ['Yes', 'No'] });
if (!normalized.ok) throw normalized.error; // names what is wrong with the request
const { questions } = normalized.value;
const created: Notification = {
  kind: 'created', // or 'reminded' / 'escalated' (with seq: 1, 2, ...) or 'settled' (with outcome)
  askId: 'ask-7',
  at: Date.now(),
  questions, // the normalized questions of the ask
  recipient: { id: 'alice', channel: 'email', address: 'alice@example.com' },
  link: 'https://asks.example.com/a/ask-7?t=signed', // the recipient's own signed link
};
await email.send(created, AbortSignal.timeout(30_000));
await hook.send(
  { ...created, recipient: { id: 'ops', channel: 'webhook', address: 'ops' } },
  AbortSignal.timeout(30_000),
);
console.log('sent: one mail, one signed webhook');
