/** The email channel against a real SMTP server on loopback, through a real nodemailer transport. */
import {
  createEmailChannel,
  deliveryIdFor,
  type Notification,
  NotificationDeliveryError,
} from 'ask-engine/notify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AT, created, LINK, question } from './notifications.js';
import { type SmtpReceiver, smtpError, startSmtpReceiver } from './smtp-receiver.js';

let smtp: SmtpReceiver;
const signal = new AbortController().signal;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
});
afterAll(async () => {
  await smtp.close();
});
beforeEach(() => {
  smtp.received.length = 0;
  smtp.onRcptTo = async () => undefined;
});

function channel() {
  return createEmailChannel({
    transport: smtp.transport,
    from: 'Approvals <approvals@example.com>',
  });
}

describe('the email channel', () => {
  it('mails the question, its options and the recipient link in a text and an HTML part', async () => {
    await channel().send(created(), signal);

    expect(smtp.received).toHaveLength(1);
    const [{ mail, rcptTo }] = smtp.received as [(typeof smtp.received)[0]];
    expect(rcptTo).toEqual(['alice@example.com']);
    expect(mail.from?.value).toEqual([{ name: 'Approvals', address: 'approvals@example.com' }]);
    expect(mail.subject).toBe('Your answer is needed: Ship release 4.2 to production?');
    expect(mail.date?.getTime()).toBe(AT);
    expect(mail.headers.get('auto-submitted')).toBe('auto-generated');
    for (const part of [mail.text!, mail.html as string]) {
      expect(part).toContain('Ship release 4.2 to production?');
      expect(part).toContain('Ship it');
      expect(part).toContain('Wait for QA');
      expect(part).toContain('Please answer by 2026-12-01 19:00 UTC.');
      expect(part).toContain(
        'Opening the link only shows the form; nothing is decided until you submit it.',
      );
    }
    expect(mail.text).toContain(LINK);
    // In HTML the link's `&` is written `&amp;`, and the parsed href is the link itself.
    expect(mail.html).toContain(`href="${LINK.replace('&', '&amp;')}"`);
  });

  it('keeps one Message-ID per ask, recipient and step, and threads later mails under the first', async () => {
    const email = channel();
    const id = (kind: Notification['kind'], seq?: number) =>
      `<${deliveryIdFor('ask_1', 'alice', kind, seq)}@example.com>`;
    await email.send(created(), signal);
    await email.send(created(), signal);
    await email.send(created({ kind: 'reminded', seq: 1 } as Partial<Notification>), signal);
    await email.send(created({ kind: 'reminded', seq: 2 } as Partial<Notification>), signal);
    await email.send(
      created({ recipient: { id: 'bob', channel: 'email', address: 'bob@example.com' } }),
      signal,
    );

    const ids = smtp.received.map(({ mail }) => mail.messageId);
    expect(ids).toEqual([
      id('created'),
      id('created'),
      id('reminded', 1),
      id('reminded', 2),
      expect.any(String),
    ]);
    expect(ids[4]).not.toBe(ids[0]);
    expect(smtp.received[2]!.mail.inReplyTo).toBe(id('created'));
    expect(smtp.received[2]!.mail.subject).toBe(
      'Reminder 1: your answer is still needed: Ship release 4.2 to production?',
    );
    expect(smtp.received[0]!.mail.inReplyTo).toBeUndefined();
  });

  it('shows hostile question text as text: markup inert, control characters visible', async () => {
    const hostile = {
      ...question,
      header: 'Deploy\u202e',
      question: 'Ship <script>alert(1)</script> \u001b[31mnow\u001b[0m?',
      context: '<img src=x onerror=alert(2)>\nsecond line',
      options: [{ title: '<b>Yes</b>', description: 'a "quoted" & <i>styled</i> one' }],
    };
    await channel().send(created({ questions: [hostile] }), signal);

    const { mail, raw } = smtp.received[0]!;
    const htmlPart = mail.html as string;
    expect(htmlPart).not.toMatch(/<script|<img|<b>|<i>/);
    expect(htmlPart).toContain('Ship &lt;script&gt;alert(1)&lt;/script&gt; \\x1b[31mnow\\x1b[0m?');
    expect(htmlPart).toContain('&lt;img src=x onerror=alert(2)&gt;\nsecond line');
    expect(htmlPart).toContain('a &quot;quoted&quot; &amp; &lt;i&gt;styled&lt;/i&gt; one');
    expect(mail.text).toContain(
      '[Deploy\\u202e] Ship <script>alert(1)</script> \\x1b[31mnow\\x1b[0m?',
    );
    expect(mail.text).toContain('<img src=x onerror=alert(2)>\nsecond line');
    expect(mail.subject).toBe(
      'Your answer is needed: Ship <script>alert(1)</script> \\x1b[31mnow\\x1b[0m?',
    );
    // Nothing the model wrote reaches the mail as a raw control character or direction mark.
    const shown = `${mail.text}${htmlPart}${mail.subject}`;
    expect(['\u001b', '\u202e'].filter((mark) => shown.includes(mark))).toEqual([]);
    expect(raw).not.toMatch(/=1B/i);
  });

  it('keeps a question with line breaks out of the headers: no injected Bcc, no second recipient', async () => {
    const injected = {
      ...question,
      question: 'Ship?\r\nBcc: mallory@example.com\r\n\r\n<h1>pwned',
    };
    await channel().send(created({ questions: [injected] }), signal);

    const { mail, rcptTo, raw } = smtp.received[0]!;
    expect(rcptTo).toEqual(['alice@example.com']);
    expect(mail.bcc).toBeUndefined();
    const headers = raw.slice(0, raw.indexOf('\r\n\r\n'));
    expect(headers).not.toMatch(/^bcc:/im);
    expect(headers).toMatch(/^subject: .*Ship\? Bcc: mallory/im);
    expect(mail.subject).toBe('Your answer is needed: Ship? Bcc: mallory@example.com <h1>pwned');
  });

  it('refuses a recipient address that is not one plain address, and sends nothing', async () => {
    const email = channel();
    for (const [address, refusal] of [
      ['alice@example.com\r\nBcc: mallory@example.com', /printable ASCII.*U\+000D at position 18/],
      ['alice@example.com, mallory@example.com', /printable ASCII.*U\+0020 at position 19/],
      ['alice@example.com,mallory@example.com', /one plain mail address/],
      ['Alice<alice@example.com>', /one plain mail address/],
      ['alice', /one plain mail address/],
    ] as const) {
      await expect(
        email.send(created({ recipient: { id: 'alice', channel: 'email', address } }), signal),
      ).rejects.toThrow(refusal);
      expect(() => email.checkAddress?.(address)).toThrow(refusal);
    }
    expect(smtp.received).toHaveLength(0);
  });

  it('refuses a sender with a line break or no address when it is created', () => {
    const transport = smtp.transport;
    expect(() =>
      createEmailChannel({ transport, from: 'Approvals\r\nBcc: x@example.com <a@example.com>' }),
    ).toThrow(/display name to be text without control characters/);
    expect(() =>
      createEmailChannel({ transport, from: { name: 'Ops', address: 'a@example.com\n' } }),
    ).toThrow(/`from.address` to be a mail address in printable ASCII, got "a@example.com\\n"/);
    expect(() => createEmailChannel({ transport, from: 'nobody' })).toThrow(
      /`from` to be one plain mail address/,
    );
    expect(() => createEmailChannel({ transport: {} as never, from: 'a@example.com' })).toThrow(
      /sendMail method/,
    );
  });

  it('tells the other recipients who answered and when, and never carries the answers', async () => {
    const settled = {
      ...created(),
      kind: 'settled',
      recipient: { id: 'bob', channel: 'email', address: 'bob@example.com' },
      outcome: {
        status: 'answered',
        at: AT + 60_000,
        answeredBy: { recipient: 'alice', channel: 'email' },
      },
    } as Notification;
    await channel().send(settled, signal);

    const { mail } = smtp.received[0]!;
    expect(mail.subject).toBe('Answered: Ship release 4.2 to production?');
    expect(mail.text).toContain('Answered by alice (via email) on 2026-12-01 18:01 UTC.');
    expect(mail.text).toContain('See the outcome:');
    expect(mail.text).not.toContain('Opening the link only shows the form');
    expect(mail.inReplyTo).toBe(`<${deliveryIdFor('ask_1', 'bob', 'created')}@example.com>`);

    const withAnswers = {
      ...settled,
      outcome: { status: 'answered', at: AT, answers: { deploy: 'Ship it' } },
    };
    await expect(channel().send(withAnswers as Notification, signal)).rejects.toThrow(
      /settled notification at `outcome\.answers`: Unexpected property/,
    );
    expect(smtp.received).toHaveLength(1);
  });

  it('fails for good on an SMTP 5xx refusal and retryably on a 4xx one', async () => {
    smtp.onRcptTo = async () => smtpError(550, 'No such user');
    const permanent = await channel()
      .send(created(), signal)
      .catch((error: unknown) => error);
    expect(permanent).toBeInstanceOf(NotificationDeliveryError);
    expect(permanent).toMatchObject({
      channel: 'email',
      deliveryId: deliveryIdFor('ask_1', 'alice', 'created'),
      retryable: false,
      status: 550,
      attempts: 1,
    });

    smtp.onRcptTo = async () => smtpError(451, 'Try again later');
    const transient = await channel()
      .send(created(), signal)
      .catch((error: unknown) => error);
    expect(transient).toMatchObject({ retryable: true, status: 451 });
    expect(smtp.received).toHaveLength(0);
  });

  it('stops waiting for the SMTP server once the signal aborts, with the signal reason', async () => {
    let arrived!: () => void;
    const atRcpt = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    // The server holds the RCPT TO answer until after the abort.
    let release!: () => void;
    smtp.onRcptTo = () =>
      new Promise((resolve) => {
        arrived();
        release = () => resolve(smtpError(451, 'gone'));
      });
    const controller = new AbortController();
    const sending = channel().send(created(), controller.signal);
    await atRcpt;
    const reason = new Error('shutting down');
    controller.abort(reason);
    await expect(sending).rejects.toBe(reason);
    release();

    const already = AbortSignal.abort(new Error('already stopped'));
    await expect(channel().send(created(), already)).rejects.toThrow('already stopped');
    expect(smtp.received).toHaveLength(0);
  });

  it('sends under its own name and sender, with text in any script intact', async () => {
    const email = createEmailChannel({
      transport: smtp.transport,
      from: { name: 'Équipe Ops', address: 'ops@example.org' },
      name: 'mail-eu',
    });
    const unicode = { ...question, question: 'Déployer la version 4.2 ? 🚀 日本語' };
    await email.send(
      created({
        questions: [unicode],
        recipient: { id: 'zoé', channel: 'mail-eu', address: 'zoe@example.org' },
      }),
      signal,
    );

    const { mail } = smtp.received[0]!;
    expect(email.name).toBe('mail-eu');
    expect(mail.from?.value).toEqual([{ name: 'Équipe Ops', address: 'ops@example.org' }]);
    expect(mail.subject).toBe('Your answer is needed: Déployer la version 4.2 ? 🚀 日本語');
    expect(mail.text).toContain('Déployer la version 4.2 ? 🚀 日本語');
    expect(mail.messageId).toBe(`<${deliveryIdFor('ask_1', 'zoé', 'created')}@example.org>`);
  });

  it('refuses a notification meant for another channel', async () => {
    const forWebhook = created({ recipient: { id: 'ops', channel: 'webhook', address: 'ops' } });
    await expect(channel().send(forWebhook, signal)).rejects.toThrow(
      /Notification for channel "webhook" was sent through channel "email"/,
    );
  });
});
