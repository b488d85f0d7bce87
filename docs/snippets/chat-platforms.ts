import { createServer } from 'node:http';
import { createDiscordAdapter } from '@chat-adapter/discord';
import { createGoogleChatAdapter } from '@chat-adapter/gchat';
import { createMemoryState } from '@chat-adapter/state-memory';
import { createTeamsAdapter } from '@chat-adapter/teams';
import { getRequestListener } from '@hono/node-server';
import { createInteractionService } from 'ask-engine';
import { createChatProvider, verifyDiscordRequests } from 'ask-engine/chat';
import { createWebAnswerServer } from 'ask-engine/web';
import { type Adapter, Chat, type StateAdapter } from 'chat';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`Set ${name} (see docs/chat.md).`);
  return value;
};
const service = createInteractionService(); // in production a store the hosts share
const server = await createWebAnswerServer({
  service,
  secret: env('ANSWER_LINK_SECRET'), // 32 bytes or more, the same on every host
  baseUrl: 'https://asks.example.com',
});
// Each adapter is named as ask-engine's platform: discord, teams, gchat (and slack, telegram).
const adapters = {
  discord: createDiscordAdapter({
    publicKey: env('DISCORD_PUBLIC_KEY'),
    // The adapter checks Discord's signature but not its age: this checks both.
    webhookVerifier: verifyDiscordRequests({ publicKey: env('DISCORD_PUBLIC_KEY') }),
  }),
  teams: createTeamsAdapter({ appType: 'SingleTenant' }), // verifies the Bot Framework token
  gchat: createGoogleChatAdapter({
    endpointUrl: 'https://asks.example.com/chat/gchat', // clicks come back here
    googleChatProjectNumber: env('GOOGLE_CHAT_PROJECT_NUMBER'),
    credentials: {
      client_email: env('GOOGLE_CHAT_CLIENT_EMAIL'),
      private_key: env('GOOGLE_CHAT_KEY'),
    },
  }),
};
const chat = new Chat({
  userName: 'approvals',
  // The 4.41.0 adapters declare their types against their own copy of `chat`.
  adapters: adapters as unknown as Record<string, Adapter>,
  state: createMemoryState() as unknown as StateAdapter, // Redis or PostgreSQL across hosts
  logger: 'silent',
});
service.registerProvider(
  createChatProvider({
    chat,
    server,
    route: () => [
      { id: '80351110224678912', channel: 'discord', address: 'discord:1234:5678' },
      { id: 'users/112233445566778899', channel: 'gchat', address: 'gchat:spaces/AAAAdeploys' },
    ],
  }),
);
// Register https://asks.example.com/chat/<name> with each platform.
const webhooks = createServer(
  getRequestListener(async (request) => {
    const name = new URL(request.url).pathname.replace('/chat/', '');
    const webhook = chat.webhooks[name];
    return webhook === undefined
      ? new Response('Not found', { status: 404 })
      : webhook(request, { waitUntil: () => {} }); // the work it schedules still runs
  }),
);
webhooks.listen(8080);
