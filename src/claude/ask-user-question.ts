/**
 * Claude's AskUserQuestion tool on ask-engine: its 1–4 questions become one wizard, and the
 * answers go back in the shape the tool reads (`answers` keyed by question text, a multi-select
 * as its labels joined by ", ", notes in `annotations`).
 */
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { AskOutcome } from '../contracts/outcome.js';
import type { AskUserRequestInput } from '../contracts/tool-input.js';
import { describe } from '../rules/describe.js';
import { describeNonAnswer, type ToolCallDecision } from './tool-call-decision.js';

/** The name of Claude Code's built-in question tool, as `canUseTool` and hooks receive it. */
export const ASK_USER_QUESTION = 'AskUserQuestion';

/** One question of the tool's input, as read at the boundary. */
export interface ClaudeQuestion {
  question: string;
  header: string;
  options: { label: string; description?: string; preview?: string }[];
  multiSelect: boolean;
}

/**
 * Reads the tool's input: `questions`, 1 to 4 entries of `question`, `header`, `options`
 * (`label`, `description`, `preview`) and `multiSelect`. Throws a `TypeError` naming the field,
 * the value and what it must be: such an input is refused (a deny the model reads), never
 * guessed at.
 */
export function readAskUserQuestionInput(input: Record<string, unknown>): ClaudeQuestion[] {
  const { questions } = input;
  if (!Array.isArray(questions) || questions.length < 1 || questions.length > 4) {
    throw new TypeError(
      `AskUserQuestion: \`questions\` must be an array of 1 to 4 questions, got ${describe(questions)}.`,
    );
  }
  const read = questions.map((entry, index) => readQuestion(entry, `questions[${index}]`));
  const seen = new Set<string>();
  for (const [index, { question }] of read.entries()) {
    // The tool's answers are keyed by the question's text: two equal texts could not both be answered.
    if (seen.has(question)) {
      throw new TypeError(
        `AskUserQuestion: questions[${index}].question repeats ${JSON.stringify(question)}; each question's text must differ, since the answers are keyed by it.`,
      );
    }
    seen.add(question);
  }
  return read;
}

/**
 * The ask for the tool's questions: one wizard question each, the options' labels as titles,
 * `multiSelect` as `allowMultiple`, a typed answer allowed (the tool's own "Other") and a
 * comment (its notes). Option previews are shown as the question's context, each under its label.
 */
export function askUserQuestionRequest(questions: readonly ClaudeQuestion[]): AskUserRequestInput {
  return {
    questions: questions.map(({ question, header, options, multiSelect }) => {
      const previews = options
        .filter((option) => option.preview !== undefined && option.preview !== '')
        .map((option) => `Preview of ${JSON.stringify(option.label)}:\n${option.preview}`);
      return {
        question,
        header,
        options: options.map(({ label, description }) =>
          description === undefined || description === ''
            ? { title: label }
            : { title: label, description },
        ),
        allowMultiple: multiSelect,
        allowFreeform: true,
        allowComment: true,
        ...(previews.length === 0 ? {} : { context: previews.join('\n\n') }),
      };
    }),
  };
}

/**
 * What the tool receives for the ask's outcome: on an answer, the input with `answers` (and
 * `annotations` for comments) filled in, a skipped question saying so in its answer text (the
 * text the model reads); any other outcome a deny whose reason says why no answer came.
 */
export function askUserQuestionDecision(
  input: Record<string, unknown>,
  questions: readonly ClaudeQuestion[],
  outcome: AskOutcome,
  askId: string,
): ToolCallDecision {
  if (outcome.status === 'deferred') {
    return { behavior: 'defer', askId, reason: deferredReason(outcome.interactionId) };
  }
  if (outcome.status !== 'answered') {
    return { behavior: 'deny', reason: `The user gave no answer: ${describeNonAnswer(outcome)}` };
  }
  const answers: Record<string, string> = {};
  const annotations: Record<string, { notes: string }> = {};
  for (const [index, { question }] of questions.entries()) {
    const response = answerOf(outcome.answers, index);
    if (response === null) {
      answers[question] = 'The user skipped this question and gave no answer.';
    } else if (response.kind === 'freeform') {
      answers[question] = response.text;
    } else {
      answers[question] = response.selections.join(', ');
      if (response.comment !== undefined) annotations[question] = { notes: response.comment };
    }
  }
  return {
    behavior: 'allow',
    updatedInput: {
      ...input,
      answers,
      ...(Object.keys(annotations).length === 0 ? {} : { annotations }),
    },
    reason: `Answered${outcome.answeredBy === undefined ? '' : ` by ${outcome.answeredBy.recipient}`}.`,
  };
}

function deferredReason(interactionId: string): string {
  return `The question waits for an answer elsewhere (interaction id ${interactionId}); the session continues once it is answered.`;
}

/** The wizard's ids are q1..q4 in the order of the tool's questions. */
function answerOf(answers: readonly AskUserQuestionAnswer[], index: number) {
  return answers.find((answer) => answer.questionId === `q${index + 1}`)?.response ?? null;
}

function readQuestion(entry: unknown, path: string): ClaudeQuestion {
  if (!isRecord(entry))
    throw new TypeError(`AskUserQuestion: ${path} must be an object, got ${describe(entry)}.`);
  const question = readText(entry.question, `${path}.question`);
  const header = readText(entry.header, `${path}.header`);
  const { options, multiSelect } = entry;
  if (typeof multiSelect !== 'boolean') {
    throw new TypeError(
      `AskUserQuestion: ${path}.multiSelect must be true or false, got ${describe(multiSelect)}.`,
    );
  }
  if (!Array.isArray(options) || options.length === 0) {
    throw new TypeError(
      `AskUserQuestion: ${path}.options must be a non-empty array of { label, description }, got ${describe(options)}.`,
    );
  }
  return {
    question,
    header,
    multiSelect,
    options: options.map((option, index) => {
      const at = `${path}.options[${index}]`;
      if (!isRecord(option))
        throw new TypeError(
          `AskUserQuestion: ${at} must be an object with a label, got ${describe(option)}.`,
        );
      const label = readText(option.label, `${at}.label`);
      const description = readOptionalText(option.description, `${at}.description`);
      const preview = readOptionalText(option.preview, `${at}.preview`);
      return {
        label,
        ...(description === undefined ? {} : { description }),
        ...(preview === undefined ? {} : { preview }),
      };
    }),
  };
}

function readText(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new TypeError(
      `AskUserQuestion: ${path} must be a non-empty string, got ${describe(value)}.`,
    );
  }
  return value;
}

function readOptionalText(value: unknown, path: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string')
    throw new TypeError(`AskUserQuestion: ${path} must be a string, got ${describe(value)}.`);
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
