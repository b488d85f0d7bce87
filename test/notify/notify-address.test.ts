/**
 * A mail address a transport would rewrite or pass on raw (a control or direction character, a
 * non-ASCII look-alike) is refused where the route names it: the ask ends with an error naming
 * the address, shown with its invisible characters escaped, and nothing is written or sent.
 * Real SMTP behind nodemailer, so what would have been delivered is what a server receives.
 */
import { createInteractionService, createMemoryAskStore } from 'ask-engine';
import { createEmailChannel, createNotifyProvider } from 'ask-engine/notify';
import { createWebAnswerServer } from 'ask-engine/web';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { type SmtpReceiver, startSmtpReceiver } from './smtp-receiver.js';

let smtp: SmtpReceiver;
beforeAll(async () => {
  smtp = await startSmtpReceiver();
});
afterAll(async () => {
  await smtp.close();
});
beforeEach(() => {
  smtp.received.length = 0;
});

/** One service and notify provider whose route names `address` for alice. */
async function askAlice(address: string) {
  const store = createMemoryAskStore();
  const service = createInteractionService({ store });
  const server = await createWebAnswerServer({ service, secret: 'm'.repeat(32) });
  const provider = createNotifyProvider({
    server,
    channels: [createEmailChannel({ transport: smtp.transport, from: 'approvals@example.com' })],
    route: () => [{ id: 'alice', channel: 'email', address }],
    onError: () => {},
  });
  service.registerProvider(provider);
  try {
    const handle = service.start({ questions: [{ question: 'Pay?', options: ['Yes', 'No'] }] });
    const outcome = await handle.outcome;
    // Whatever was due is sent (or refused by the server) by the time this resolves.
    await provider.flush();
    const history = [];
    for await (const event of service.history(handle.id)) history.push(event.type);
    return { outcome, history };
  } finally {
    await provider.close();
    await service.close();
    await server.close();
  }
}

const refused: [string, string, RegExp][] = [
  ['a NUL', 'alice\u0000@example.com', /"alice\\u0000@example\.com": U\+0000 at position 6/],
  [
    'an ESC',
    '\u001b[31malice@example.com',
    /"\\u001b\[31malice@example\.com": U\+001B at position 1/,
  ],
  [
    'a right-to-left override',
    'alice@moc.elpmaxe\u202e',
    /"alice@moc\.elpmaxe\\u202e": U\+202E at position 18/,
  ],
  ['a zero-width space', 'alice@exam\u200bple.com', /U\+200B at position 11/],
  [
    'a Cyrillic look-alike in the domain',
    'alice@ex\u0430mple.com',
    /U\+0430 \("\u0430"\) at position 9/,
  ],
  [
    'a Cyrillic look-alike in the local part',
    '\u0430lice@example.com',
    /U\+0430 \("\u0430"\) at position 1/,
  ],
  ['a full-width at sign', 'alice\uff20example.com', /U\+FF20 \("\uff20"\) at position 6/],
];

it.each(refused)(
  'refuses an address with %s at the route, and sends nothing',
  async (_, address, named) => {
    const { outcome, history } = await askAlice(address);
    expect(outcome).toMatchObject({ status: 'cancelled', reason: 'provider-error' });
    const message = outcome.status === 'cancelled' ? outcome.message : '';
    expect(message).toMatch(
      /`route` named recipient "alice" with an address the "email" channel refuses/,
    );
    expect(message).toMatch(named);
    expect(message).toMatch(/only ASCII/);
    // No raw control or direction character in the message itself.
    expect(message).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    expect(history).not.toContain('provider.deferred');
    expect(smtp.received).toEqual([]);
  },
);

it('still mails a plain address, and an internationalized domain given in ASCII (punycode)', async () => {
  for (const address of ['alice@example.com', 'alice@xn--bcher-kva.example']) {
    const { outcome, history } = await askAlice(address);
    expect(outcome).toMatchObject({ status: 'deferred' });
    expect(history).toContain('notified');
  }
  // The server shows a punycode domain decoded; the mail's header has it as given.
  expect(smtp.received.map((mail) => mail.rcptTo)).toEqual([
    ['alice@example.com'],
    ['alice@bücher.example'],
  ]);
  expect(smtp.received[1]?.raw).toMatch(/^To: alice@xn--bcher-kva\.example\r$/m);
});
