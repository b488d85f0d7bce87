/**
 * The chat provider on Slack end to end: the real Chat SDK and Slack adapter over a local fake of
 * Slack's Web API, clicks as signed interactivity requests through `chat.webhooks.slack`.
 */
import { createSlackAdapter } from '@chat-adapter/slack';
import {
  type AskAuditEvent,
  type AskStore,
  createInteractionService,
  createMemoryAskStore,
} from 'ask-engine';
import { createChatProvider } from 'ask-engine/chat';
import { createWebAnswerServer } from 'ask-engine/web';
import { afterEach, describe, expect, it } from 'vitest';
import { answerThroughLink } from '../notify/answer-link.js';
import { until } from '../support/until.js';
import { chatWith, deliver, silentLogger } from './chat-fixture.js';
import { blockAction, type FakeSlack, signedSlackRequest, startFakeSlack } from './fake-slack.js';

const SIGNING_SECRET = 'slack-signing-secret-for-tests';
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Route = Parameters<typeof createChatProvider>[0]['route'];

type Extra = Partial<Omit<Parameters<typeof createChatProvider>[0], 'chat' | 'server' | 'route'>>;

async function setUp(
  route: Route,
  extra: (
    service: ReturnType<typeof createInteractionService>,
    store: AskStore,
  ) => Extra = () => ({}),
) {
  const slack = await startFakeSlack();
  cleanups.push(() => slack.close());
  const store = createMemoryAskStore();
  const service = createInteractionService({ store });
  cleanups.push(() => service.close());
  const server = await createWebAnswerServer({ service, secret: 's'.repeat(32) });
  cleanups.push(() => server.close());
  const chat = chatWith({
    slack: createSlackAdapter({
      botToken: 'xoxb-test-token',
      signingSecret: SIGNING_SECRET,
      apiUrl: slack.apiUrl,
      logger: silentLogger,
    }),
  });
  const provider = createChatProvider({
    chat,
    server,
    route,
    delivery: { pollMs: 50 },
    ...extra(service, store),
  });
  cleanups.push(() => provider.close());
  service.registerProvider(provider);
  /** Delivers a signed click and waits for what the adapter ran after acknowledging it. */
  const click = (
    payload: unknown,
    sign = (p: unknown) => signedSlackRequest('http://bot.test/slack', p, SIGNING_SECRET),
  ) => deliver(chat, 'slack', sign(payload));
  return { slack, service, server, chat, provider, click };
}

async function history(service: ReturnType<typeof createInteractionService>, askId: string) {
  const events: AskAuditEvent[] = [];
  for await (const event of service.history(askId)) events.push(event);
  return events;
}

/** The card's buttons as Slack got them: label and value. */
function buttonsOf(slack: FakeSlack, index = 0): { label: string; value: string }[] {
  const blocks = slack.callsOf('chat.postMessage')[index]?.args.blocks as {
    type: string;
    elements?: { type: string; text: { text: string }; value?: string; url?: string }[];
  }[];
  return blocks
    .filter((block) => block.type === 'actions')
    .flatMap((block) => block.elements ?? [])
    .filter((element) => element.value !== undefined)
    .map((element) => ({ label: element.text.text, value: element.value as string }));
}

function textOf(blocks: unknown): string {
  return JSON.stringify(blocks);
}

