/**
 * The chat provider on Telegram: the real Chat SDK and Telegram adapter over a local fake of the
 * Bot API, button presses as webhook updates carrying the secret token.
 */
import { createTelegramAdapter } from '@chat-adapter/telegram';
import { type AskAuditEvent, createInteractionService } from 'ask-engine';
import { createChatProvider } from 'ask-engine/chat';
import { createWebAnswerServer } from 'ask-engine/web';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../support/until.js';
import { chatWith, deliver, silentLogger } from './chat-fixture.js';
import {
  callbackUpdate,
  type FakeTelegram,
  startFakeTelegram,
  telegramRequest,
} from './fake-telegram.js';

const SECRET_TOKEN = 'telegram-secret-token-for-tests';
const GROUP = -1_001_234;
const ALICE = 4_242;
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(address = `telegram:${GROUP}`) {
  const telegram = await startFakeTelegram();
  cleanups.push(() => telegram.close());
  const service = createInteractionService();
  cleanups.push(() => service.close());
  const server = await createWebAnswerServer({ service, secret: 't'.repeat(32) });
  cleanups.push(() => server.close());
  const chat = chatWith({
    telegram: createTelegramAdapter({
      botToken: '123:test-token',
      secretToken: SECRET_TOKEN,
      apiUrl: telegram.apiUrl,
      mode: 'webhook',
      logger: silentLogger,
    }),
  });
  const provider = createChatProvider({
    chat,
    server,
    route: () => [{ id: String(ALICE), channel: 'telegram', address }],
    delivery: { pollMs: 50 },
  });
  cleanups.push(() => provider.close());
  service.registerProvider(provider);
  const press = (user: number, data: string, secret: string | null = SECRET_TOKEN) => {
    const card = telegram.callsOf('sendMessage')[0]?.result as { message_id: number };
    return deliver(
      chat,
      'telegram',
      telegramRequest(callbackUpdate(user, GROUP, card.message_id, data), secret ?? undefined),
    );
  };
  return { telegram, service, press, chat };
}

async function sent(service: ReturnType<typeof createInteractionService>, askId: string) {
  for await (const event of service.history(askId)) if (event.type === 'notified') return true;
  return false;
}

async function history(service: ReturnType<typeof createInteractionService>, askId: string) {
  const events: AskAuditEvent[] = [];
  for await (const event of service.history(askId)) events.push(event);
  return events;
}

/** The card's inline buttons: label and callback data. */
function keyboardOf(
  telegram: FakeTelegram,
): { text: string; callback_data?: string; url?: string }[] {
  const markup = telegram.callsOf('sendMessage')[0]?.args.reply_markup as {
    inline_keyboard: { text: string; callback_data?: string; url?: string }[][];
  };
  return markup.inline_keyboard.flat();
}

