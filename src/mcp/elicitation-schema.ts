/** Turns normalized questions into one flat MCP elicitation form: a message and a requested schema. */
import type { PrimitiveSchemaDefinition } from '@modelcontextprotocol/server';
import type { UiFormChoice, UiFormField } from '../contracts/form.js';
import type { AskUserQuestion } from '../contracts/question.js';
import { buildAskUserForm } from '../form/build-form.js';
import { type EditFieldPlan, planEditFields } from '../form/edit-fields.js';
import { escapeMarkdown } from '../rules/escape-text.js';
import { MAX_ANSWER_BYTES } from '../rules/limits.js';

/** Where each question's answer goes in the flat form; property names follow the generic form's field ids. */
export interface ElicitationQuestionFields {
  readonly question: AskUserQuestion;
  /** `q<n>.selection` where the question has options. */
  readonly selection: string | undefined;
  /** `q<n>.text` where a typed answer is allowed. */
  readonly text: string | undefined;
  /** `q<n>.comment` where a comment on the picked options is allowed. */
  readonly comment: string | undefined;
  /** Option value (`option<k>`) to its option's title, exactly as spelled. */
  readonly titleByValue: ReadonlyMap<string, string>;
  /**
   * A tool approval's edit fields (`q<n>.edit<k>`, the generic form's), each an optional
   * property prefilled with the proposed input; empty for any other question.
   */
  readonly edits: readonly EditFieldPlan[];
}

export interface ElicitationForm {
  /** What is asked, escaped: the question and its context, or a wizard's question headers. */
  readonly subject: string;
  /** The form's message: the subject and how to fill the form in. */
  readonly message: string;
  readonly requestedSchema: {
    type: 'object';
    properties: Record<string, PrimitiveSchemaDefinition>;
    required?: string[];
  };
  readonly wizard: boolean;
  readonly fields: readonly ElicitationQuestionFields[];
}

const WIZARD_NOTE = 'Answer at least one question; leave a question empty to skip it.';
const PICK_OR_TYPE_NOTE =
  'Where a question offers both, pick an option or type an answer, not both.';

/**
 * Builds the elicitation form for `questions` (normalized, 1-4). Shown text is the generic
 * form's (`buildAskUserForm`), so it is escaped exactly as every other client sees it, and the
 * same limits are checked first (throws `UserInteractionError`, `LIMIT_EXCEEDED` and friends).
 *
 * A flat schema cannot say "exactly one of these" or "at least one question", so a question
 * with more than one way to answer, and every question of a wizard, has only optional
 * properties; `readElicitationContent` checks those rules after the reply.
 *
 * Text limits: `maxLength` counts characters, while the limit is `MAX_ANSWER_BYTES` of UTF-8;
 * a character is at least one byte, so `maxLength` only stops what is certainly too long, and
 * the byte limit is checked on the reply.
 */
