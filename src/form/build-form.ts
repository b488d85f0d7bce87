/** Turns normalized questions into the one generic form that holds them all. */
import type { UiForm, UiFormChoice, UiFormField } from '../contracts/form.js';
import type { AskUserQuestion } from '../contracts/question.js';
import { escapeControlCharacters, escapeMarkdown } from '../rules/escape-text.js';
import { MAX_ANSWER_BYTES } from '../rules/limits.js';
import { checkFormHintSize } from '../rules/question-rules.js';
import { editFormFields } from './edit-fields.js';
import {
  ASK_USER_FORM_HINT,
  type AskUserFormMode,
  CANCEL_ACTION_ID,
  formOptionId,
  SUBMIT_ACTION_ID,
} from './form-ids.js';
import { type FormQuestionPlan, getFormPlan } from './form-plan.js';

const MODE_LABELS: Record<AskUserFormMode, string> = {
  choice: 'Pick from the options',
  text: 'Type an answer',
  skip: 'Skip this question',
};

const WIZARD_BODY = 'Answer at least one question; choose "Skip this question" for the others.';

/**
 * Builds the generic form for `questions` (normalized, 1-4): per question n the fields
 * `q<n>.mode`, `q<n>.selection`, `q<n>.text`, `q<n>.comment` where they apply, no default values,
 * submit and cancel actions, and the hint `ASK_USER_FORM_HINT` with `data: { questions }`.
 * Throws `UserInteractionError` before any form exists when a limit is exceeded
 * (`LIMIT_EXCEEDED`, `TOO_MANY_QUESTIONS`) or the questions are not normalized.
 *
 * @example
 * const form = buildAskUserForm(normalized.questions);
 * const answer = await host.showForm(form);
 */
export function buildAskUserForm(questions: readonly AskUserQuestion[]): UiForm {
  const plan = getFormPlan(questions);
  const data = { questions: questions.map(copyQuestion) };
  checkFormHintSize(data);
  const form: UiForm = {
    title: plan.wizard
      ? `${questions.length} questions`
      : escapeControlCharacters(questions[0]!.header),
    ...(plan.wizard ? { body: WIZARD_BODY } : {}),
    fields: plan.parts.flatMap(questionFields),
    actions: [
      { id: SUBMIT_ACTION_ID, kind: 'submit', label: 'Submit' },
      { id: CANCEL_ACTION_ID, kind: 'cancel', label: 'Cancel' },
    ],
    hint: { id: ASK_USER_FORM_HINT.id, version: ASK_USER_FORM_HINT.version, data },
  };
  return form;
}

function questionFields(plan: FormQuestionPlan): UiFormField[] {
  const { question } = plan;
  const fields: UiFormField[] = [];
  // The question itself goes with its first field: the header as the label, the question and
  // its context as escaped Markdown.
  let intro: { label: string; description: string } | undefined = {
    label: escapeControlCharacters(question.header),
    description:
      question.context === undefined
        ? escapeMarkdown(question.question)
        : `${escapeMarkdown(question.question)}\n\n${escapeMarkdown(question.context)}`,
  };
  const take = (label: string): { label: string; description?: string } => {
    const head = intro ?? { label };
    intro = undefined;
    return head;
  };
  if (plan.modeField !== undefined) {
    fields.push({
      id: plan.modeField,
      type: 'choice',
      ...take('Answer'),
      options: plan.modes.map((mode) => ({ id: mode, label: MODE_LABELS[mode] })),
    });
  }
  if (plan.selectionField !== undefined) {
    const options = question.options.map((option, at): UiFormChoice => {
      const choice: UiFormChoice = {
        id: formOptionId(at + 1),
        label: escapeControlCharacters(option.title),
      };
      if (option.description !== undefined) choice.description = escapeMarkdown(option.description);
      return choice;
    });
    fields.push(
      question.allowMultiple
        ? {
            id: plan.selectionField,
            type: 'multi-choice',
            ...take('Choose any'),
            options,
            maxSelections: options.length,
          }
        : { id: plan.selectionField, type: 'choice', ...take('Choose one'), options },
    );
  }
  if (plan.textField !== undefined) {
    fields.push(textField(plan.textField, take('Your answer')));
  }
  if (plan.commentField !== undefined) {
    fields.push(textField(plan.commentField, take('Comment (optional)')));
  }
  if (question.intent?.kind === 'tool-approval' && plan.editFields.length > 0) {
    fields.push(...editFormFields(plan.editFields, question.intent));
  }
  return fields;
}

function textField(id: string, head: { label: string; description?: string }): UiFormField {
  return { id, type: 'text', ...head, multiline: true, maxBytes: MAX_ANSWER_BYTES };
}

/** A copy in the schema's key order, so a form never aliases the caller's objects. */
export function copyQuestion(question: AskUserQuestion): AskUserQuestion {
  const copy: AskUserQuestion = {
    id: question.id,
    question: question.question,
    header: question.header,
    ...(question.context === undefined ? {} : { context: question.context }),
    options: question.options.map((option) =>
      option.description === undefined
        ? { title: option.title }
        : { title: option.title, description: option.description },
    ),
    allowMultiple: question.allowMultiple,
    allowFreeform: question.allowFreeform,
    allowComment: question.allowComment,
  };
  const { intent } = question;
  if (intent?.kind === 'plan-review') copy.intent = { kind: intent.kind, approve: intent.approve };
  else if (intent?.kind === 'tool-approval') {
    copy.intent = {
      kind: intent.kind,
      approve: intent.approve,
      reject: intent.reject,
      toolName: intent.toolName,
      toolCallId: intent.toolCallId,
      ...(intent.approvalId === undefined ? {} : { approvalId: intent.approvalId }),
      input: structuredClone(intent.input),
      ...(intent.inputSchema === undefined
        ? {}
        : { inputSchema: structuredClone(intent.inputSchema) }),
      allowEdits: intent.allowEdits,
    };
  }
  return copy;
}
