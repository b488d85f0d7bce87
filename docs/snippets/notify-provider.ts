import { randomBytes } from 'node:crypto';
import { createInteractionService, createMemoryAskStore } from 'ask-engine';
import { createEmailChannel, createNotifyProvider, type EmailMessage } from 'ask-engine/notify';
import { createWebAnswerServer } from 'ask-engine/web';

const mails: EmailMessage[] = []; // a nodemailer transport in production
const store = createMemoryAskStore(); // or the SQLite / PostgreSQL store the service uses
const service = createInteractionService({ store });
const server = await createWebAnswerServer({ service, secret: randomBytes(32) });
const hour = 3_600_000;
const provider = createNotifyProvider({
  server,
  channels: [
    createEmailChannel({
      transport: { sendMail: async (mail) => void mails.push(mail) },
      from: 'approvals@example.com',
    }),
  ],
  route: () => [{ id: 'alice', channel: 'email', address: 'alice@example.com' }],
  reminders: { afterMs: hour, everyMs: hour, max: 3 },
  escalation: [
    {
      afterMs: 4 * hour,
      route: () => [{ id: 'lead', channel: 'email', address: 'lead@example.com' }],
    },
  ],
});
service.registerProvider(provider);

const handle = service.start(
  { question: 'Deploy now?', options: ['Yes', 'No'] },
  { timeoutMs: 8 * hour },
);
console.log((await handle.outcome).status); // 'deferred': the answer comes through alice's link
await provider.flush(); // sends what is due now (it also runs by itself)
console.log(mails.map((mail) => `${mail.to} ${mail.subject}`));
// The final outcome, whichever host records alice's answer (here: as her link would).
const final = service.outcome(handle.id, { signal: AbortSignal.timeout(8 * hour) });
await service.answer(
  handle.id,
  [{ questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } }],
  {
    by: { recipient: 'alice', channel: 'email' },
  },
);
console.log((await final).status); // 'answered'
await provider.close();
await service.close();
await server.close();
