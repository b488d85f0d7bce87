/**
 * The MCP Apps path without a browser: which clients get the form, and the app-only
 * `ask_user_answer` tool refusing what a form for another ask, a changed token, a late or a
 * malformed answer sends, through the v2 client as the host's bridge would call it.
 */
import { randomBytes } from 'node:crypto';
import { createMemoryAskStore } from 'ask-engine';
import { afterEach, describe, expect, it } from 'vitest';
import { APPS_CAPABILITIES, connectAppsHost } from './apps-peers.js';

type Peers = Awaited<ReturnType<typeof connectAppsHost>>;
const open: Peers[] = [];

afterEach(async () => {
  for (const peers of open.splice(0)) await peers.close();
});

async function host(options: Parameters<typeof connectAppsHost>[0] = {}): Promise<Peers> {
  const peers = await connectAppsHost(options);
  open.push(peers);
  return peers;
}

interface FormData {
  askId: string;
  token: string;
}

const question = {
  question: 'Which database?',
  options: [{ title: 'Postgres' }, { title: 'SQLite' }],
};

/** Asks through `ask_user` and returns the form's data the result carries for the view. */
async function ask(peers: Peers, args: Record<string, unknown> = question): Promise<FormData> {
  const result = await peers.client.callTool({ name: 'ask_user', arguments: args });
  const form = result._meta?.['ask-engine/app-form'] as FormData | undefined;
  if (form === undefined) throw new Error(`No form in ${JSON.stringify(result)}`);
  return form;
}

function answerWith(form: FormData, values: Record<string, string | string[]>) {
  return { askId: form.askId, token: form.token, answer: { action: 'submit', values } };
}

describe('which clients get the MCP Apps form', () => {
  it('lists the form, its resource and the app-only answer tool to a host with Apps and no elicitation', async () => {
    const peers = await host();
    const { tools } = await peers.client.listTools();
    const askUser = tools.find((tool) => tool.name === 'ask_user');
    const answer = tools.find((tool) => tool.name === 'ask_user_answer');
    expect(askUser?._meta).toMatchObject({
      ui: { resourceUri: 'ui://ask-engine/ask-user-form.html' },
    });
    expect(answer?._meta).toMatchObject({ ui: { visibility: ['app'] } });
    const { resources } = await peers.client.listResources();
    expect(resources).toEqual([
      expect.objectContaining({
        uri: 'ui://ask-engine/ask-user-form.html',
        mimeType: 'text/html;profile=mcp-app',
      }),
    ]);
    // Reading it bundles the view from the sources (esbuild): apps-form.test.ts reads it.
  });

  it('keeps a host that declares elicitation on elicitation, and one without Apps off the form', async () => {
    for (const capabilities of [
      { ...APPS_CAPABILITIES, elicitation: { form: {} } },
      { elicitation: { form: {} } },
    ]) {
      const peers = await host({ capabilities });
      const { tools } = await peers.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['ask_user']);
      expect(tools[0]!._meta?.ui).toBeUndefined();
    }
  });

  it('serves a 2026-07-28 host with Apps the same way: listed, deferred to the form, answered', async () => {
    const peers = await host({ negotiation: { pin: '2026-07-28' } });
    const { tools } = await peers.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['ask_user', 'ask_user_answer']);
    const form = await ask(peers);
    const result = await peers.client.callTool({
      name: 'ask_user_answer',
      arguments: answerWith(form, { 'q1.selection': 'option1' }),
    });
    expect(result.structuredContent).toMatchObject({ status: 'settled' });
    await expect(peers.service.get(form.askId)).resolves.toMatchObject({ state: 'answered' });
  });
});

