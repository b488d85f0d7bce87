/**
 * The chat provider on Discord, Teams and Google Chat end to end: the real Chat SDK and each
 * platform's real adapter over a local fake of the platform's API, clicks delivered as the
 * platform delivers them (signed) through `chat.webhooks.<platform>`.
 */
import { type AskAuditEvent, createInteractionService } from 'ask-engine';
import { createChatProvider } from 'ask-engine/chat';
import { createWebAnswerServer } from 'ask-engine/web';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../support/until.js';
import { chatWith, deliver as deliverTo } from '../chat-fixture.js';
import { PLATFORM_DRIVERS, type PlatformDriver, type ShownCard } from './platform-drivers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Route = Parameters<typeof createChatProvider>[0]['route'];

async function setUp(
  start: () => Promise<PlatformDriver>,
  route: (driver: PlatformDriver) => Route,
) {
  const driver = await start();
  cleanups.push(() => driver.close());
  const service = createInteractionService();
  cleanups.push(() => service.close());
  const server = await createWebAnswerServer({ service, secret: 's'.repeat(32) });
  cleanups.push(() => server.close());
  const chat = chatWith({ [driver.name]: driver.adapter });
  const provider = createChatProvider({
    chat,
    server,
    route: route(driver),
    delivery: { pollMs: 50 },
  });
  cleanups.push(() => provider.close());
  service.registerProvider(provider);
  /** Delivers a click and waits for what the adapter ran after acknowledging it. */
  const deliver = async (request: Request) => (await deliverTo(chat, driver.name, request)).status;
  /** Delivers a request and hands back the adapter's whole response (a Teams invoke's body). */
  const exchange = (request: Request) => deliverTo(chat, driver.name, request);
  const history = async (askId: string) => {
    const events: AskAuditEvent[] = [];
    for await (const event of service.history(askId)) events.push(event);
    return events;
  };
  /** Starts an ask and resolves once its card was posted and recorded as sent. */
  const askOnCard = async (question: string, options: string[], count = 1) => {
    const handle = service.start({ questions: [{ question, header: 'Deploy', options }] });
    expect((await handle.outcome).status).toBe('deferred');
    await until(
      async () => (await history(handle.id)).filter((e) => e.type === 'notified').length >= count,
      'the cards recorded as sent',
    );
    return { handle, cards: driver.cards() };
  };
  return { driver, service, deliver, exchange, history, askOnCard };
}

/** The part of a Teams task module response (a dialog) the test reads. */
interface TeamsDialog {
  task: {
    value: {
      card: {
        content: {
          body: { type: string; id: string; choices: { title: string; value: string }[] }[];
          actions: { data: Record<string, unknown> }[];
        };
      };
    };
  };
}

/** The JSON body of what the adapter answered a request (a Teams invoke's response). */
async function chatResponse(
  exchange: (request: Request) => Promise<Response>,
  request: Request,
): Promise<TeamsDialog> {
  const response = await exchange(request);
  expect(response.status).toBe(200);
  const text = await response.text();
  return (text === '' ? {} : JSON.parse(text)) as TeamsDialog;
}

function buttonValueOf(card: ShownCard, label: string): string {
  const value = card.buttons.find((button) => button.label === label)?.value;
  if (value === undefined) throw new Error(`no button ${label} in ${JSON.stringify(card.buttons)}`);
  return value;
}

