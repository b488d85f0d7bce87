/**
 * The operator's commands read what every other surface reads: the typed answer of an ask whose
 * service redacts is `[redacted]` in `show`, `show --json`, `list --json` and `export`, and in
 * the outcomes `answer` and `resume` print, as in its history and the web's live asks view; an
 * ask whose service does not redact is shown whole.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { InteractionService } from 'ask-engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'ask-engine-redaction-'));
const store = join(dir, 'asks.db');
const HIDDEN = 'hunter2-typed-by-the-person';
const HIDDEN_COMMENT = 'a comment nobody else may read';
const SHOWN = 'an answer its service lets be read';

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Asks one question through a service on the store, answered by a script; returns the ask id. */
async function answeredAsk(redact: boolean, text: string, comment?: string): Promise<string> {
  const { createInteractionService, createScriptedProvider } = await import('ask-engine');
  const { createSqliteAskStore } = await import('ask-engine/sqlite');
  const asks = createSqliteAskStore({ path: store });
  const service = createInteractionService({ store: asks, redact });
  service.registerProvider(
    createScriptedProvider([
      {
        answer: [
          { questionId: 'q1', response: { kind: 'freeform', text } },
          {
            questionId: 'q2',
            response: {
              kind: 'selection',
              selections: ['Yes'],
              ...(comment === undefined ? {} : { comment }),
            },
          },
        ],
      },
    ]),
  );
  const handle = service.start({
    questions: [
      { question: 'Which password?' },
      { question: 'Deploy?', options: ['Yes', 'No'], allowComment: true },
    ],
  });
  expect((await handle.outcome).status).toBe('answered');
  await service.close();
  await asks.close();
  return handle.id;
}

describe('ask-engine show, list and export on asks that redact and asks that do not', () => {
  let redacted: string;
  let plain: string;

  beforeAll(async () => {
    redacted = await answeredAsk(true, HIDDEN, HIDDEN_COMMENT);
    plain = await answeredAsk(false, SHOWN);
  }, 60_000);

  /** Runs one command, expects it to succeed, and returns its stdout. */
  async function output(args: string[]): Promise<string> {
    const result = await runCli([...args, '--store', store]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return result.stdout;
  }

  it('show prints [redacted] for the answers of an ask that redacts, and the answers of one that does not', async () => {
    const hidden = await output(['show', redacted]);
    expect(hidden).not.toContain(HIDDEN);
    expect(hidden).not.toContain(HIDDEN_COMMENT);
    expect(hidden).toContain('outcome {"status":"answered","answers":"[redacted]"');
    expect(await output(['show', plain])).toContain(SHOWN);
  });

  it('show --json gives the same outcome as the history: [redacted] where the ask redacts', async () => {
    const hidden = await output(['show', redacted, '--json']);
    expect(hidden).not.toContain(HIDDEN);
    expect(hidden).not.toContain(HIDDEN_COMMENT);
    const { ask, history } = JSON.parse(hidden);
    expect(ask.outcome).toEqual({ status: 'answered', answers: '[redacted]' });
    const answered = history.find((event: { to: string }) => event.to === 'answered');
    expect(answered.data.answers).toBe('[redacted]');
    const shown = JSON.parse(await output(['show', plain, '--json']));
    expect(shown.ask.outcome.answers[0].response.text).toBe(SHOWN);
  });

  it('list --json hides the answers of the ask that redacts only', async () => {
    const listed = await output(['list', '--json']);
    expect(listed).not.toContain(HIDDEN);
    expect(listed).not.toContain(HIDDEN_COMMENT);
    const { items } = JSON.parse(listed);
    const byId = new Map(items.map((item: { askId: string }) => [item.askId, item]));
    expect((byId.get(redacted) as { outcome: unknown }).outcome).toEqual({
      status: 'answered',
      answers: '[redacted]',
    });
    expect(listed).toContain(SHOWN);
  });

  it('export hides the answers of the ask that redacts only', async () => {
    const exported = await output(['export']);
    expect(exported).not.toContain(HIDDEN);
    expect(exported).not.toContain(HIDDEN_COMMENT);
    expect(exported).toContain(SHOWN);
    const lines = exported
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.ask.askId).sort()).toEqual([redacted, plain].sort());
  });
});

describe('ask-engine answer and resume on asks that redact', () => {
  /** A redacting service on the store, its asks deferred to `thread`; closed after `work`. */
  async function withRedactingService(
    thread: string,
    work: (service: InteractionService) => Promise<void>,
  ) {
    const { createInteractionService, createScriptedProvider } = await import('ask-engine');
    const { createSqliteAskStore } = await import('ask-engine/sqlite');
    const asks = createSqliteAskStore({ path: store });
    const service = createInteractionService({ store: asks, redact: true });
    service.registerProvider(createScriptedProvider([{ defer: thread }]));
    try {
      await work(service);
    } finally {
      await service.close();
      await asks.close();
    }
  }

  it('answer prints the outcome of a quorum it decided without the other responses', async () => {
    let askId = '';
    await withRedactingService('thread-quorum', async (service) => {
      const handle = service.start(
        { question: 'Which password?' },
        { quorum: { required: 2, agree: 'any' } },
      );
      await handle.outcome;
      askId = handle.id;
      await service.respond(
        askId,
        [{ questionId: 'q1', response: { kind: 'freeform', text: HIDDEN } }],
        { by: { recipient: 'bo' } },
      );
    });
    const ok = '[{"questionId":"q1","response":{"kind":"freeform","text":"mine"}}]';
    const result = await runCli(['answer', askId, ok, '--store', store]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain(HIDDEN);
    const outcome = JSON.parse(result.stdout);
    expect(outcome).toMatchObject({ askId, status: 'answered', answers: '[redacted]' });
    expect(outcome.responses.map((response: { by: string }) => response.by)).toEqual([
      'bo',
      userInfo().username,
    ]);
  });

  it('resume prints the outcome with its ask id and the answers redacted', async () => {
    let askId = '';
    await withRedactingService('thread-r', async (service) => {
      const handle = service.start({ question: 'Which password?' });
      await handle.outcome;
      askId = handle.id;
    });
    const typed = `[{"questionId":"q1","response":{"kind":"freeform","text":"${HIDDEN}"}}]`;
    const result = await runCli(['resume', 'thread-r', typed, '--store', store]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain(HIDDEN);
    expect(JSON.parse(result.stdout)).toEqual({
      askId,
      status: 'answered',
      answers: '[redacted]',
      answeredBy: { recipient: userInfo().username, channel: 'cli' },
    });
  });
});
