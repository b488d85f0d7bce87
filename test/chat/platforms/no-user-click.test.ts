/**
 * A verified click that names nobody answers nothing: the Google Chat adapter puts the
 * placeholder id "unknown" in place of a missing user, which would otherwise be recorded as a
 * person, even with `whoMayAnswer: 'anyone'`.
 */
import { type AskAuditEvent, createInteractionService } from 'ask-engine';
import { createChatProvider } from 'ask-engine/chat';
import { createWebAnswerServer } from 'ask-engine/web';
import { afterEach, expect, it } from 'vitest';
import { until } from '../../support/until.js';
import { chatWith, deliver } from '../chat-fixture.js';
import { type ShownCard, startGoogleChatDriver } from './platform-drivers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('refuses a Google Chat click without a user, even when anyone may answer', async () => {
  const driver = await startGoogleChatDriver();
  cleanups.push(() => driver.close());
  const service = createInteractionService();
  cleanups.push(() => service.close());
  const server = await createWebAnswerServer({ service, secret: 's'.repeat(32) });
  cleanups.push(() => server.close());
  const chat = chatWith({ gchat: driver.adapter });
  const provider = createChatProvider({
    chat,
    server,
    route: () => [driver.recipient(driver.users[0] as string)],
    whoMayAnswer: 'anyone',
    delivery: { pollMs: 50 },
  });
  cleanups.push(() => provider.close());
  service.registerProvider(provider);
  const handle = service.start({ questions: [{ question: 'Ship?', options: ['Yes', 'No'] }] });
  expect((await handle.outcome).status).toBe('deferred');
  const card = await until(async () => driver.cards()[0], 'the card');
  const yes = (card as ShownCard).buttons.find((button) => button.label === 'Yes')?.value as string;

  expect((await deliver(chat, 'gchat', driver.click('', card, yes))).status).toBe(200);
  expect((await service.get(handle.id))?.state).toBe('deferred');
  const events: AskAuditEvent[] = [];
  for await (const event of service.history(handle.id)) events.push(event);
  expect(events.map((event) => event.type)).not.toContain('response.recorded');

  // The same button pressed by a person does answer.
  expect(
    (await deliver(chat, 'gchat', driver.click(driver.users[1] as string, card, yes))).status,
  ).toBe(200);
  await expect(service.outcome(handle.id)).resolves.toMatchObject({
    status: 'answered',
    answeredBy: { recipient: driver.users[1], channel: 'gchat' },
  });
});
