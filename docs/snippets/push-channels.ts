import { randomBytes } from 'node:crypto';
import { createInteractionService } from 'ask-engine';
import { createNotifyProvider, createNtfyChannel, createWebPushChannel } from 'ask-engine/notify';
import { createWebAnswerServer } from 'ask-engine/web';
import webPush from 'web-push';

const service = createInteractionService();
const server = await createWebAnswerServer({ service, secret: randomBytes(32) });

const ntfy = createNtfyChannel({
  server: process.env.NTFY_URL ?? 'https://ntfy.sh',
  answers: server, // its signed one-tap URLs become the message's buttons
  token: process.env.NTFY_TOKEN, // an access token (tk_…) for a protected topic, if it needs one
});
// Make the keys once (`npx web-push generate-vapid-keys`) and keep them: browsers subscribe
// with the public one. Fresh ones here only so that the example runs as it is.
const keys =
  process.env.VAPID_PRIVATE_KEY === undefined
    ? webPush.generateVAPIDKeys()
    : { publicKey: process.env.VAPID_PUBLIC_KEY ?? '', privateKey: process.env.VAPID_PRIVATE_KEY };
const push = createWebPushChannel({ vapid: { subject: 'mailto:ops@example.com', ...keys } });

// Bob's browser subscription, as his page POSTed JSON.stringify(subscription) to your server.
const bobsSubscription = process.env.WEB_PUSH_SUBSCRIPTION;
const provider = createNotifyProvider({
  server,
  channels: [ntfy, push],
  route: () => [
    { id: 'alice', channel: 'ntfy', address: 'alice-approvals-7c41d9e2' }, // her ntfy topic
    ...(bobsSubscription === undefined
      ? []
      : [{ id: 'bob', channel: 'web-push', address: bobsSubscription }]),
  ],
});
service.registerProvider(provider);

const handle = service.start({ question: 'Deploy release 4.2?', options: ['Deploy', 'Hold'] });
console.log((await handle.outcome).status); // 'deferred': a button or a link answers
await provider.flush(); // sends what is due now (it also runs by itself)
console.log('sent');
await provider.close();
await service.close();
await server.close();
