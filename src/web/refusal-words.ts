/**
 * Why an answer was refused, in the person's words: the form codec's and the answer rules'
 * errors (which name fields such as `q1.mode` for programs) as one sentence about the question
 * by its text, with what to do. Browser-safe: the page's script and the server say the same.
 */
import type { UiForm } from '../contracts/form.js';
import type { AskUserQuestion } from '../contracts/question.js';
import { defaultHeader } from '../rules/normalize.js';

/** What a person posted, by field id, as the form codec reads it. */
export type PostedValues = Record<string, string | string[]>;

/** A question's heading on the page: its header when the caller gave one, else its text. */
export function questionHeading(question: AskUserQuestion, index: number): string {
  return hasOwnHeader(question, index) ? question.header : question.question;
}

/** Whether the caller gave the question a header (`Q<n>` is only the default tab label). */
export function hasOwnHeader(question: AskUserQuestion, index: number): boolean {
  return question.header !== defaultHeader(index + 1);
}

/**
 * The refusal `error` (an `INVALID_ANSWER` or `LIMIT_EXCEEDED` of the form codec or the
 * service) as a sentence for the person who filled in `form` with `values`: which question, by
 * its text, and what to change. An error that names no question says the form could not be read.
 */
export function refusalInWords(
  error: unknown,
  questions: readonly AskUserQuestion[],
  form: UiForm,
  values: PostedValues,
): string {
  const code = (error as { code?: unknown } | null)?.code;
  const data = ((error as { data?: unknown } | null)?.data ?? {}) as {
    questionId?: unknown;
    field?: unknown;
    fields?: unknown;
    part?: unknown;
  };
  if (Array.isArray(data.fields)) {
    return questions.length === 1
      ? 'Answer the question before sending, or decline to answer.'
      : 'Answer at least one of the questions before sending; all of them are skipped now.';
  }
  const index = questions.findIndex((question) => question.id === data.questionId);
  const question = questions[index];
  if (question === undefined) {
    return 'The answer could not be read as a reply to this form. Reload the page and answer again.';
  }
  const prefix = `q${index + 1}`;
  const about = `“${shortened(questionHeading(question, index))}”`;
  const part = typeof data.field === 'string' ? data.field.slice(prefix.length + 1) : data.part;
  const mode = first(values[`${prefix}.mode`]);
  const modeLabel = (id: string) =>
    optionLabels(form, `${prefix}.mode`).find((option) => option.id === id)?.label ?? id;
  const chosenMode = mode === undefined ? '' : ` but chose “${modeLabel(mode)}”`;
  const tooLong = (what: string) => {
    const field = form.fields.find((candidate) => candidate.id === `${prefix}.${part}`);
    const limit = field?.type === 'text' ? ` (at most ${field.maxBytes / 1024} KiB)` : '';
    return `${what} ${about} is too long${limit}; shorten it and send again.`;
  };
  switch (part) {
    case 'mode': {
      const labels = optionLabels(form, `${prefix}.mode`).map((option) => `“${option.label}”`);
      return `Choose how you answer ${about}: ${listed(labels)}.`;
    }
    case 'selection': {
      const picked = [values[`${prefix}.selection`] ?? []].flat();
      if (picked.length === 0) {
        return `Pick ${question.allowMultiple ? 'at least one option' : 'an option'} for ${about}.`;
      }
      if (mode !== undefined && mode !== 'choice') {
        return `You picked an option for ${about}${chosenMode}; clear your choice or change how you answer.`;
      }
      return `Pick ${question.allowMultiple ? 'only options' : 'one option'} from the list for ${about}.`;
    }
    case 'text': {
      if (code === 'LIMIT_EXCEEDED') return tooLong('Your answer to');
      const typed = first(values[`${prefix}.text`]) ?? '';
      if (typed.trim() !== '' && mode !== undefined && mode !== 'text') {
        return `You typed an answer to ${about}${chosenMode}; clear the text or change how you answer.`;
      }
      return `Type your answer to ${about}.`;
    }
    case 'comment':
      if (code === 'LIMIT_EXCEEDED') return tooLong('Your comment on');
      return `A comment on ${about} goes with the options you pick; clear the comment or pick from the options.`;
    default: {
      const edit = form.fields.find((candidate) => candidate.id === `${prefix}.${part}`);
      if (typeof part === 'string' && /^edit\d+$/.test(part) && edit !== undefined) {
        const problem = (error as { data?: { problem?: unknown } }).data?.problem;
        const why = typeof problem === 'string' ? `: ${problem}` : '';
        if (code === 'LIMIT_EXCEEDED') return tooLong(`The value of “${edit.label}” for`);
        return `The value of “${edit.label}” for ${about} is not accepted${why}. Correct it, or send the values as proposed.`;
      }
      return `The answer to ${about} cannot be recorded as it is; check it and send again.`;
    }
  }
}

function optionLabels(form: UiForm, fieldId: string): readonly { id: string; label: string }[] {
  const field = form.fields.find((candidate) => candidate.id === fieldId);
  return field === undefined || field.type === 'text' ? [] : field.options;
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** `“a”, “b” or “c”`. */
function listed(items: readonly string[]): string {
  return items.length <= 1
    ? (items[0] ?? '')
    : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** A question named inside a sentence: its first line, cut at 80 characters with an ellipsis. */
function shortened(text: string): string {
  const line = text.split('\n', 1)[0]!;
  return line.length > 80 || line !== text ? `${line.slice(0, 80).trimEnd()}…` : text;
}
