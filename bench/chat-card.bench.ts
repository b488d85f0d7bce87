/**
 * An ask posted to a chat card and settled from a signed click, against the Chat SDK doing the
 * same without ask-engine, both on the real Discord adapter over a local fake of Discord's API
 * (loopback HTTP):
 * - subject: `service.start` through `createChatProvider` (the card goes out through the outbox
 *   and is recorded as sent), a click signed with Ed25519 as Discord signs it delivered to
 *   `chat.webhooks.discord`, the ask answered as that Discord user, the card edited to say so;
 * - floor: the Chat SDK posting the same card (`chat.channel(...).post`; a card in a shared
 *   channel carries no web link), the same signed click delivered to its webhook, an `onAction`
 *   handler editing the card to the same settled text.
 * Both verify the signature with `verifyDiscordRequests`. Goal <= 1.5x.
 */
import { createDiscordAdapter } from '@chat-adapter/discord';
import { Actions, Button, Card, CardText, type Chat, ConsoleLogger } from 'chat';
import { createChatProvider } from '../src/chat/chat-provider.js';
import { verifyDiscordRequests } from '../src/chat/platforms/discord-request.js';
import { createInteractionService } from '../src/engine/service.js';
import { createWebAnswerServer } from '../src/web/answer-server.js';
import { chatWith, deliver } from '../test/chat/chat-fixture.js';
import { startFakeDiscordApi } from '../test/support/fake-discord-api.js';
import { timeRatio } from './ratio.js';

const discord = await startFakeDiscordApi();
const silent = new ConsoleLogger('silent');
const ALICE = '80351110224678912';
const ADDRESS = 'discord:G1:C1';

/** A Chat SDK instance on the Discord adapter. */
function discordChat(): Chat {
  return chatWith({
    discord: createDiscordAdapter({
      apiUrl: discord.apiUrl,
      applicationId: 'bench-application',
      botToken: 'bench-bot-token',
      publicKey: discord.publicKey,
      webhookVerifier: verifyDiscordRequests({ publicKey: discord.publicKey }),
      logger: silent,
    }),
  });
}

/** Delivers a click on `messageId` by Alice, signed now, and waits for what it scheduled. */
async function click(chat: Chat, messageId: string, customId: string): Promise<void> {
  const request = discord.click({
    userId: ALICE,
    guildId: 'G1',
    channelId: 'C1',
    messageId,
    customId,
  });
  const response = await deliver(chat, 'discord', request);
  if (response.status !== 200) throw new Error(`the click was answered ${response.status}`);
}

/** The last message the fake created: its id and the `custom_id` of its first button. */
function lastCard(): { id: string; customId: string } {
  const call = discord.posted().at(-1);
  const body = call?.body as { components?: { components: { custom_id?: string }[] }[] };
  const customId = body.components?.[0]?.components[0]?.custom_id;
  const id = (call?.answer?.body as { id?: string } | undefined)?.id;
  if (id === undefined || customId === undefined) throw new Error('no card was posted');
  return { id, customId };
}

// The subject: ask-engine's chat provider.
const service = createInteractionService();
const server = await createWebAnswerServer({ service, secret: 'b'.repeat(32) });
const subjectChat = discordChat();
const provider = createChatProvider({
  chat: subjectChat,
  server,
  route: () => [{ id: ALICE, channel: 'discord', address: ADDRESS }],
});
service.registerProvider(provider);
const question = {
  questions: [
    { question: 'Deploy v2 to production?', header: 'Deploy', options: ['Ship', 'Hold'] },
  ],
};

async function subject(): Promise<void> {
  const handle = service.start(question);
  await handle.outcome;
  await provider.flush();
  const card = lastCard();
  await click(subjectChat, card.id, card.customId);
  const outcome = await service.outcome(handle.id);
  if (outcome.status !== 'answered') throw new Error(`the ask ended ${outcome.status}`);
  await provider.flush();
  discord.calls.length = 0;
}

// The floor: the Chat SDK alone, the same card and the same settled text.
const floorChat = discordChat();
floorChat.onAction('ask-engine', async (event) => {
  await event.adapter.editMessage(
    event.threadId,
    event.messageId,
    Card({
      children: [
        CardText('Deploy', { style: 'bold' }),
        CardText('Deploy v2 to production\\?'),
        CardText(
          `Answered by ${event.user.userId} \\(discord\\) at ${new Date().toISOString()}\\.`,
        ),
      ],
    }),
  );
});
await floorChat.initialize();

async function floor(): Promise<void> {
  await floorChat.channel(ADDRESS).post(
    Card({
      children: [
        CardText('Deploy', { style: 'bold' }),
        CardText('Deploy v2 to production\\?'),
        Actions([
          Button({ id: 'ask-engine', label: 'Ship', value: 'AAAAAAAAAAAAAAAA.o1' }),
          Button({ id: 'ask-engine', label: 'Hold', value: 'AAAAAAAAAAAAAAAA.o2' }),
        ]),
      ],
    }),
  );
  const card = lastCard();
  await click(floorChat, card.id, card.customId);
  discord.calls.length = 0;
}

await timeRatio(
  'chat card: an ask posted as a Discord card and settled from a signed click (card edited) vs the Chat SDK posting the same card and editing it from the same click (local fake)',
  1.5,
  floor,
  subject,
  { rounds: 21, chunkMs: 50 },
);

await provider.close();
await server.close();
await service.close();
await discord.close();
