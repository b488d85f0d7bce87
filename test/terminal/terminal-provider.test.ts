import { userInfo } from 'node:os';
import type { ReadStream, WriteStream } from 'node:tty';
import { describe, expect, it } from 'vitest';
import type { AskUserQuestion } from '../../src/contracts/question.js';
import type { AskUserRequest } from '../../src/contracts/request.js';
import type { AskProviderContext } from '../../src/engine/provider.js';
import { validateAskUserAnswers } from '../../src/rules/validate-answers.js';
import { createTerminalProvider } from '../../src/terminal/terminal-provider.js';
import { FakeTerminal, KEY, plain } from './fake-terminal.js';

const question: AskUserQuestion = {
  id: 'q1',
  header: 'Deploy',
  question: 'Deploy now?',
  options: [{ title: 'Yes' }, { title: 'No' }],
  allowMultiple: false,
  allowFreeform: true,
  allowComment: false,
};

function context(overrides: Partial<AskProviderContext> = {}): AskProviderContext {
  return { askId: 'a1', signal: new AbortController().signal, reportProgress() {}, ...overrides };
}

/** Waits for the next frame (drawn once the keys of one burst are handled). */
const frame = () => new Promise((resolve) => setTimeout(resolve, 30));

describe('createTerminalProvider', () => {
  it('answers cancelled / unavailable at once without a TTY', async () => {
    const notTty = { isTTY: false } as unknown as ReadStream & WriteStream;
    const provider = createTerminalProvider({ settingsPath: false, input: notTty, output: notTty });
    await expect(provider.ask({ questions: [question] }, context())).resolves.toMatchObject({
      status: 'cancelled',
      reason: 'unavailable',
    });
  });

  it('returns answers that pass validateAskUserAnswers and restores the terminal', async () => {
    const terminal = new FakeTerminal();
    const provider = createTerminalProvider({ settingsPath: false, terminal });
    const request: AskUserRequest = { questions: [question] };
    const outcome = provider.ask(request, context());
    await frame();
    expect(plain(terminal.written)).toContain('Deploy now?');
    terminal.press(KEY.down, KEY.enter);
    const result = await outcome;
    expect(result).toEqual({
      status: 'answered',
      answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['No'] } }],
      answeredBy: { recipient: userInfo().username, channel: 'terminal' },
    });
    if (result.status === 'answered') {
      expect(validateAskUserAnswers(request.questions, result.answers)).toEqual(result.answers);
    }
    expect(terminal.stopped).toBe(true);
    expect(plain(terminal.written)).toContain('✔ ask_user answered');
  });

  it('records who answered as the host says, or nobody with answeredBy: false', async () => {
    for (const [answeredBy, expected] of [
      [
        { recipient: 'ops-on-call', channel: 'ssh' },
        { recipient: 'ops-on-call', channel: 'ssh' },
      ],
      [false, undefined],
    ] as const) {
      const terminal = new FakeTerminal();
      const provider = createTerminalProvider({ settingsPath: false, terminal, answeredBy });
      const outcome = provider.ask({ questions: [question] }, context());
      await frame();
      terminal.press(KEY.enter);
      expect((await outcome) as { answeredBy?: unknown }).toEqual({
        status: 'answered',
        answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } }],
        ...(expected === undefined ? {} : { answeredBy: expected }),
      });
    }
    expect(() =>
      createTerminalProvider({ settingsPath: false, answeredBy: { recipient: 'a\tb' } }),
    ).toThrow(/`answeredBy\.recipient` contains the control character \\x09/);
  });

  it('records nobody for a cancel', async () => {
    const terminal = new FakeTerminal();
    const provider = createTerminalProvider({ settingsPath: false, terminal });
    const outcome = provider.ask({ questions: [question] }, context());
    await frame();
    terminal.press(KEY.escape);
    expect(await outcome).toEqual({ status: 'cancelled', reason: 'user' });
  });

  it('closes the UI and rejects with the cause when the signal aborts', async () => {
    const terminal = new FakeTerminal();
    const controller = new AbortController();
    const provider = createTerminalProvider({ settingsPath: false, terminal });
    const outcome = provider.ask({ questions: [question] }, context({ signal: controller.signal }));
    await frame();
    const cause = new Error('drained');
    controller.abort(cause);
    await expect(outcome).rejects.toBe(cause);
    expect(terminal.stopped).toBe(true);
    await provider.whenIdle();
  });

  it('draws its closing line and gives the terminal back before the outcome is handed out', async () => {
    const terminal = new FakeTerminal();
    const controller = new AbortController();
    const now = 1_000_000;
    let clock = now;
    const provider = createTerminalProvider({ settingsPath: false, terminal, now: () => clock });
    const outcome = provider.ask(
      { questions: [question] },
      context({ signal: controller.signal, deadlineAt: now + 3_000 }),
    );
    await frame();
    clock = now + 3_000;
    controller.abort(new DOMException('Ask a1-0 reached its deadline', 'TimeoutError'));
    // Synchronously, inside abort(): the summary is on screen and raw mode is off.
    expect(terminal.stopped).toBe(true);
    expect(plain(terminal.writes.at(-1) ?? '')).toContain('✖ ask_user timed out after 3s');
    expect(terminal.written).not.toContain('a1-0');
    const written = terminal.writes.length;
    await expect(outcome).rejects.toThrow('deadline');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(terminal.writes.length).toBe(written);
  });

  it('never clears the screen or the scrollback, on resize only its own lines', async () => {
    const terminal = new FakeTerminal(100, 30);
    const provider = createTerminalProvider({ settingsPath: false, terminal });
    const outcome = provider.ask({ questions: [question] }, context());
    await frame();
    terminal.resize(60, 20);
    await frame();
    terminal.resize(120, 40);
    await frame();
    terminal.press(KEY.down);
    await frame();
    terminal.press(KEY.enter);
    await outcome;
    expect(terminal.written).not.toContain('\x1b[2J');
    expect(terminal.written).not.toContain('\x1b[3J');
    expect(terminal.written).not.toContain('\x1b[H');
    // Redraws (first frame, resizes, the closing summary) start from the ask's first line and
    // clear only below it.
    expect(terminal.writes.filter((data) => data.includes('\r\x1b[J')).length).toBeGreaterThan(2);
  });

  it('shows a countdown when the ask has a deadline', async () => {
    const terminal = new FakeTerminal();
    const now = 1_000_000;
    const provider = createTerminalProvider({ settingsPath: false, terminal, now: () => now });
    const outcome = provider.ask({ questions: [question] }, context({ deadlineAt: now + 42_000 }));
    await frame();
    expect(plain(terminal.written)).toContain('⏱ 42s left');
    terminal.press(KEY.escape);
    await expect(outcome).resolves.toEqual({ status: 'cancelled', reason: 'user' });
  });

  it('hides the overlay without losing typed text; keys while hidden answer nothing', async () => {
    const terminal = new FakeTerminal(80, 20);
    const provider = createTerminalProvider({
      settingsPath: false,
      terminal,
      preferences: { displayMode: 'overlay' },
    });
    const outcome = provider.ask(
      { questions: [{ ...question, options: [] }], hints: { displayMode: 'inline' } },
      context(),
    );
    await frame();
    expect(plain(terminal.written)).toMatch(/┌─ ask_user/);
    terminal.press('d', 'r', 'a', 'f', 't', KEY.altO);
    await frame();
    expect(plain(terminal.writes.at(-1) ?? '')).toContain('ask_user is waiting');
    expect(plain(terminal.writes.at(-1) ?? '')).not.toContain('┌');
    terminal.press(KEY.enter, 'x');
    terminal.press(KEY.altO);
    await frame();
    terminal.press(KEY.enter);
    await expect(outcome).resolves.toEqual({
      status: 'answered',
      answers: [{ questionId: 'q1', response: { kind: 'freeform', text: 'draft' } }],
      answeredBy: { recipient: userInfo().username, channel: 'terminal' },
    });
  });

  it('shows concurrent asks one after the other', async () => {
    const terminal = new FakeTerminal();
    const provider = createTerminalProvider({ settingsPath: false, terminal });
    const first = provider.ask({ questions: [question] }, context({ askId: 'a' }));
    const second = provider.ask(
      { questions: [{ ...question, question: 'Second question?' }] },
      context({ askId: 'b' }),
    );
    await frame();
    expect(plain(terminal.written)).not.toContain('Second question?');
    terminal.press(KEY.enter);
    await first;
    await frame();
    await frame();
    expect(plain(terminal.written)).toContain('Second question?');
    terminal.press(KEY.escape);
    await expect(second).resolves.toEqual({ status: 'cancelled', reason: 'user' });
  });

  it('throws at creation for a bad local preference, naming it', () => {
    expect(() =>
      createTerminalProvider({
        settingsPath: false,
        preferences: { overlayToggleKey: 'hyper+q' },
      }),
    ).toThrow(/overlayToggleKey.*"hyper\+q"/);
  });
});

