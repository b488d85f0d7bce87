/** A real SMTP server on loopback that parses what it receives, and a nodemailer transport to it. */
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';

export interface ReceivedMail {
  mail: ParsedMail;
  /** The envelope's recipients: who the SMTP server was really asked to deliver to. */
  rcptTo: string[];
  raw: string;
}

export interface SmtpReceiver {
  received: ReceivedMail[];
  /** Decides the SMTP answer to each RCPT TO; resolve an error with `responseCode` to refuse. */
  onRcptTo: (address: SMTPServerAddress) => Promise<Error | undefined>;
  /**
   * When true, each mail is recorded but never acknowledged: its sender waits for the answer
   * to DATA for ever, as a send under way when its process dies.
   */
  hold: boolean;
  /** When set, each mail is recorded at once and its DATA answered once this settles. */
  holdUntil: Promise<unknown> | undefined;
  /** Resolves once `count` mails were received (recorded, answered or not). */
  arrived(count: number): Promise<void>;
  transport: ReturnType<typeof nodemailer.createTransport>;
  /** The server as an `smtp://` URL, for a program that makes its own transport. */
  url: string;
  close(): Promise<void>;
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const received: ReceivedMail[] = [];
  const receiver = {
    received,
    hold: false,
    holdUntil: undefined,
    onRcptTo: async () => undefined,
  } as unknown as SmtpReceiver;
  const waiting = new Set<{ count: number; resolve: () => void }>();
  receiver.arrived = (count) =>
    received.length >= count
      ? Promise.resolve()
      : new Promise((resolve) => waiting.add({ count, resolve }));
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      receiver.onRcptTo(address).then((error) => callback(error ?? null), callback);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw).then((mail) => {
          received.push({ mail, raw, rcptTo: session.envelope.rcptTo.map((to) => to.address) });
          for (const waiter of waiting) {
            if (received.length < waiter.count) continue;
            waiting.delete(waiter);
            waiter.resolve();
          }
          if (receiver.hold) return;
          if (receiver.holdUntil === undefined) callback();
          else receiver.holdUntil.then(() => callback(), callback);
        }, callback);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  receiver.transport = nodemailer.createTransport({ host: '127.0.0.1', port, ignoreTLS: true });
  receiver.url = `smtp://127.0.0.1:${port}`;
  receiver.close = async () => {
    receiver.transport.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}

/** An SMTP refusal as smtp-server sends it: the code is the reply's first three digits. */
export function smtpError(responseCode: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode });
}