describe.each(PLATFORM_DRIVERS)('the chat provider on %s', (name, start) => {
  it('posts a card, settles the ask from a signed click as that platform user, and edits the card to say who decided', async () => {
    const { driver, service, deliver, askOnCard } = await setUp(start, (d) => () => [
      d.recipient(d.users[0]),
    ]);
    const { handle, cards } = await askOnCard('Deploy v2 to production?', ['Ship', 'Hold']);
    expect(cards).toHaveLength(1);
    const [card] = cards as [ShownCard];
    expect(card.read).toContain('Deploy v2 to production?');
    expect(card.buttons.filter((b) => b.value !== undefined).map((b) => b.label)).toEqual([
      'Ship',
      'Hold',
    ]);
    // The button carries a short reference and the choice, never a token or the ask id.
    expect(buttonValueOf(card, 'Ship')).toMatch(/^[A-Za-z0-9_-]{16}\.o1$/);
    expect(buttonValueOf(card, 'Ship')).not.toContain(handle.id);

    expect(await deliver(driver.click(driver.users[0], card, buttonValueOf(card, 'Ship')))).toBe(
      200,
    );
    expect(await service.outcome(handle.id)).toMatchObject({
      status: 'answered',
      answers: [{ response: { kind: 'selection', selections: ['Ship'] } }],
      answeredBy: { recipient: driver.users[0].toLowerCase(), channel: name },
    });
    const edit = await until(() => driver.edits()[0], 'the card edited');
    expect(edit.read).toContain(`Answered by ${driver.users[0].toLowerCase()} (${name})`);
    expect(edit.buttons.filter((b) => b.value !== undefined)).toEqual([]);
  });

  it('changes nothing for a click the platform did not sign', async () => {
    const { driver, service, deliver, history, askOnCard } = await setUp(start, (d) => () => [
      d.recipient(d.users[0]),
    ]);
    const { handle, cards } = await askOnCard('Ship?', ['Yes', 'No']);
    const card = cards[0] as ShownCard;
    expect(
      await deliver(driver.click(driver.users[0], card, buttonValueOf(card, 'Yes'), true)),
    ).toBe(401);
    expect((await service.get(handle.id))?.state).toBe('deferred');
    const types = (await history(handle.id)).map((event) => event.type);
    expect(types).not.toContain('answer');
    expect(types).not.toContain('late-answer');
    expect(driver.privateNotices(driver.users[0])).toEqual([]);
  });

  it('refuses a click from a platform user the ask was not sent to, privately, and the ask stays open', async () => {
    const { driver, service, deliver, askOnCard } = await setUp(start, (d) => () => [
      d.recipient(d.users[0]),
    ]);
    const { handle, cards } = await askOnCard('Ship?', ['Yes', 'No']);
    const card = cards[0] as ShownCard;
    const [, , mallory] = driver.users;
    expect(await deliver(driver.click(mallory, card, buttonValueOf(card, 'Yes')))).toBe(200);
    const told = await until(() => driver.privateNotices(mallory)[0], 'the refusal');
    expect(told).toMatch(/Only the people this question was sent to/);
    expect((await service.get(handle.id))?.state).toBe('deferred');
    expect(driver.privateNotices(driver.users[0])).toEqual([]);
  });

  it('refuses a click after the ask was answered on the web page: the card is edited, the clicker told privately, the attempt audited', async () => {
    const { driver, service, deliver, history, askOnCard } = await setUp(start, (d) => () => [
      d.recipient(d.users[0]),
    ]);
    const { handle, cards } = await askOnCard('Roll back?', ['Roll back', 'Keep']);
    const card = cards[0] as ShownCard;
    await service.answer(
      handle.id,
      [{ questionId: 'q1', response: { kind: 'selection', selections: ['Keep'] } }],
      { by: { recipient: 'ops-lead', channel: 'web' } },
    );
    const edit = await until(() => driver.edits()[0], 'the card edited');
    expect(edit.read).toContain('Answered by ops-lead (web)');

    expect(
      await deliver(driver.click(driver.users[0], card, buttonValueOf(card, 'Roll back'))),
    ).toBe(200);

    const told = await until(() => driver.privateNotices(driver.users[0])[0], 'the refusal');
    expect(told).toMatch(/already decided/);
    expect(await service.outcome(handle.id)).toMatchObject({
      status: 'answered',
      answeredBy: { recipient: 'ops-lead', channel: 'web' },
    });
    expect((await history(handle.id)).map((event) => event.type)).toContain('late-answer');
    expect(driver.edits()).toHaveLength(1);
  });

  it('decides a 2-of-3 quorum by distinct platform users, counting the same button delivered twice once', async () => {
    const { driver, service, deliver, askOnCard } = await setUp(start, (d) => () => ({
      recipients: d.users.map((id) => d.recipient(id)),
      quorum: { required: 2 },
    }));
    const { handle, cards } = await askOnCard('Roll back?', ['Roll back', 'Keep'], 3);
    const card = cards[0] as ShownCard;
    const first = driver.click(driver.users[0], card, buttonValueOf(card, 'Roll back'));
    expect(await deliver(first.clone())).toBe(200);
    expect(await deliver(first)).toBe(200);
    expect((await service.get(handle.id))?.state).toBe('deferred');
    expect(
      await deliver(driver.click(driver.users[1], card, buttonValueOf(card, 'Roll back'))),
    ).toBe(200);
    expect(await service.outcome(handle.id)).toMatchObject({ status: 'answered' });
    await until(() => driver.edits().length >= 3 || undefined, 'every card edited');
  });

  it('shows hostile model text as written: the platform gets the text escaped by its one rule, untouched by the adapter', async () => {
    const { driver, askOnCard } = await setUp(start, (d) => () => [d.recipient(d.users[0])]);
    const hostile =
      '<@80351110224678912> @everyone [click](https://evil.example) <a href="https://evil.example">x</a> **bold** ||spoiler|| {{emoji:fire}} # heading \u001b[31m';
    const { cards } = await askOnCard(hostile, ['{{emoji:rocket}} Go', 'Stop']);
    const card = cards[0] as ShownCard;
    const escaped = driver.platform.escapeText(hostile);
    expect(card.text).toContain(JSON.stringify(escaped).slice(1, -1));
    expect(card.buttons[0]?.label).toBe('{\u2060{emoji:rocket}} Go');
  });
});

