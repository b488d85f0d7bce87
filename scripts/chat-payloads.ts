/**
 * The payloads docs/chat.md shows, made the way a person gets them: an ask posted through
 * `createChatProvider` by the real Discord, Teams and Google Chat adapters to local fakes of
 * their APIs, clicked, and edited once settled; then a click on the settled card, refused. The
 * JSON each platform received is written to docs/snippets/chat-<platform>-<moment>.json, with
 * only what changes from run to run (ids, the link's token, the time) replaced by a stand-in.
 * test/chat/platforms/doc-payloads.test.ts makes them again and requires the files to match.
 *
 * Run: `npx tsx scripts/chat-payloads.ts && npm run docs:snippets`.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cardReferenceFor } from '../src/chat/card-reference.js';
import { createChatProvider } from '../src/chat/chat-provider.js';
import { createInteractionService } from '../src/engine/service.js';
import { createWebAnswerServer } from '../src/web/answer-server.js';
import { chatWith, deliver } from '../test/chat/chat-fixture.js';
import {
  PLATFORM_DRIVERS,
  type PlatformDriver,
  type ShownCard,
} from '../test/chat/platforms/platform-drivers.js';

/** The moments a person sees, in the order they happen. */
export const PAYLOAD_MOMENTS = ['open', 'settled', 'refused'] as const;

/** The file of one platform's payload at one moment. */
export function payloadFile(platform: string, moment: (typeof PAYLOAD_MOMENTS)[number]): string {
  return `docs/snippets/chat-${platform}-${moment}.json`;
}

/** Every payload file and its text, for every platform and moment. */
export async function chatPayloads(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const [name, start] of PLATFORM_DRIVERS) {
    const driver = await start();
    try {
      const shown = await payloadsOf(driver);
      for (const moment of PAYLOAD_MOMENTS) {
        files.set(payloadFile(name, moment), `${JSON.stringify(shown[moment], null, 2)}\n`);
      }
    } finally {
      await driver.close();
    }
  }
  return files;
}

async function payloadsOf(driver: PlatformDriver): Promise<Record<string, unknown>> {
  const service = createInteractionService();
  const server = await createWebAnswerServer({
    service,
    secret: 'd'.repeat(32),
    baseUrl: 'https://asks.example.com',
  });
  const chat = chatWith({ [driver.name]: driver.adapter });
  const [alice] = driver.users;
  const provider = createChatProvider({
    chat,
    server,
    route: () => [driver.recipient(alice)],
    delivery: { pollMs: 3_600_000 },
  });
  service.registerProvider(provider);
  try {
    const handle = service.start({
      questions: [
        {
          header: 'Deploy',
          question: 'Deploy v2.4.1 to production?',
          context: 'The canary has run for 30 minutes with no errors.',
          options: [{ title: 'Ship', description: 'Roll out to every region' }, { title: 'Hold' }],
        },
      ],
    });
    await handle.outcome;
    await provider.flush();
    const open = driver.cards()[0] as ShownCard;
    const ship = open.buttons.find((button) => button.label === 'Ship')?.value as string;
    await deliver(chat, driver.name, driver.click(alice, open, ship));
    await service.outcome(handle.id);
    await provider.flush();
    const settled = driver.edits()[0] as ShownCard;
    await deliver(chat, driver.name, driver.click(alice, open, ship));
    const refused = JSON.parse(driver.privateNotices(alice)[0] ?? 'null') as unknown;
    const stable = (value: unknown) =>
      JSON.parse(
        JSON.stringify(value)
          .replaceAll(handle.id, 'ask-id')
          .replaceAll(cardReferenceFor(handle.id), 'REFERENCE_16CHAR')
          .replace(/\?t=[^"\\]+/g, '?t=TOKEN')
          // The time, however the platform escapes its punctuation (`2026\\-12\\-05` in Markdown).
          .replace(
            /\d{4}((?:\\\\)?-)\d{2}((?:\\\\)?-)\d{2} \d{2}((?:\\\\)?:)\d{2} UTC/g,
            (_, dash1: string, dash2: string, colon: string) =>
              `2026${dash1}12${dash2}05 16${colon}30 UTC`,
          )
          .replace(/card-\d+-[a-z0-9]+/g, 'card-id'),
      ) as unknown;
    return {
      open: stable(open.call.body),
      settled: stable(settled.call.body),
      refused: stable(refused),
    };
  } finally {
    await provider.close();
    await server.close();
    await service.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = resolve(import.meta.dirname, '..');
  for (const [file, text] of await chatPayloads()) {
    writeFileSync(join(root, file), text);
    console.log(`wrote ${file}`);
  }
}
