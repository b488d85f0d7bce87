/** The answer page: the ask's generic form as a plain HTML form, and the pages around it. */
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { UiForm, UiFormField } from '../contracts/form.js';
import type { AnsweredBy } from '../contracts/outcome.js';
import type { AskUserQuestion } from '../contracts/question.js';
import { planEditFields } from '../form/edit-fields.js';
import { describeQuorum, type QuorumProgress } from '../rules/quorum.js';
import { type Html, html, shownText } from './html.js';
import { renderPage } from './page-shell.js';
import { hasOwnHeader, type PostedValues, questionHeading } from './refusal-words.js';
import { timeHtml } from './shown-time.js';

export interface AnswerPageInput {
  askId: string;
  questions: readonly AskUserQuestion[];
  /** The name of the asking agent, as the caller set it. */
  agent?: string;
  /** When the ask times out. */
  deadlineAt?: number;
  /** The time the page is rendered at, for "in 2 hours" after the deadline. */
  now?: number;
  /** `buildAskUserForm(questions)`. */
  form: UiForm;
  token: string;
  /** What the person typed and chose, shown again after a refusal. */
  values?: PostedValues;
  /** Why the last submit was refused, in the person's words (`refusalInWords`). */
  error?: string;
  /** The recipient a recipient's own link answers as. */
  answeringAs?: string;
  /**
   * A quorum ask's progress: shown above the form (who has responded, how many more are
   * needed), and the form has no "Decline": one person cannot dismiss what several decide.
   */
  quorum?: QuorumProgress;
}

const PART_LABELS: Record<string, string> = {
  mode: 'How do you answer?',
  text: 'Your answer',
  comment: 'Comment (optional)',
};

/**
 * Renders the form page. Every text from the model is escaped and shown as written (Markdown
 * stays text, control characters show as escapes); the form posts urlencoded to the same path
 * with the token in a hidden field, and works without the script.
 */
export function renderAnswerPage(input: AnswerPageInput): string {
  const title = pageTitle(input.form, input.questions);
  return renderPage({ title, main: renderAnswerMain(input), script: 'answer-page.js', depth: 1 });
}

/**
 * The form page's content, without the document around it: what the MCP Apps form (`src/mcp`)
 * renders in its view too, so both show one form.
 */
export function renderAnswerMain(input: AnswerPageInput): Html {
  const { askId, questions, form, token, values = {}, error, answeringAs, quorum } = input;
  const byQuestion = groupFields(form.fields);
  const title = pageTitle(form, questions);
  const context = sharedContext(questions);
  return html`
<h1>${shownText(title)}</h1>
${askedBy(input)}
${form.body === undefined ? '' : html`<p class="lead">${shownText(form.body)}</p>`}
${answeringAs === undefined ? '' : html`<p class="answering-as">This link is yours: you answer as <strong>${shownText(answeringAs)}</strong>.</p>`}
${quorum === undefined ? '' : quorumStanding(quorum)}
${error === undefined ? '' : html`<div class="problem" role="alert" id="refusal"><h2>Your answer was not recorded</h2><p>${shownText(error)}</p><p>Everything you entered is still below; correct it and send again.</p></div>`}
<form method="post" action="./${encodeURIComponent(askId)}" accept-charset="utf-8" class="answer-form" novalidate
  data-questions="${JSON.stringify(questions)}">
<input type="hidden" name="token" value="${token}">
${context === undefined ? '' : html`<div class="context shared-context">${shownText(context)}</div>`}
${questions.map((question, index) =>
  renderQuestion(question, byQuestion.get(`q${index + 1}`) ?? [], values, {
    // One question's header heads the page; several are each headed by their own.
    heading: questions.length > 1 ? questionHeading(question, index) : question.question,
    shared: context,
  }),
)}
<p class="live-status" id="live-status" role="status" aria-live="polite"></p>
<div class="actions"><button type="submit" name="action" value="submit">Send answer</button>
${quorum === undefined ? declineButton(form) : ''}</div>
</form>`;
}

/**
 * The page's heading: the one question's header when the caller gave one, else "Your answer is
 * needed" (the question itself heads its group below); the form's title for several.
 */
function pageTitle(form: UiForm, questions: readonly AskUserQuestion[]): string {
  if (questions.length > 1) return form.title;
  return hasOwnHeader(questions[0]!, 0) ? form.title : 'Your answer is needed';
}