describe('ask_user_answer', () => {
  it('settles the ask once; a second answer from the same form is refused as late', async () => {
    const peers = await host();
    const form = await ask(peers);
    const first = await peers.client.callTool({
      name: 'ask_user_answer',
      arguments: answerWith(form, { 'q1.selection': 'option1' }),
    });
    expect(first.isError).toBeUndefined();
    expect(first.structuredContent).toMatchObject({ status: 'settled' });
    const again = await peers.client.callTool({
      name: 'ask_user_answer',
      arguments: answerWith(form, { 'q1.selection': 'option2' }),
    });
    expect(again).toMatchObject({ isError: true, structuredContent: { status: 'closed' } });
    expect((again.structuredContent as { message: string }).message).toContain(
      'This question has been answered.',
    );
    await expect(peers.service.get(form.askId)).resolves.toMatchObject({
      outcome: { answers: [{ response: { selections: ['Postgres'] } }] },
    });
  });

  it('refuses a form answered meanwhile elsewhere, and the service audits the late attempt', async () => {
    const peers = await host();
    const form = await ask(peers);
    await peers.service.answer(form.askId, [
      { questionId: 'q1', response: { kind: 'selection', selections: ['SQLite'] } },
    ]);
    const late = await peers.client.callTool({
      name: 'ask_user_answer',
      arguments: answerWith(form, { 'q1.selection': 'option1' }),
    });
    expect(late).toMatchObject({ isError: true, structuredContent: { status: 'closed' } });
    const history = [];
    for await (const event of peers.service.history(form.askId)) history.push(event);
    expect(history.at(-1)).toMatchObject({ type: 'late-answer' });
    await expect(peers.service.get(form.askId)).resolves.toMatchObject({
      outcome: { answers: [{ response: { selections: ['SQLite'] } }] },
    });
  });

  it("refuses one ask's token for another ask, and a changed token; nothing changes", async () => {
    const peers = await host();
    const first = await ask(peers);
    const second = await ask(peers, { question: 'Ship today?', options: ['Yes', 'No'] });
    const forged = { ...second, token: first.token };
    const flipped = first.token.at(-2) === 'A' ? 'B' : 'A';
    const changed = {
      ...first,
      token: `${first.token.slice(0, -2)}${flipped}${first.token.at(-1)}`,
    };
    for (const form of [forged, changed]) {
      const refused = await peers.client.callTool({
        name: 'ask_user_answer',
        arguments: answerWith(form, { 'q1.selection': 'option1' }),
      });
      expect(refused).toMatchObject({ isError: true, structuredContent: { status: 'closed' } });
      expect((refused.structuredContent as { message: string }).message).toContain(
        `does not fit ask "${form.askId}"`,
      );
    }
    await expect(peers.service.get(first.askId)).resolves.toMatchObject({ state: 'deferred' });
    await expect(peers.service.get(second.askId)).resolves.toMatchObject({ state: 'deferred' });
  });

  it('refuses a form past its time limit (an ask without deadline: 7 days), and keeps the ask open', async () => {
    let now = Date.now();
    const peers = await host({ clock: { now: () => now } });
    const form = await ask(peers);
    now += 7 * 24 * 60 * 60 * 1000;
    const expired = await peers.client.callTool({
      name: 'ask_user_answer',
      arguments: answerWith(form, { 'q1.selection': 'option1' }),
    });
    expect(expired).toMatchObject({ isError: true, structuredContent: { status: 'closed' } });
    expect((expired.structuredContent as { message: string }).message).toContain(
      'This form has expired',
    );
    await expect(peers.service.get(form.askId)).resolves.toMatchObject({ state: 'deferred' });
  });

  it('refuses an answer the form cannot hold, in words, and keeps the ask open', async () => {
    const peers = await host();
    const form = await ask(peers);
    const refused = await peers.client.callTool({
      name: 'ask_user_answer',
      arguments: answerWith(form, { 'q1.selection': 'option9' }),
    });
    expect(refused).toMatchObject({ isError: true, structuredContent: { status: 'refused' } });
    expect((refused.structuredContent as { message: string }).message).toContain('Which database?');
    await expect(peers.service.get(form.askId)).resolves.toMatchObject({ state: 'deferred' });
  });

  it('refuses arguments that are not a form answer with an error naming what is wrong', async () => {
    const peers = await host();
    const form = await ask(peers);
    await expect(
      peers.client.callTool({
        name: 'ask_user_answer',
        arguments: { askId: form.askId, token: form.token, answer: 'Postgres' },
      }),
    ).rejects.toThrow(
      /ask_user_answer takes \{ askId, token, answer: \{ action, values \} \}; \/answer/,
    );
  });

  it('lets any server sharing the store and the secret take the answer', async () => {
    const store = createMemoryAskStore();
    const secret = randomBytes(32);
    const asking = await host({ store, secret });
    const other = await host({ store, secret });
    const form = await ask(asking);
    const result = await other.client.callTool({
      name: 'ask_user_answer',
      arguments: answerWith(form, { 'q1.selection': 'option2' }),
    });
    expect(result.structuredContent).toMatchObject({ status: 'settled' });
    await expect(asking.service.get(form.askId)).resolves.toMatchObject({
      outcome: { status: 'answered', answers: [{ response: { selections: ['SQLite'] } }] },
    });
  });
});