describe('an ask a card cannot hold', () => {
  it('answers in a Teams dialog what a card cannot hold: seven options, past the six actions a card shows', async () => {
    const { driver, service, exchange, askOnCard } = await setUp(
      PLATFORM_DRIVERS[1][1],
      (d) => () => [d.recipient(d.users[0])],
    );
    const options = ['One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven'];
    const { handle, cards } = await askOnCard('Which region?', options);
    const card = cards[0] as ShownCard;
    expect(driver.name).toBe('teams');
    // No option buttons: one button opens the dialog.
    const [form, ...others] = card.buttons.filter((button) => button.value !== undefined);
    expect(others).toEqual([]);
    expect(form?.label).toBe('Answer in a form');
    const [alice] = driver.users;
    const dialog = driver.dialog as NonNullable<PlatformDriver['dialog']>;
    const opened = await chatResponse(
      exchange,
      dialog(alice, card, 'task/fetch', { actionId: 'ask-engine', value: form?.value }),
    );
    const inputs = opened.task.value.card.content.body.filter(
      (block) => block.type === 'Input.ChoiceSet',
    );
    expect(inputs).toHaveLength(1);
    const [input] = inputs as [TeamsDialog['task']['value']['card']['content']['body'][number]];
    expect(input.choices.map((choice) => choice.title)).toEqual(options);
    const submit = opened.task.value.card.content.actions[0]?.data;
    await chatResponse(
      exchange,
      dialog(alice, card, 'task/submit', {
        ...submit,
        [input.id]: input.choices[6]?.value,
      }),
    );
    await expect(service.outcome(handle.id)).resolves.toMatchObject({
      status: 'answered',
      answers: [{ response: { kind: 'selection', selections: ['Seven'] } }],
      answeredBy: { recipient: alice, channel: 'teams' },
    });
  });

  it('is not put on a Discord card when an option is longer than the 80 characters a button shows, and the card says so', async () => {
    const { driver, askOnCard } = await setUp(PLATFORM_DRIVERS[0][1], (d) => () => [
      d.recipient(d.users[0]),
    ]);
    const { cards } = await askOnCard('Which plan?', ['x'.repeat(81), 'Keep']);
    const card = cards[0] as ShownCard;
    expect(driver.name).toBe('discord');
    expect(card.buttons.filter((button) => button.value !== undefined)).toEqual([]);
    expect(card.read).toContain('81 characters, more than the 80 a discord button shows');
  });
});