/** Who asks and by when: the agent's name and the deadline, with how far off it is. */
function askedBy({ agent, deadlineAt, now }: AnswerPageInput): Html | string {
  if (agent === undefined && deadlineAt === undefined) return '';
  const who =
    agent === undefined ? '' : html`Asked by <strong class="agent">${shownText(agent)}</strong>`;
  const by =
    deadlineAt === undefined
      ? ''
      : html`${agent === undefined ? 'Answer' : '; answer'} by <span class="deadline">${timeHtml(deadlineAt, now)}</span>`;
  return html`<p class="asked-by">${who}${by}.</p>`;
}

/**
 * The context every question carries, when there are several and they all carry the same (a
 * request's top-level context reaches each question): shown once, above them.
 */
function sharedContext(questions: readonly AskUserQuestion[]): string | undefined {
  const context = questions[0]?.context;
  if (questions.length < 2 || context === undefined) return undefined;
  return questions.every((question) => question.context === context) ? context : undefined;
}

/**
 * After a successful submit: what was recorded, question by question, and as whom; for a
 * response to a quorum ask, where the quorum stands after it.
 */
export function renderRecordedPage(
  questions: readonly AskUserQuestion[],
  answers: readonly AskUserQuestionAnswer[],
  answeredBy?: AnsweredBy,
  quorum?: QuorumProgress,
): string {
  const title = quorum === undefined ? 'Answer recorded' : 'Response recorded';
  const main = html`
<h1>${title}</h1>
<p class="lead" role="status">Thank you. This is what was recorded${answeredBy === undefined ? '' : html`, as answered by <strong class="answered-by">${shownText(answeredBy.recipient)}</strong>`}; you can close this page.</p>
${quorum === undefined ? '' : quorumStanding(quorum)}
<dl class="recorded">
${answers.map((answer) => {
  const index = questions.findIndex((candidate) => candidate.id === answer.questionId);
  const heading = index === -1 ? answer.questionId : questionHeading(questions[index]!, index);
  return html`<dt>${shownText(heading)}</dt><dd>${recordedResponse(answer)}</dd>`;
})}
</dl>`;
  return renderPage({ title, main, depth: 1 });
}

/** Who decides a quorum ask and where it stands: names only, never what anyone answered. */
function quorumStanding(quorum: QuorumProgress): Html {
  const [rule, standing] = describeQuorum(quorum);
  return html`<div class="quorum" id="quorum"><p>${shownText(rule)}</p><p class="quorum-standing">${shownText(standing)}</p></div>`;
}

/** A page that explains why there is nothing to answer (any non-form response). */
export function renderNoticePage(title: string, message: string): string {
  const main = html`<h1>${title}</h1><p class="lead">${shownText(message)}</p>`;
  return renderPage({ title, main, depth: 1 });
}

/**
 * One question's group under `heading` (its header, or its text), the question's text below a
 * header; its context unless the page shows it once for all (`shared`).
 */
function renderQuestion(
  question: AskUserQuestion,
  fields: readonly UiFormField[],
  values: PostedValues,
  { heading, shared }: { heading: string; shared: string | undefined },
): Html {
  const context = question.context === shared ? undefined : question.context;
  return html`
<fieldset class="question" id="${fields[0]?.id.split('.')[0] ?? question.id}">
<legend>${shownText(heading)}</legend>
${heading === question.question ? '' : html`<p class="question-text">${shownText(question.question)}</p>`}
${context === undefined ? '' : html`<div class="context">${shownText(context)}</div>`}
${fields.filter((field) => !isEditField(field)).map((field) => renderField(field, question, values))}
${editFields(fields, question, values)}
</fieldset>`;
}

/** `q<n>.edit<k>`: a tool approval's edit field (see the form's edit-fields.ts). */
function isEditField(field: UiFormField): boolean {
  return /^q\d+\.edit\d+$/.test(field.id);
}

/**
 * A tool approval's edit fields, prefilled with the proposed input: sending them changed, with
 * the approving pick, approves the edited input (checked against the tool's schema).
 */
function editFields(
  fields: readonly UiFormField[],
  question: AskUserQuestion,
  values: PostedValues,
): Html | string {
  const edits = fields.filter(isEditField);
  const intent = question.intent;
  if (edits.length === 0 || intent?.kind !== 'tool-approval') return '';
  return html`<fieldset class="field edit-fields" data-field="${edits[0]!.id.split('.')[0]}.edits">
<legend>Input of ${shownText(JSON.stringify(intent.toolName))}: edit it to approve with changes</legend>
<p class="edit-note">Change a value and pick “${shownText(intent.approve)}” to approve the call with your changes; each change is checked against the tool's input schema and recorded with your answer.</p>
${edits.map((field) => renderField(field, question, values))}
</fieldset>`;
}

