/// <reference lib="dom.iterable" />
/**
 * The MCP Apps form's view (bundled for the browser and inlined in the `ui://` resource): it
 * renders the ask the `ask_user` result names with the answer page's own form and script, and
 * answers through the app-only `ask_user_answer` tool. The outcome goes to the conversation as
 * the user's next message, which the deferred `ask_user` result told the model to wait for.
 */
import { App } from '@modelcontextprotocol/ext-apps';
import type { UiFormAnswer } from '../contracts/form.js';
import { buildAskUserForm } from '../form/build-form.js';
import { renderAnswerMain } from '../web/answer-page.js';
import { collect, enhance } from '../web/browser/answer-page.js';
import { html, shownText } from '../web/html.js';
import type { PostedValues } from '../web/refusal-words.js';
import {
  ANSWER_TOOL,
  APP_FORM_META_KEY,
  type AppAnswerOutcome,
  type AppFormData,
} from './apps-contract.js';

const main = document.querySelector('main')!;
const app = new App({ name: 'ask-engine form', version: '1' }, {});

app.ontoolresult = (result) => {
  const data = (result._meta as Record<string, unknown> | undefined)?.[APP_FORM_META_KEY];
  if (!isFormData(data)) {
    notice('Nothing to answer', 'This result carries no question for you.');
    return;
  }
  try {
    show(data);
  } catch (error) {
    // The codec refuses questions it cannot render: say so rather than keep "Loading".
    notice('This question cannot be shown', String((error as Error).message ?? error));
  }
};
app.ontoolcancelled = ({ reason }) => {
  notice('The question was withdrawn', reason ?? 'The agent stopped waiting for the answer.');
};

app.connect().catch((error: unknown) => {
  notice('The form could not start', String((error as Error).message ?? error));
});

/** The ask's form; after a refusal, with what the person entered and why it was refused. */
function show(data: AppFormData, refused?: { values: PostedValues; error: string }): void {
  const form = buildAskUserForm(data.questions);
  main.innerHTML = renderAnswerMain({
    askId: data.askId,
    questions: data.questions,
    form,
    token: data.token,
    ...(data.agent === undefined ? {} : { agent: data.agent }),
    ...(data.deadlineAt === undefined ? {} : { deadlineAt: data.deadlineAt, now: Date.now() }),
    ...(refused === undefined ? {} : refused),
  }).value;
  const element = main.querySelector<HTMLFormElement>('form.answer-form')!;
  enhance(element);
  // Registered after the page script's own listener, which stops an answer the codec refuses.
  element.addEventListener('submit', (event) => {
    if (event.defaultPrevented) return;
    event.preventDefault();
    const submitter = (event as SubmitEvent).submitter as HTMLButtonElement | null;
    const answer: UiFormAnswer =
      submitter?.dataset.kind === 'cancel'
        ? { action: submitter.value, values: {} }
        : collect(element);
    for (const button of element.querySelectorAll('button')) button.disabled = true;
    void send(data, answer);
  });
}

async function send(data: AppFormData, answer: UiFormAnswer): Promise<void> {
  let outcome: AppAnswerOutcome;
  try {
    const result = await app.callServerTool({
      name: ANSWER_TOOL,
      arguments: { askId: data.askId, token: data.token, answer },
    });
    const content = result.structuredContent as AppAnswerOutcome | undefined;
    if (typeof content?.status !== 'string') {
      throw new Error(`the server's reply was not an answer outcome: ${JSON.stringify(result)}`);
    }
    outcome = content;
  } catch (error) {
    notice('Your answer was not sent', String((error as Error).message ?? error));
    return;
  }
  if (outcome.status === 'refused') {
    show(data, { values: answer.values, error: outcome.message });
    return;
  }
  if (outcome.status === 'closed') {
    notice('This question is closed', outcome.message);
    return;
  }
  notice(outcome.title, outcome.message);
  let problem: string | undefined;
  try {
    problem = await tellTheAgent(outcome.result);
  } catch (error) {
    problem = `the host refused it (${String((error as Error).message ?? error)})`;
  }
  if (problem !== undefined) {
    notice(
      outcome.title,
      `${outcome.message} It could not be passed on to the agent: ${problem}. Tell the agent in your next message.`,
    );
  }
}

/**
 * The outcome as the user's next message, or into the model's context where the host takes no
 * messages; what stopped it when the host takes neither.
 */
async function tellTheAgent(text: string): Promise<string | undefined> {
  const host = app.getHostCapabilities();
  const content = [{ type: 'text' as const, text }];
  if (host?.message !== undefined) {
    const sent = await app.sendMessage({ role: 'user', content });
    return sent.isError === true ? 'the host did not deliver the message' : undefined;
  }
  if (host?.updateModelContext !== undefined) {
    await app.updateModelContext({ content });
    return undefined;
  }
  return 'this host takes neither messages nor model context from the form';
}

function notice(title: string, message: string): void {
  main.innerHTML =
    html`<h1>${shownText(title)}</h1><p class="lead" role="status">${shownText(message)}</p>`.value;
}

function isFormData(value: unknown): value is AppFormData {
  const data = value as Partial<AppFormData> | null;
  return (
    typeof data === 'object' &&
    data !== null &&
    typeof data.askId === 'string' &&
    typeof data.token === 'string' &&
    Array.isArray(data.questions)
  );
}
