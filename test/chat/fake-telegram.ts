/**
 * A local stand-in for Telegram's Bot API (the adapter's `apiUrl` points here) that records every
 * call, and updates delivered as Telegram delivers them, with the webhook's secret token header.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One Bot API call: the method and its JSON arguments. */
export interface TelegramCall {
  method: string;
  args: Record<string, unknown>;
  result: unknown;
}

export interface FakeTelegram {
  apiUrl: string;
  calls: TelegramCall[];
  callsOf(method: string): TelegramCall[];
  close(): Promise<void>;
}

/** The bot's own user id, as `getMe` reports it. */
export const BOT_ID = 7_000_001;

export async function startFakeTelegram(): Promise<FakeTelegram> {
  const calls: TelegramCall[] = [];
  let messageId = 100;
  const server = createServer(async (request, response) => {
    const method = (request.url ?? '').split('/').pop() as string;
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const args = body === '' ? {} : (JSON.parse(body) as Record<string, unknown>);
    const result = reply(method, args, () => messageId++);
    calls.push({ method, args, result });
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ ok: true, result }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    apiUrl: `http://127.0.0.1:${port}`,
    calls,
    callsOf: (method) => calls.filter((call) => call.method === method),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function reply(method: string, args: Record<string, unknown>, nextId: () => number): unknown {
  const chat = { id: Number(args.chat_id), type: Number(args.chat_id) < 0 ? 'group' : 'private' };
  const from = { id: BOT_ID, is_bot: true, first_name: 'Approvals', username: 'approvals_bot' };
  switch (method) {
    case 'getMe':
      return from;
    case 'sendMessage':
      return { message_id: nextId(), from, chat, date: 1_765_000_000, text: args.text };
    case 'editMessageText':
      return { message_id: args.message_id, from, chat, date: 1_765_000_000, text: args.text };
    default:
      return true;
  }
}

let updateId = 1;

/** A webhook update: `user` pressed the inline button with `data` on message `messageId` in `chatId`. */
export function callbackUpdate(user: number, chatId: number, messageId: number, data: string) {
  return {
    update_id: updateId++,
    callback_query: {
      id: `cq-${updateId}`,
      from: { id: user, is_bot: false, first_name: `User ${user}` },
      chat_instance: 'ci-1',
      data,
      message: {
        message_id: messageId,
        chat: { id: chatId, type: chatId < 0 ? 'group' : 'private' },
        date: 1_765_000_000,
        from: { id: BOT_ID, is_bot: true, first_name: 'Approvals' },
        text: 'card',
      },
    },
  };
}

/** The update as Telegram posts it to the webhook, with `secret` as its token header (if any). */
export function telegramRequest(update: unknown, secret: string | undefined): Request {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (secret !== undefined) headers['x-telegram-bot-api-secret-token'] = secret;
  return new Request('http://bot.test/telegram', {
    method: 'POST',
    headers,
    body: JSON.stringify(update),
  });
}