describe('the chat provider on Telegram', () => {
  it('posts an inline keyboard whose callback data fits 64 bytes and settles from a verified press', async () => {
    const { telegram, service, press } = await setUp();
    const handle = service.start({
      questions: [{ question: 'Restart the worker pool?', options: ['Restart', 'Leave it'] }],
    });
    await until(() => telegram.callsOf('sendMessage')[0], 'the card');
    await until(() => sent(service, handle.id), 'the card recorded as sent');
    const keyboard = keyboardOf(telegram);
    // A group's card has no personal web link.
    expect(keyboard.map((button) => button.text)).toEqual(['Restart', 'Leave it']);
    for (const button of keyboard.filter((b) => b.callback_data !== undefined)) {
      expect(Buffer.byteLength(button.callback_data as string)).toBeLessThanOrEqual(64);
      expect(button.callback_data).not.toContain(handle.id);
    }
    const restart = keyboard[0]?.callback_data as string;

    // A press without the secret token, or with another, changes nothing.
    expect((await press(ALICE, restart, null)).status).toBe(401);
    expect((await press(ALICE, restart, 'not-the-secret')).status).toBe(401);
    expect((await service.get(handle.id))?.state).toBe('deferred');
    expect(telegram.callsOf('answerCallbackQuery')).toHaveLength(0);

    expect((await press(ALICE, restart)).status).toBe(200);
    expect(await service.outcome(handle.id)).toMatchObject({
      status: 'answered',
      answers: [{ response: { selections: ['Restart'] } }],
      answeredBy: { recipient: String(ALICE), channel: 'telegram' },
    });
    expect(telegram.callsOf('answerCallbackQuery')).toHaveLength(1);
    const edit = await until(() => telegram.callsOf('editMessageText')[0], 'the card edited');
    expect(String(edit.args.text)).toContain(`Answered by ${ALICE} \\(telegram\\)`);
    expect(edit.args.reply_markup).toEqual({ inline_keyboard: [] });
  });

  it('escapes hostile model text so Telegram shows it as written', async () => {
    const { telegram, service } = await setUp();
    service.start({
      questions: [
        {
          question: '*all* _of_ [this](https://evil.example) `is` ~text~ {{emoji:fire}} <b>x</b>',
          options: ['{{emoji:rocket}} Go', 'No'],
        },
      ],
    });
    const post = await until(() => telegram.callsOf('sendMessage')[0], 'the card');
    const text = String(post.args.text);
    expect(post.args.parse_mode).toBe('MarkdownV2');
    // Every MarkdownV2 marker of the model's text arrives escaped: nothing formats, and the
    // only link is the bare URL the adapter's GFM links to itself, shown as written.
    expect(text).toContain('\\*all\\* \\_of\\_ \\[this\\]\\(');
    expect(text).toContain('\\) \\`is\\` \\~text\\~ \\{\\{emoji:fire\\}\\}');
    const links = [...text.matchAll(/(?<!\\)\[(.*?)(?<!\\)\]\((.*?)\)/g)];
    expect(links.map(([, label, url]) => [label?.replace(/\\(.)/g, '$1'), url])).toEqual([
      ['https://evil.example', 'https://evil.example'],
    ]);
    expect(text).not.toContain('🔥');
    expect(text).toContain('<b\\>x</b\\>');
    expect(keyboardOf(telegram)[0]?.text).toBe('{\u2060{emoji:rocket}} Go');
  });

  it('tells a person the ask was not sent to that their press changed nothing', async () => {
    const { telegram, service, press } = await setUp();
    const handle = service.start({ questions: [{ question: 'Ship?', options: ['Yes', 'No'] }] });
    await until(() => sent(service, handle.id), 'the card recorded as sent');
    await press(9_999, keyboardOf(telegram)[0]?.callback_data as string);
    const told = await until(
      () =>
        telegram
          .callsOf('sendMessage')
          .find((call) => call.args.chat_id === '9999' || call.args.chat_id === 9999),
      'the refusal in a direct message',
    );
    expect(String(told.args.text)).toContain(
      'Only the people this question was sent to can answer it',
    );
    expect((await service.get(handle.id))?.state).toBe('deferred');
    expect((await history(service, handle.id)).some((e) => e.type === 'answer')).toBe(false);
  });

  it('settles once when Telegram delivers the same update twice', async () => {
    const { telegram, service, chat } = await setUp();
    const handle = service.start({ questions: [{ question: 'Ship?', options: ['Yes', 'No'] }] });
    await until(() => sent(service, handle.id), 'the card recorded as sent');
    const card = telegram.callsOf('sendMessage')[0]?.result as { message_id: number };
    const update = callbackUpdate(
      ALICE,
      GROUP,
      card.message_id,
      keyboardOf(telegram)[1]?.callback_data as string,
    );
    await Promise.all([
      deliver(chat, 'telegram', telegramRequest(update, SECRET_TOKEN)),
      deliver(chat, 'telegram', telegramRequest(update, SECRET_TOKEN)),
    ]);
    expect(await service.outcome(handle.id)).toMatchObject({
      answers: [{ response: { selections: ['No'] } }],
    });
    expect((await history(service, handle.id)).filter((e) => e.type === 'answer')).toHaveLength(1);
    expect(telegram.callsOf('answerCallbackQuery')).toHaveLength(1);
  });

  it('sends a typed answer to the web page, since Telegram has no modal, and says why', async () => {
    const { telegram, service } = await setUp(`telegram:${ALICE}`);
    service.start({ questions: [{ question: 'What went wrong?' }] });
    const post = await until(() => telegram.callsOf('sendMessage')[0], 'the card');
    expect(String(post.args.text)).toContain(
      'This question wants a typed answer, which telegram cards cannot take',
    );
    expect(keyboardOf(telegram)).toEqual([
      {
        text: 'Answer on the web page',
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/a\//),
      },
    ]);
  });
});