export function buildElicitationForm(questions: readonly AskUserQuestion[]): ElicitationForm {
  const form = buildAskUserForm(questions);
  const wizard = questions.length > 1;
  const properties: Record<string, PrimitiveSchemaDefinition> = {};
  const required: string[] = [];
  const headers: string[] = [];
  const fields = questions.map((question, index): ElicitationQuestionFields => {
    const n = index + 1;
    const own = form.fields.filter((field) => field.id.startsWith(`q${n}.`));
    // The generic form puts the question on its first field: the escaped header as the label,
    // the escaped question and context as the description.
    const intro = own[0]!;
    headers.push(intro.label);
    const choices = own.find((field) => field.id === `q${n}.selection`);
    const options = choices !== undefined && choices.type !== 'text' ? choices.options : [];
    const hasOptions = options.length > 0;
    const pickOrType = hasOptions && question.allowFreeform;
    const optional = wizard || pickOrType;
    // A single question is the message itself; a wizard's questions each describe themselves.
    const about = wizard ? intro.description : undefined;

    const selection = hasOptions ? `q${n}.selection` : undefined;
    const text = question.allowFreeform ? `q${n}.text` : undefined;
    const comment = hasOptions && question.allowComment ? `q${n}.comment` : undefined;
    if (selection !== undefined) {
      properties[selection] = choiceProperty(question, intro.label, about, options, optional);
      if (!optional) required.push(selection);
    }
    if (text !== undefined) {
      properties[text] = {
        type: 'string',
        title: pickOrType ? `${intro.label}: or type your own answer` : intro.label,
        ...(pickOrType || about === undefined ? {} : { description: about }),
        ...(optional ? {} : { minLength: 1 }),
        maxLength: MAX_ANSWER_BYTES,
      };
      if (!optional) required.push(text);
    }
    const edits =
      question.intent?.kind === 'tool-approval' ? planEditFields(n, question.intent) : [];
    for (const plan of edits) {
      const field = own.find((candidate) => candidate.id === plan.id);
      if (field !== undefined) properties[plan.id] = editProperty(intro.label, field);
    }
    if (comment !== undefined) {
      properties[comment] = {
        type: 'string',
        title: `${intro.label}: comment (optional)`,
        description: `A note on the option${question.allowMultiple ? 's' : ''} you picked, at most ${MAX_ANSWER_BYTES} bytes of UTF-8.`,
        maxLength: MAX_ANSWER_BYTES,
      };
    }
    return {
      question,
      selection,
      text,
      comment,
      titleByValue: new Map(
        options.map((option, at) => [option.id, question.options[at]!.title] as const),
      ),
      edits,
    };
  });
  // A single question is the subject itself: the generic form's first field description.
  const subject = wizard ? `${form.title}: ${headers.join(', ')}.` : form.fields[0]!.description!;
  const notes = [
    subject,
    ...(wizard ? [WIZARD_NOTE] : []),
    ...(prefersAnswerPage(questions) ? [PICK_OR_TYPE_NOTE] : []),
  ];
  return {
    subject,
    message: notes.join('\n\n'),
    requestedSchema: {
      type: 'object',
      properties,
      ...(required.length > 0 ? { required } : {}),
    },
    wizard,
    fields,
  };
}

/**
 * True when some question can be answered both by picking and by typing: a flat form shows
 * that as two fields a person could both fill (it is checked after the reply), so the answer
 * page is the better place for it when the client can open one.
 */
export function prefersAnswerPage(questions: readonly AskUserQuestion[]): boolean {
  return questions.some((question) => question.options.length > 0 && question.allowFreeform);
}

/**
 * An edit field as an optional property, prefilled (`default`) with the proposed value: a choice
 * as `oneOf` of `{const, title}`, text as a string. The reply is read by the generic form's rules
 * (`editedInputOf`), so a client that leaves a field out keeps the proposed value.
 */
function editProperty(label: string, field: UiFormField): PrimitiveSchemaDefinition {
  const head = {
    title: `${label}: edit ${field.label}`,
    ...(field.description === undefined ? {} : { description: field.description }),
  };
  if (field.type === 'choice') {
    return {
      type: 'string',
      ...head,
      oneOf: field.options.map((option) => ({ const: option.id, title: option.label })),
      ...(field.default === undefined ? {} : { default: field.default }),
    };
  }
  if (field.type !== 'text')
    throw new Error(`An edit field is text or a choice, got ${field.type}.`);
  return {
    type: 'string',
    ...head,
    maxLength: MAX_ANSWER_BYTES,
    ...(field.default === undefined ? {} : { default: field.default }),
  };
}

function choiceProperty(
  question: AskUserQuestion,
  label: string,
  about: string | undefined,
  options: readonly UiFormChoice[],
  optional: boolean,
): PrimitiveSchemaDefinition {
  // `{const, title}` has no room for an option's description: they are listed in the
  // property's description, each after its (escaped) title.
  const details = options.flatMap((option, at) =>
    option.description === undefined
      ? []
      : [`${escapeMarkdown(question.options[at]!.title)}: ${option.description}`],
  );
  const description = [about, ...details].filter((part) => part !== undefined).join('\n\n');
  const choices = options.map((option) => ({ const: option.id, title: option.label }));
  const head = { title: label, ...(description === '' ? {} : { description }) };
  if (!question.allowMultiple) return { type: 'string', ...head, oneOf: choices };
  return {
    type: 'array',
    ...head,
    // An untouched multi-select comes back as [] from many clients: only a required one needs an item.
    ...(optional ? {} : { minItems: 1 }),
    maxItems: options.length,
    items: { anyOf: choices },
  };
}