describe('the chat provider on Slack', () => {
  it('posts a card, settles the ask from a signed click and edits the card to say who decided', async () => {
    const { slack, service, click } = await setUp(() => [
      { id: 'U0ALICE', channel: 'slack', address: 'slack:C0DEPLOY' },
    ]);
    const handle = service.start({
      questions: [
        { question: 'Deploy v2 to production?', header: 'Deploy', options: ['Ship', 'Hold'] },
      ],
    });
    expect((await handle.outcome).status).toBe('deferred');
    const post = await until(() => slack.callsOf('chat.postMessage')[0], 'the card');
    expect(post.args.channel).toBe('C0DEPLOY');
    expect(textOf(post.args.blocks)).toContain('Deploy v2 to production?');
    const buttons = buttonsOf(slack);
    expect(buttons.map((button) => button.label)).toEqual(['Ship', 'Hold']);
    // The button carries a short reference and the choice, never a token or the ask id.
    expect(buttons[0]?.value).toMatch(/^[A-Za-z0-9_-]{16}\.o1$/);
    expect(buttons[0]?.value).not.toContain(handle.id);
    await until(
      async () => (await history(service, handle.id)).some((event) => event.type === 'notified'),
      'the card recorded as sent',
    );

    const response = await click(
      blockAction('U0ALICE', 'C0DEPLOY', post.result.ts as string, buttons[0]!.value),
    );
    expect(response.status).toBe(200);
    const outcome = await service.outcome(handle.id);
    expect(outcome).toMatchObject({
      status: 'answered',
      answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['Ship'] } }],
      answeredBy: { recipient: 'U0ALICE', channel: 'slack' },
    });
    const update = await until(() => slack.callsOf('chat.update')[0], 'the card edited');
    expect(update.args).toMatchObject({ channel: 'C0DEPLOY', ts: post.result.ts });
    expect(textOf(update.args.blocks)).toContain('Answered by U0ALICE (slack)');
    expect(textOf(update.args.blocks)).not.toContain('"actions"');
  });

  it('changes nothing for a click whose signature is wrong, stale or missing', async () => {
    const { slack, service, click } = await setUp(() => [
      { id: 'U0ALICE', channel: 'slack', address: 'slack:C0DEPLOY' },
    ]);
    const handle = service.start({ questions: [{ question: 'Ship?', options: ['Yes', 'No'] }] });
    const post = await until(() => slack.callsOf('chat.postMessage')[0], 'the card');
    await until(
      async () => (await history(service, handle.id)).some((e) => e.type === 'notified'),
      'sent',
    );
    const payload = blockAction(
      'U0ALICE',
      'C0DEPLOY',
      post.result.ts as string,
      buttonsOf(slack)[0]!.value,
    );
    const url = 'http://bot.test/slack';
    const tampered = (p: unknown) => {
      const signed = signedSlackRequest(url, p, SIGNING_SECRET);
      const body = new URLSearchParams({
        payload: JSON.stringify({ ...(p as object), user: { id: 'U0BOSS' } }),
      });
      return new Request(url, { method: 'POST', headers: signed.headers, body: body.toString() });
    };
    const stale = (p: unknown) =>
      signedSlackRequest(url, p, SIGNING_SECRET, Math.floor(Date.now() / 1000) - 301);
    const unsigned = (p: unknown) =>
      new Request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ payload: JSON.stringify(p) }).toString(),
      });
    const wrongSecret = (p: unknown) => signedSlackRequest(url, p, 'not-the-signing-secret');
    for (const sign of [tampered, stale, unsigned, wrongSecret]) {
      const response = await click(payload, sign);
      expect(response.status).toBe(401);
    }
    expect((await service.get(handle.id))?.state).toBe('deferred');
    const types = (await history(service, handle.id)).map((event) => event.type);
    expect(types).not.toContain('answer');
    expect(types).not.toContain('late-answer');
    expect(slack.callsOf('chat.postEphemeral')).toHaveLength(0);
    // The same payload, signed right, is what answers.
    expect((await click(payload)).status).toBe(200);
    expect((await service.outcome(handle.id)).status).toBe('answered');
  });

  it('escapes hostile model text for mrkdwn: no mention, ping, link or emoji code takes effect', async () => {
    const { slack, service } = await setUp(() => [
      { id: 'U0ALICE', channel: 'slack', address: 'slack:C0DEPLOY' },
    ]);
    const hostile =
      '<!channel> <@U0BOSS> <https://evil.example|click here> & **bold** {{emoji:fire}}\u001b[31m';
    service.start({
      questions: [
        {
          question: hostile,
          header: '<!here>',
          context: 'Context with <#C0SECRET> & more',
          options: [
            { title: '{{emoji:rocket}} Go', description: '<mailto:x@example.com|mail>' },
            'Stop',
          ],
        },
      ],
    });
    const post = await until(() => slack.callsOf('chat.postMessage')[0], 'the card');
    const shown = textOf(post.args.blocks) + String(post.args.text);
    for (const raw of [
      '<!channel>',
      '<@U0BOSS>',
      '<https://evil.example',
      '<!here>',
      '<#C0SECRET>',
      '<mailto:',
      '**bold**',
      '{{emoji:',
      ':fire:',
      ':rocket:',
      '\\u001b',
    ]) {
      expect(shown).not.toContain(raw);
    }
    expect(shown).toContain(
      '&lt;!channel&gt; &lt;@U0BOSS&gt; &lt;https://evil.example|click here&gt; &amp;',
    );
    expect(shown).toContain('\\\\x1b[31m');
    expect(buttonsOf(slack)[0]?.label).toBe('{\u2060{emoji:rocket}} Go');
  });

  it('refuses a click from someone the ask was not sent to, and the ask stays open', async () => {
    const { slack, service, click } = await setUp(() => [
      { id: 'U0ALICE', channel: 'slack', address: 'slack:C0DEPLOY' },
    ]);
    const handle = service.start({ questions: [{ question: 'Ship?', options: ['Yes', 'No'] }] });
    const post = await until(() => slack.callsOf('chat.postMessage')[0], 'the card');
    await until(
      async () => (await history(service, handle.id)).some((e) => e.type === 'notified'),
      'sent',
    );
    await click(
      blockAction('U0MALLORY', 'C0DEPLOY', post.result.ts as string, buttonsOf(slack)[0]!.value),
    );
    const told = await until(() => slack.callsOf('chat.postEphemeral')[0], 'the refusal');
    expect(told.args.user).toBe('U0MALLORY');
    expect(textOf(told.args.blocks)).toContain(
      'Only the people this question was sent to can answer it.',
    );
    expect((await service.get(handle.id))?.state).toBe('deferred');
  });

  it('decides a 2-of-3 quorum by distinct platform users, counting a second click once, and refuses a click after', async () => {
    const people = ['U0ALICE', 'U0BOB', 'U0CAROL'];
    const { slack, service, click } = await setUp(() => ({
      recipients: people.map((id) => ({ id, channel: 'slack', address: `dm:${id}` })),
      quorum: { required: 2 },
    }));
    const handle = service.start({
      questions: [{ question: 'Roll back?', options: ['Roll back', 'Keep'] }],
    });
    await until(() => slack.callsOf('chat.postMessage').length === 3, 'three cards');
    await until(
      async () =>
        (await history(service, handle.id)).filter((e) => e.type === 'notified').length === 3,
      'three cards recorded',
    );
    const cardOf = (id: string) => {
      const index = slack
        .callsOf('chat.postMessage')
        .findIndex((call) => call.args.channel === `D${id}`);
      const call = slack.callsOf('chat.postMessage')[index]!;
      return {
        channel: call.args.channel as string,
        ts: call.result.ts as string,
        buttons: buttonsOf(slack, index),
      };
    };
    const press = (id: string, label: string) => {
      const card = cardOf(id);
      const button = card.buttons.find((b) => b.label === label)!;
      return click(blockAction(id, card.channel, card.ts, button.value));
    };
    await press('U0ALICE', 'Roll back');
    await press('U0ALICE', 'Roll back');
    const duplicate = await until(
      () => slack.callsOf('chat.postEphemeral')[1],
      'the second click answered',
    );
    expect(textOf(duplicate.args.blocks)).toContain('You already responded');
    expect((await service.get(handle.id))?.state).toBe('deferred');
    await press('U0BOB', 'Roll back');
    const outcome = await service.outcome(handle.id);
    expect(outcome).toMatchObject({ status: 'answered' });
    expect((outcome as { responses?: { by: string }[] }).responses?.map((r) => r.by)).toEqual([
      'U0ALICE',
      'U0BOB',
    ]);
    await until(() => slack.callsOf('chat.update').length === 3, 'every card edited');
    await press('U0CAROL', 'Keep');
    const late = await until(
      () => slack.callsOf('chat.postEphemeral').find((call) => call.args.user === 'U0CAROL'),
      'the late click refused',
    );
    expect(textOf(late.args.blocks)).toContain('already decided');
    const events = await history(service, handle.id);
    expect(events.filter((e) => e.type === 'response.recorded')).toHaveLength(2);
    expect(events.some((e) => e.type === 'late-answer')).toBe(true);
  });

  it('ends a quorum ask at once on a veto', async () => {
    const people = ['U0ALICE', 'U0BOB', 'U0CAROL'];
    const { slack, service, click } = await setUp(() => ({
      recipients: people.map((id) => ({ id, channel: 'slack', address: `dm:${id}` })),
      quorum: { required: 2, veto: ['Stop'] },
    }));
    const handle = service.start({
      questions: [{ question: 'Go live?', options: ['Go', 'Stop'] }],
    });
    await until(
      async () =>
        (await history(service, handle.id)).filter((e) => e.type === 'notified').length === 3,
      'three cards recorded',
    );
    const index = slack
      .callsOf('chat.postMessage')
      .findIndex((call) => call.args.channel === 'DU0CAROL');
    const card = slack.callsOf('chat.postMessage')[index]!;
    const stop = buttonsOf(slack, index).find((b) => b.label === 'Stop')!;
    await click(blockAction('U0CAROL', 'DU0CAROL', card.result.ts as string, stop.value));
    expect(await service.outcome(handle.id)).toMatchObject({ vetoedBy: 'U0CAROL' });
  });

  it('refuses a click after the ask was answered on the web page, with every card edited', async () => {
    const { slack, service, click } = await setUp(() => [
      { id: 'U0ALICE', channel: 'slack', address: 'dm:U0ALICE' },
    ]);
    const handle = service.start({ questions: [{ question: 'Ship?', options: ['Yes', 'No'] }] });
    const post = await until(() => slack.callsOf('chat.postMessage')[0], 'the card');
    await until(
      async () => (await history(service, handle.id)).some((e) => e.type === 'notified'),
      'sent',
    );
    const blocks = post.args.blocks as { type: string; elements?: { url?: string }[] }[];
    const link = blocks.flatMap((block) => block.elements ?? []).find((element) => element.url)
      ?.url as string;
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/a\//);
    const page = await answerThroughLink(link, 2);
    expect(page.status).toBe(200);
    expect(await service.outcome(handle.id)).toMatchObject({
      status: 'answered',
      answeredBy: { recipient: 'U0ALICE', channel: 'slack' },
    });
    const update = await until(() => slack.callsOf('chat.update')[0], 'the card edited');
    expect(textOf(update.args.blocks)).toContain('Answered by U0ALICE');
    await click(
      blockAction('U0ALICE', 'DU0ALICE', post.result.ts as string, buttonsOf(slack)[0]!.value),
    );
    const told = await until(() => slack.callsOf('chat.postEphemeral')[0], 'the refusal');
    expect(textOf(told.args.blocks)).toContain('already decided');
    expect((await history(service, handle.id)).some((e) => e.type === 'late-answer')).toBe(true);
  });

  it('settles once when Slack delivers the same click twice', async () => {
    const { slack, service, click } = await setUp(() => [
      { id: 'U0ALICE', channel: 'slack', address: 'slack:C0DEPLOY' },
    ]);
    const handle = service.start({ questions: [{ question: 'Ship?', options: ['Yes', 'No'] }] });
    const post = await until(() => slack.callsOf('chat.postMessage')[0], 'the card');
    await until(
      async () => (await history(service, handle.id)).some((e) => e.type === 'notified'),
      'sent',
    );
    const payload = blockAction(
      'U0ALICE',
      'C0DEPLOY',
      post.result.ts as string,
      buttonsOf(slack)[1]!.value,
    );
    await Promise.all([click(payload), click(payload)]);
    expect(await service.outcome(handle.id)).toMatchObject({
      answers: [{ response: { selections: ['No'] } }],
    });
    const events = await history(service, handle.id);
    expect(events.filter((e) => e.type === 'answer')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'late-answer')).toHaveLength(1);
  });

  it('takes a typed answer through a modal opened from the card', async () => {
    const { slack, service, click, chat } = await setUp(() => [
      { id: 'U0ALICE', channel: 'slack', address: 'dm:U0ALICE' },
    ]);
    const handle = service.start({ questions: [{ question: 'Why roll back?' }] });
    const post = await until(() => slack.callsOf('chat.postMessage')[0], 'the card');
    expect(post.args.channel).toBe('DU0ALICE');
    await until(
      async () => (await history(service, handle.id)).some((e) => e.type === 'notified'),
      'sent',
    );
    const [typed] = buttonsOf(slack);
    expect(typed?.label).toBe('Type an answer');
    await click(blockAction('U0ALICE', 'DU0ALICE', post.result.ts as string, typed!.value));
    const opened = await until(() => slack.callsOf('views.open')[0], 'the modal');
    const view = opened.args.view as { callback_id: string; private_metadata: string };
    const submit = (user: string, text: string) => {
      const payload = {
        type: 'view_submission',
        user: { id: user, username: user, name: user },
        team: { id: 'T0TEAM' },
        view: {
          id: 'V0MODAL',
          callback_id: view.callback_id,
          private_metadata: view.private_metadata,
          state: {
            values: { 'q1.text': { 'q1.text': { type: 'plain_text_input', value: text } } },
          },
        },
      };
      return deliver(
        chat,
        'slack',
        signedSlackRequest('http://bot.test/slack', payload, SIGNING_SECRET),
      );
    };
    // Someone else submitting the same view is refused in the modal.
    const refused = await submit('U0MALLORY', 'because');
    expect(await refused.json()).toMatchObject({ response_action: 'errors' });
    const response = await submit('U0ALICE', 'The <!channel> error rate doubled');
    expect(response.status).toBe(200);
    expect(await service.outcome(handle.id)).toMatchObject({
      status: 'answered',
      answers: [{ response: { kind: 'freeform', text: 'The <!channel> error rate doubled' } }],
      answeredBy: { recipient: 'U0ALICE', channel: 'slack' },
    });
  });

  it('sends an ask neither a card nor a modal can hold to the web page, and says why', async () => {
    const { slack, service } = await setUp(() => [
      { id: 'U0ALICE', channel: 'slack', address: 'dm:U0ALICE' },
    ]);
    service.start({
      questions: [{ question: 'Which regions?', options: ['eu', 'us', 'ap'], allowMultiple: true }],
    });
    service.start({ questions: [{ question: 'x'.repeat(3_001), options: ['Yes', 'No'] }] });
    await until(() => slack.callsOf('chat.postMessage').length === 2, 'two cards');
    const cards = slack.callsOf('chat.postMessage').map((call) => textOf(call.args.blocks));
    expect(cards[0]).toContain(
      'This question takes several choices and a slack card button takes one.',
    );
    expect(cards[1]).toContain(
      "This question's text runs to 3001 characters, more than the 3000 a slack card shows",
    );
    expect(cards[1]).not.toContain('x'.repeat(3_000));
    for (const [index, card] of cards.entries()) {
      expect(buttonsOf(slack, index)).toEqual([]);
      expect(card).toContain('Answer on the web page');
    }
  });

  it('keeps the personal web link off a card in a shared channel, and says where to send what it cannot take', async () => {
    const { slack, service } = await setUp(() => [
      { id: 'U0ALICE', channel: 'slack', address: 'slack:C0DEPLOY' },
    ]);
    service.start({ questions: [{ question: 'Ship?', options: ['Yes', 'No'] }] });
    service.start({
      questions: [{ question: 'Which regions?', options: ['eu', 'us', 'ap'], allowMultiple: true }],
    });
    await until(() => slack.callsOf('chat.postMessage').length === 2, 'two cards');
    const posts = slack.callsOf('chat.postMessage');
    for (const post of posts) expect(textOf(post.args.blocks)).not.toMatch(/"url":/);
    expect(buttonsOf(slack, 0).map((b) => b.label)).toEqual(['Yes', 'No']);
    expect(textOf(posts[1]?.args.blocks)).toContain(
      'a card in a shared channel has none: send this ask to direct messages (dm:&lt;user id&gt;) instead.',
    );
  });

  it('answers a wizard, or more options than a card holds, in a modal built from the generic form', async () => {
    const { slack, service, click, chat } = await setUp(() => [
      { id: 'U0ALICE', channel: 'slack', address: 'dm:U0ALICE' },
    ]);
    const many = service.start({
      questions: [
        {
          question: 'Pick a region',
          options: Array.from({ length: 30 }, (_, i) => `Region ${i + 1}`),
        },
      ],
    });
    const wizard = service.start({
      questions: [
        { question: 'Which <!here> environment?', options: ['staging', 'production'] },
        { question: 'Any notes?', allowFreeform: true },
      ],
    });
    await until(() => slack.callsOf('chat.postMessage').length === 2, 'two cards');
    await until(
      async () =>
        (await history(service, many.id)).some((e) => e.type === 'notified') &&
        (await history(service, wizard.id)).some((e) => e.type === 'notified'),
      'both sent',
    );
    const posts = slack.callsOf('chat.postMessage');
    const indexOf = (id: string) =>
      posts.findIndex((call) =>
        textOf(call.args.blocks).includes(id === many.id ? 'Pick a region' : 'Any notes?'),
      );
    expect(buttonsOf(slack, indexOf(many.id)).map((b) => b.label)).toEqual(['Answer in a form']);
    expect(buttonsOf(slack, indexOf(wizard.id)).map((b) => b.label)).toEqual([
      'Answer the questions',
    ]);

    const open = async (id: string) => {
      const index = indexOf(id);
      const before = slack.callsOf('views.open').length;
      await click(
        blockAction(
          'U0ALICE',
          'DU0ALICE',
          posts[index]?.result.ts as string,
          buttonsOf(slack, index)[0]!.value,
        ),
      );
      const call = await until(() => slack.callsOf('views.open')[before], 'the modal');
      return call.args.view as { callback_id: string; private_metadata: string; blocks: unknown[] };
    };
    const submit = (
      view: { callback_id: string; private_metadata: string },
      values: Record<string, unknown>,
    ) =>
      deliver(
        chat,
        'slack',
        signedSlackRequest(
          'http://bot.test/slack',
          {
            type: 'view_submission',
            user: { id: 'U0ALICE', username: 'alice', name: 'alice' },
            team: { id: 'T0TEAM' },
            view: { id: 'V0MODAL', ...view, state: { values } },
          },
          SIGNING_SECRET,
        ),
      );
    const select = (id: string, value: string) => ({
      [id]: { [id]: { type: 'static_select', selected_option: { value } } },
    });
    const typed = (id: string, value: string) => ({
      [id]: { [id]: { type: 'plain_text_input', value } },
    });

    const manyView = await open(many.id);
    expect(textOf(manyView.blocks)).toContain('Region 30');
    await submit(manyView, select('q1.selection', 'option30'));
    expect(await service.outcome(many.id)).toMatchObject({
      answers: [{ response: { kind: 'selection', selections: ['Region 30'] } }],
      answeredBy: { recipient: 'U0ALICE', channel: 'slack' },
    });

    const wizardView = await open(wizard.id);
    expect(textOf(wizardView.blocks)).toContain('&lt;!here&gt;');
    expect(textOf(wizardView.blocks)).not.toContain('<!here>');
    // The form codec checks the modal as it checks the web page: a choice mode without a choice.
    const refused = await submit(wizardView, {
      ...select('q1.mode', 'choice'),
      ...typed('q2.text', ''),
    });
    expect(await refused.json()).toMatchObject({ response_action: 'errors' });
    expect((await service.get(wizard.id))?.state).toBe('deferred');
    const response = await submit(wizardView, {
      ...select('q1.mode', 'choice'),
      ...select('q1.selection', 'option2'),
      ...select('q2.mode', 'text'),
      ...typed('q2.text', 'after the freeze'),
    });
    expect(response.status).toBe(200);
    expect(await service.outcome(wizard.id)).toMatchObject({
      answers: [
        { questionId: 'q1', response: { kind: 'selection', selections: ['production'] } },
        { questionId: 'q2', response: { kind: 'freeform', text: 'after the freeze' } },
      ],
    });
  });

  it('acknowledges a click before the answer is recorded, and records it after', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { slack, service, chat } = await setUp(
      () => [{ id: 'U0ALICE', channel: 'slack', address: 'slack:C0DEPLOY' }],
      (inner, store) => ({
        store,
        // The service, slowed down until the test lets it go: Slack waits 3 seconds at most.
        service: {
          history: (askId) => inner.history(askId),
          get: (askId) => inner.get(askId),
          respond: async (...args) => {
            await gate;
            return inner.respond(...args);
          },
        },
      }),
    );
    const handle = service.start({ questions: [{ question: 'Ship?', options: ['Yes', 'No'] }] });
    const post = await until(() => slack.callsOf('chat.postMessage')[0], 'the card');
    await until(
      async () => (await history(service, handle.id)).some((e) => e.type === 'notified'),
      'sent',
    );
    const tasks: Promise<unknown>[] = [];
    const request = signedSlackRequest(
      'http://bot.test/slack',
      blockAction('U0ALICE', 'C0DEPLOY', post.result.ts as string, buttonsOf(slack)[0]!.value),
      SIGNING_SECRET,
    );
    const response = await chat.webhooks.slack!(request, { waitUntil: (task) => tasks.push(task) });
    expect(response.status).toBe(200);
    expect((await service.get(handle.id))?.state).toBe('deferred');
    release();
    await Promise.all(tasks);
    expect((await service.outcome(handle.id)).status).toBe('answered');
  });

  it("reminds in the card's thread, escalates to a new recipient, and edits all three cards", async () => {
    const { slack, service, click } = await setUp(
      () => [{ id: 'U0ALICE', channel: 'slack', address: 'slack:C0DEPLOY' }],
      () => ({
        reminders: { afterMs: 600 },
        escalation: [
          { afterMs: 900, route: () => [{ id: 'U0LEAD', channel: 'slack', address: 'dm:U0LEAD' }] },
        ],
      }),
    );
    const handle = service.start({
      questions: [{ question: 'Page the on-call?', options: ['Page', 'Wait'] }],
    });
    await until(
      () => slack.callsOf('chat.postMessage').length === 3,
      'the card, the reminder and the escalation',
    );
    const [first, reminder, escalated] = slack.callsOf('chat.postMessage');
    expect(first?.args).toMatchObject({ channel: 'C0DEPLOY' });
    expect(first?.args.thread_ts).toBeUndefined();
    expect(reminder?.args).toMatchObject({ channel: 'C0DEPLOY', thread_ts: first?.result.ts });
    expect(textOf(reminder?.args.blocks)).toContain('Reminder: this question is still open.');
    expect(escalated?.args).toMatchObject({ channel: 'DU0LEAD' });
    expect(textOf(escalated?.args.blocks)).toContain('Escalated to you');
    await until(
      async () => (await history(service, handle.id)).some((e) => e.type === 'escalated'),
      'the escalation recorded',
    );
    const page = buttonsOf(slack, 2).find((button) => button.label === 'Page')!;
    await click(blockAction('U0LEAD', 'DU0LEAD', escalated?.result.ts as string, page.value));
    expect(await service.outcome(handle.id)).toMatchObject({
      answeredBy: { recipient: 'U0LEAD', channel: 'slack' },
    });
    await until(() => slack.callsOf('chat.update').length === 3, 'every card edited');
    expect(slack.callsOf('chat.update').map((call) => [call.args.channel, call.args.ts])).toEqual(
      expect.arrayContaining([
        ['C0DEPLOY', first?.result.ts],
        ['C0DEPLOY', reminder?.result.ts],
        ['DU0LEAD', escalated?.result.ts],
      ]),
    );
  });

  it("takes anyone's click when whoMayAnswer is 'anyone', recorded under their own platform id", async () => {
    const { slack, service, click } = await setUp(
      () => [{ id: 'U0ALICE', channel: 'slack', address: 'slack:C0DEPLOY' }],
      () => ({ whoMayAnswer: 'anyone' }),
    );
    const handle = service.start({ questions: [{ question: 'Ship?', options: ['Yes', 'No'] }] });
    const post = await until(() => slack.callsOf('chat.postMessage')[0], 'the card');
    await click(
      blockAction('U0DAVE', 'C0DEPLOY', post.result.ts as string, buttonsOf(slack)[0]!.value),
    );
    expect(await service.outcome(handle.id)).toMatchObject({
      answeredBy: { recipient: 'U0DAVE', channel: 'slack' },
    });
  });

  it('refuses whoMayAnswer values it does not know, naming them', async () => {
    await expect(
      setUp(
        () => [],
        () => ({ whoMayAnswer: 'channel-members' as 'anyone' }),
      ),
    ).rejects.toThrow(
      "Expected `whoMayAnswer` to be 'recipients' or 'anyone', got \"channel-members\".",
    );
  });

  it("edits a recipient's other cards when one cannot be edited (deleted), and reports it", async () => {
    const errors: unknown[] = [];
    const { slack, service, click } = await setUp(
      () => [{ id: 'U0ALICE', channel: 'slack', address: 'slack:C0DEPLOY' }],
      () => ({
        reminders: { afterMs: 600 },
        delivery: { pollMs: 50, maxAttempts: 1 },
        onError: (error) => errors.push(error),
      }),
    );
    const handle = service.start({ questions: [{ question: 'Ship?', options: ['Yes', 'No'] }] });
    await until(
      async () => (await history(service, handle.id)).some((e) => e.type === 'reminded'),
      'the card and its reminder recorded',
    );
    const [first, reminder] = slack.callsOf('chat.postMessage');
    slack.failing.set('chat.update', (args) =>
      args.ts === first?.result.ts ? 'message_not_found' : undefined,
    );
    await click(
      blockAction(
        'U0ALICE',
        'C0DEPLOY',
        reminder?.result.ts as string,
        buttonsOf(slack, 1)[0]!.value,
      ),
    );
    await service.outcome(handle.id);
    await until(() => errors.length > 0, 'the failed edit reported');
    const edited = slack.callsOf('chat.update').filter((call) => call.result.ok);
    expect(edited.map((call) => call.args.ts)).toEqual([reminder?.result.ts]);
    expect(String(errors[0])).toContain('message_not_found');
  });

  it("lets the people a quorum's from names decide one card in a team channel, and refuses anyone else", async () => {
    const { slack, service, click } = await setUp(() => ({
      recipients: [{ id: 'deploys', channel: 'slack', address: 'slack:C0DEPLOY' }],
      quorum: { required: 2, from: ['U0ALICE', 'U0BOB', 'U0CAROL'] },
    }));
    const handle = service.start({
      questions: [{ question: 'Deploy 4.2?', options: ['Deploy', 'Hold'] }],
    });
    const post = await until(() => slack.callsOf('chat.postMessage')[0], 'the one card');
    const deploy = buttonsOf(slack)[0]!.value;
    const press = (user: string) =>
      click(blockAction(user, 'C0DEPLOY', post.result.ts as string, deploy));
    await press('U0MALLORY');
    const told = await until(() => slack.callsOf('chat.postEphemeral')[0], 'the refusal');
    expect(told.args.user).toBe('U0MALLORY');
    expect(textOf(told.args.blocks)).toContain(
      'Only the people this question was sent to can answer it.',
    );
    await press('U0ALICE');
    await press('U0BOB');
    expect(await service.outcome(handle.id)).toMatchObject({
      status: 'answered',
      responses: [{ by: 'U0ALICE' }, { by: 'U0BOB' }],
    });
    expect(slack.callsOf('chat.postMessage')).toHaveLength(1);
    const refused = (await history(service, handle.id)).filter(
      (e) => e.type === 'response.refused',
    );
    expect(refused).toHaveLength(1);
    expect(refused[0]?.data).toMatchObject({ reason: 'not-allowed' });
  });

  it('edits the card when the ask times out or is cancelled, saying so', async () => {
    const { slack, service } = await setUp(() => [
      { id: 'U0ALICE', channel: 'slack', address: 'dm:U0ALICE' },
    ]);
    const timed = service.start(
      { questions: [{ question: 'Ship before the window closes?', options: ['Yes', 'No'] }] },
      { timeoutMs: 1_000 },
    );
    const cancelled = service.start({
      questions: [{ question: 'Ship later?', options: ['Yes', 'No'] }],
    });
    await until(
      async () =>
        (await history(service, timed.id)).some((e) => e.type === 'notified') &&
        (await history(service, cancelled.id)).some((e) => e.type === 'notified'),
      'both cards recorded',
    );
    await service.cancel(cancelled.id);
    expect((await service.outcome(timed.id)).status).toBe('timedOut');
    await until(() => slack.callsOf('chat.update').length === 2, 'both cards edited');
    const edits = slack.callsOf('chat.update').map((call) => textOf(call.args.blocks));
    expect(edits.find((text) => text.includes('Ship before'))).toContain('Timed out at');
    expect(edits.find((text) => text.includes('Ship later'))).toContain('Cancelled (user) at');
  });

  it('reports a store failure met while handling a click to onError', async () => {
    const errors: unknown[] = [];
    const { slack, service, click } = await setUp(
      () => [{ id: 'U0ALICE', channel: 'slack', address: 'dm:U0ALICE' }],
      (_inner, store) => ({
        // The store, except that finding an ask by its cards' reference fails.
        store: new Proxy(store, {
          get(target, key) {
            if (key === 'findByInteractionId') return () => Promise.reject(new Error('store down'));
            const value = Reflect.get(target, key);
            return typeof value === 'function' ? value.bind(target) : value;
          },
        }),
        onError: (error) => errors.push(error),
      }),
    );
    const handle = service.start({ questions: [{ question: 'Ship?', options: ['Yes', 'No'] }] });
    const post = await until(() => slack.callsOf('chat.postMessage')[0], 'the card');
    await click(
      blockAction('U0ALICE', 'DU0ALICE', post.result.ts as string, buttonsOf(slack)[0]!.value),
    );
    expect(errors.map(String)).toEqual(['Error: store down']);
    expect((await service.get(handle.id))?.state).toBe('deferred');
  });
});
