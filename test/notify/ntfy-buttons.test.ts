/**
 * Which asks get push buttons (`pushActionsFor`): one single-choice question with 1 to `max`
 * options; every other ask is answered on the page. Through the answer app, as the ntfy channel
 * asks it.
 */
import { createInteractionService, isUserInteractionError } from 'ask-engine';
import { createAnswerApp, createWebProvider } from 'ask-engine/web';
import { afterEach, describe, expect, it } from 'vitest';

const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const alice = { recipient: 'alice', channel: 'ntfy' };

async function setUp() {
  const service = createInteractionService();
  cleanups.push(() => service.close());
  const app = createAnswerApp({
    service,
    secret: 'b'.repeat(32),
    baseUrl: 'https://asks.example.com/answers',
  });
  service.registerProvider(createWebProvider(app));
  const ask = async (request: Parameters<typeof service.start>[0]) => {
    const handle = service.start(request);
    await handle.outcome;
    return handle.id;
  };
  return { service, app, ask };
}

describe('pushActionsFor', () => {
  it('gives one signed POST URL per option of a single-choice question, under the base URL', async () => {
    const { app, ask } = await setUp();
    const askId = await ask({ question: 'Deploy?', options: ['Deploy', 'Hold', 'Cancel'] });
    const actions = await app.pushActionsFor(askId, alice);
    expect(actions.map((action) => action.label)).toEqual(['Deploy', 'Hold', 'Cancel']);
    actions.forEach((action, i) => {
      expect(action.url).toMatch(
        new RegExp(`^https://asks\\.example\\.com/answers/a/${askId}/pick/${i + 1}\\?t=[\\w.-]+$`),
      );
    });
  });

  it('gives none where one tap cannot answer, and more only when the notification has room', async () => {
    const { app, ask } = await setUp();
    const four = await ask({ question: 'Region?', options: ['eu', 'us', 'ap', 'sa'] });
    expect(await app.pushActionsFor(four, alice)).toEqual([]);
    expect(await app.pushActionsFor(four, alice, { max: 4 })).toHaveLength(4);
    const multi = await ask({ question: 'Regions?', options: ['eu', 'us'], allowMultiple: true });
    expect(await app.pushActionsFor(multi, alice)).toEqual([]);
    const typed = await ask({ question: 'Why?' });
    expect(await app.pushActionsFor(typed, alice)).toEqual([]);
    const two = await ask({
      questions: [
        { question: 'Deploy?', options: ['Yes', 'No'] },
        { question: 'Notify?', options: ['Yes', 'No'] },
      ],
    });
    expect(await app.pushActionsFor(two, alice)).toEqual([]);
  });

  it('refuses what linkFor refuses, and a max that is not a count', async () => {
    const { service, app, ask } = await setUp();
    const askId = await ask({ question: 'Deploy?', options: ['Deploy', 'Hold'] });
    await expect(app.pushActionsFor(askId, alice, { max: 0 })).rejects.toThrow(
      /`max`.*integer from 1 up, got 0/,
    );
    await expect(app.pushActionsFor(askId, { recipient: '' })).rejects.toSatisfy((error) =>
      isUserInteractionError(error, 'INVALID_REQUEST'),
    );
    await expect(app.pushActionsFor('ask_unknown', alice)).rejects.toSatisfy((error) =>
      isUserInteractionError(error, 'UNKNOWN_INTERACTION'),
    );
    await service.cancel(askId, 'user');
    await expect(app.pushActionsFor(askId, alice)).rejects.toSatisfy((error) =>
      isUserInteractionError(error, 'ASK_SETTLED'),
    );
  });
});