function renderField(field: UiFormField, question: AskUserQuestion, values: PostedValues): Html {
  const part = field.id.slice(field.id.indexOf('.') + 1);
  const edit = isEditField(field);
  // An edit field's label is the property's name (plain text); the others' come from their part.
  const label = edit ? shownText(field.label) : (PART_LABELS[part] ?? part);
  // Prefilled (an edit field's current value) until the person posts something else.
  const posted = Object.hasOwn(values, field.id)
    ? values[field.id]
    : 'default' in field
      ? field.default
      : undefined;
  if (field.type === 'text') {
    const value = posted;
    const counter = `${field.id}.count`;
    // The newline after <textarea> is eaten by the HTML parser, so text kept after a refusal
    // that starts with a line break keeps it.
    return html`<div class="field text-field">
<label for="${field.id}">${label}</label>
${edit ? editHelp(field, question) : ''}
<textarea id="${field.id}" name="${field.id}" rows="${part === 'comment' || (edit && !field.multiline) ? 2 : 4}" data-max-bytes="${field.maxBytes}" aria-describedby="${counter}">
${typeof value === 'string' ? value : ''}</textarea>
<p class="counter" id="${counter}">Up to ${field.maxBytes} bytes of text (${field.maxBytes / 1024} KiB).</p>
</div>`;
  }
  const multiple = field.type === 'multi-choice';
  const chosen = new Set([posted ?? []].flat());
  const legend = part === 'selection' ? (multiple ? 'Choose any' : 'Choose one') : label;
  return html`<fieldset class="field choice-field${part === 'mode' ? ' mode-field' : ''}" data-field="${field.id}">
<legend>${legend}</legend>
${field.options.map((option) => {
  const id = `${field.id}.${option.id}`;
  // Descriptions come from the question as written: the form's copy is escaped for Markdown.
  const description =
    part === 'selection' ? question.options[optionIndex(option.id)]?.description : undefined;
  return html`<div class="option">
<input type="${multiple ? 'checkbox' : 'radio'}" id="${id}" name="${field.id}" value="${option.id}"${chosen.has(option.id) ? html` checked` : ''}${description === undefined ? '' : html` aria-describedby="${id}.description"`}>
<label for="${id}">${option.label}</label>
${description === undefined ? '' : html`<p class="option-description" id="${id}.description">${shownText(description)}</p>`}
</div>`;
})}
</fieldset>`;
}

/**
 * What an edit field edits, from the tool's own schema as written (the form's description is
 * escaped Markdown, for clients that render Markdown; this page shows text as written).
 */
function editHelp(field: UiFormField, question: AskUserQuestion): Html | string {
  const intent = question.intent;
  if (intent?.kind !== 'tool-approval') return '';
  const position = Number(field.id.slice(1, field.id.indexOf('.')));
  const plan = planEditFields(position, intent).find((candidate) => candidate.id === field.id);
  if (plan === undefined) return '';
  const notes = [
    ...(plan.description === undefined ? [] : [plan.description]),
    ...(plan.kind === 'json' ? ['Written as JSON.'] : []),
    ...(plan.required ? [] : ['Optional: leave it empty to leave it out.']),
  ];
  if (notes.length === 0) return '';
  return html`<p class="edit-help">${shownText(notes.join(' '))}</p>`;
}

function recordedResponse(answer: AskUserQuestionAnswer): Html {
  const { response } = answer;
  if (response === null) return html`<em>Skipped</em>`;
  if (response.kind === 'freeform')
    return html`<span class="typed">${shownText(response.text)}</span>`;
  return html`<ul>${response.selections.map((title) => html`<li>${shownText(title)}</li>`)}</ul>${
    response.comment === undefined
      ? ''
      : html`<p class="recorded-comment">Comment: <span class="typed">${shownText(response.comment)}</span></p>`
  }${
    response.input === undefined
      ? ''
      : html`<p class="recorded-input">With the input as you edited it:</p><pre class="typed">${shownText(JSON.stringify(response.input, null, 2))}</pre>`
  }`;
}

/** `q<n>` to its fields, in form order. */
function groupFields(fields: readonly UiFormField[]): Map<string, UiFormField[]> {
  const groups = new Map<string, UiFormField[]>();
  for (const field of fields) {
    const key = field.id.split('.')[0]!;
    groups.set(key, [...(groups.get(key) ?? []), field]);
  }
  return groups;
}

function optionIndex(optionId: string): number {
  return Number(optionId.slice('option'.length)) - 1;
}

/** The form's cancel action, offered as "Decline": the ask ends cancelled by the person. */
function declineButton(form: UiForm): Html | string {
  const cancel = form.actions.find((action) => action.kind === 'cancel');
  if (cancel === undefined) return '';
  return html`<button type="submit" name="action" value="${cancel.id}" data-kind="cancel" class="secondary" formnovalidate>Decline to answer</button>`;
}