describe('a quorum ask in the terminal', () => {
  it('shows who has responded and how many more are needed in its footer, live, and counts its answer as the terminal user’s response', async () => {
    const { createInteractionService, createMemoryAskStore } = await import('../../src/index.js');
    const service = createInteractionService({ store: createMemoryAskStore() });
    const terminal = new FakeTerminal();
    service.registerProvider(
      createTerminalProvider({
        settingsPath: false,
        terminal,
        answeredBy: { recipient: 'ben', channel: 'terminal' },
      }),
    );
    const handle = service.start(
      { question: 'Deploy now?', options: ['Yes', 'No'] },
      { quorum: { required: 2, from: ['ana', 'ben', 'cy'] } },
    );
    await frame();
    expect(plain(terminal.written)).toContain(
      'Needs 2 people of ana, ben, cy giving the same answer.',
    );
    expect(plain(terminal.written)).toContain('No one has responded yet. 2 more responses needed.');
    const yes = [
      { questionId: 'q1', response: { kind: 'selection' as const, selections: ['Yes'] } },
    ];
    await service.respond(handle.id, yes, { by: { recipient: 'ana', channel: 'web' } });
    // The next frame (a key, a countdown tick) shows the response that came in elsewhere.
    terminal.press(KEY.down, KEY.up);
    await frame();
    expect(plain(terminal.writes.at(-1) ?? '')).toContain(
      'Responded so far: ana. 1 more response needed.',
    );
    terminal.press(KEY.enter);
    const outcome = await handle.outcome;
    expect(outcome).toMatchObject({ status: 'answered', answers: yes });
    expect(outcome.status === 'answered' && outcome.responses?.map((each) => each.by)).toEqual([
      'ana',
      'ben',
    ]);
    await service.close();
  });
});
