/** The pi extension, loaded into a real pi agent session (pi's SDK and its offline faux model). */
import { fauxAssistantMessage, fauxText, fauxToolCall } from '@mariozechner/pi-ai';
import type { ExtensionFactory } from '@mariozechner/pi-coding-agent';
import { createInteractionService } from 'ask-engine';
import askEngineExtension, { createAskEngineExtension } from 'ask-engine/pi';
import { afterEach, describe, expect, it } from 'vitest';
import { createInteractiveUi, type PiHost, startPi } from './pi-host.js';

const KEY = { enter: '\r', down: '\x1b[B', escape: '\x1b' };

let host: PiHost | undefined;
afterEach(() => {
  host?.dispose();
  host = undefined;
});

const askDatabase = fauxAssistantMessage(
  fauxToolCall(
    'ask_user',
    { question: 'Which database?', options: ['PostgreSQL', 'SQLite'] },
    { id: 'call-1' },
  ),
  { stopReason: 'toolUse' },
);
const done = fauxAssistantMessage(fauxText('Done.'));

function toolResults(session: PiHost['session']) {
  return session.messages.flatMap((message) =>
    message.role === 'toolResult'
      ? [
          {
            text: message.content.map((part) => (part.type === 'text' ? part.text : '')).join(''),
            isError: message.isError,
            details: message.details,
          },
        ]
      : [],
  );
}

describe('ask-engine/pi', () => {
  it('registers ask_user with its label, prompt guidelines, sequential mode and renderers', async () => {
    host = await startPi(askEngineExtension satisfies ExtensionFactory, [done]);
    const [tool] = host.registered;
    expect(host.registered).toHaveLength(1);
    expect(tool?.name).toBe('ask_user');
    expect(tool?.label).toBe('Ask user');
    expect(tool?.executionMode).toBe('sequential');
    expect(tool?.promptGuidelines?.join('\n')).toMatch(/end your turn immediately/);
    expect(tool?.renderCall).toBeTypeOf('function');
    expect(tool?.renderResult).toBeTypeOf('function');
    expect(host.session.getAllTools().map((info) => info.name)).toContain('ask_user');
  });

  it('answers unavailable, as an error, when pi runs without a UI (print and JSON modes)', async () => {
    host = await startPi(askEngineExtension, [askDatabase, done]);
    await host.session.prompt('Set up the database.');
    const [result] = toolResults(host.session);
    expect(result?.isError).toBe(true);
    expect(result?.text).toMatch(/^Nobody could be asked/);
    expect(result?.text).toContain('without an interactive UI');
    expect(result?.text).toContain('Nothing was chosen');
  });

  it('asks in the terminal view through ctx.ui.custom() and gives the model the choice', async () => {
    const interactive = createInteractiveUi();
    host = await startPi(askEngineExtension, [askDatabase, done]);
    await host.session.bindExtensions({ uiContext: interactive.ui });
    const turn = host.session.prompt('Set up the database.');
    const view = await interactive.nextComponent();
    expect(view.render(100).join('\n')).toContain('Which database?');
    interactive.press(view, KEY.down, KEY.enter);
    await turn;
    const [result] = toolResults(host.session);
    expect(result?.isError).toBe(false);
    expect(result?.text).toContain('Selected: "SQLite"');
    expect(result?.details).toMatchObject({ status: 'answered', toolCallId: 'call-1' });
  });

  it('counts down to the deadline in the view when the tool has a timeout', async () => {
    const interactive = createInteractiveUi();
    host = await startPi(createAskEngineExtension({ timeoutMs: 120_000 }), [askDatabase, done]);
    await host.session.bindExtensions({ uiContext: interactive.ui });
    const turn = host.session.prompt('Set up the database.');
    const view = await interactive.nextComponent();
    expect(view.render(100).join('\n')).toMatch(/[12]:\d\d left/);
    interactive.press(view, KEY.enter);
    await turn;
    expect(toolResults(host.session)[0]?.text).toContain('Selected: "PostgreSQL"');
  });

  it('reports a wizard’s progress through onUpdate while the person answers', async () => {
    const interactive = createInteractiveUi();
    const wizard = fauxAssistantMessage(
      fauxToolCall(
        'ask_user',
        {
          questions: [
            { question: 'Which database?', options: ['PostgreSQL', 'SQLite'] },
            { question: 'Which cache?', options: ['Redis', 'None'] },
          ],
        },
        { id: 'call-2' },
      ),
      { stopReason: 'toolUse' },
    );
    host = await startPi(askEngineExtension, [wizard, done]);
    await host.session.bindExtensions({ uiContext: interactive.ui });
    const updates: string[] = [];
    host.session.subscribe((event) => {
      if (event.type === 'tool_execution_update') {
        const partial = event.partialResult as { content: { text: string }[] };
        updates.push(partial.content[0]?.text ?? '');
      }
    });
    const turn = host.session.prompt('Set up storage.');
    const view = await interactive.nextComponent();
    interactive.press(view, KEY.enter);
    await expect.poll(() => updates).toContain('1/2 answered');
    interactive.press(view, KEY.enter, KEY.enter);
    await turn;
    const [result] = toolResults(host.session);
    expect(result?.text).toContain('The user answered 2 of 2 questions.');
  });

  it('asks through the service it is given, and a dismissal is an answer about the question, not a choice', async () => {
    const service = createInteractionService();
    const events: string[] = [];
    service.events$.subscribe((event) => events.push(event.type));
    const interactive = createInteractiveUi();
    host = await startPi(createAskEngineExtension({ service }), [askDatabase, done]);
    await host.session.bindExtensions({ uiContext: interactive.ui });
    const turn = host.session.prompt('Set up the database.');
    interactive.press(await interactive.nextComponent(), KEY.escape);
    await turn;
    const [result] = toolResults(host.session);
    expect(result?.text).toMatch(/^The user dismissed the question/);
    expect(events).toContain('start');
  });

  it('lets go of the provider when pi reloads, so the reloaded extension registers on the same service', async () => {
    const service = createInteractionService();
    host = await startPi(createAskEngineExtension({ service }), [done]);
    await host.session.reload();
    // The second load registers the provider again before the tool: it would throw
    // DUPLICATE_PROVIDER (and never reach registerTool) had the first one been kept.
    expect(host.registered).toHaveLength(2);
    expect(await service.ask({ question: 'Asked outside a tool call?' })).toEqual({
      status: 'cancelled',
      reason: 'unavailable',
      message: 'The question did not come from a pi tool call, so there is no pi UI to show it in.',
    });
  });

  it('renders the call with its question and the result with its text, control characters made visible', async () => {
    host = await startPi(askEngineExtension, [done]);
    const interactive = createInteractiveUi();
    const [tool] = host.registered;
    const context = {
      args: {},
      toolCallId: 'c',
      invalidate: () => {},
      lastComponent: undefined,
      state: {},
      cwd: '.',
      executionStarted: true,
      argsComplete: true,
      isPartial: false,
      expanded: false,
      showImages: false,
      isError: false,
    };
    const call = tool?.renderCall?.(
      { question: 'Ship \x1b[31mnow\x1b[0m?' },
      interactive.ui.theme,
      context,
    );
    expect(call?.render(100).join('\n')).toContain('\\x1b[31mnow');
    const shown = tool?.renderResult?.(
      {
        content: [{ type: 'text', text: '1/2 answered' }],
        details: { status: 'pending', askId: 'a', toolCallId: 'c', answered: 1, total: 2 },
      },
      { expanded: false, isPartial: true },
      interactive.ui.theme,
      context,
    );
    expect(shown?.render(100).join('\n')).toContain('1/2 answered');
  });
});
