/** A question's model-written text made literal once, so every frame reuses it. */
import type { AskUserQuestion } from '../contracts/question.js';
import { toLiteralText } from './literal-text.js';

export interface ShownQuestion {
  header: string;
  question: string;
  context: string | undefined;
  options: { title: string; description: string | undefined }[];
  /** Index of the option that approves a plan under review; -1 otherwise. */
  approveIndex: number;
}

const cache = new WeakMap<AskUserQuestion, ShownQuestion>();

/**
 * @example
 * showQuestion(question).question // the question text, control characters escaped
 */
export function showQuestion(question: AskUserQuestion): ShownQuestion {
  let shown = cache.get(question);
  if (shown !== undefined) return shown;
  const approve = question.intent?.approve.toLowerCase();
  shown = {
    header: toLiteralText(question.header),
    question: toLiteralText(question.question),
    context: question.context === undefined ? undefined : toLiteralText(question.context),
    options: question.options.map((option) => ({
      title: toLiteralText(option.title),
      description: option.description === undefined ? undefined : toLiteralText(option.description),
    })),
    approveIndex:
      approve === undefined
        ? -1
        : question.options.findIndex((option) => option.title.toLowerCase() === approve),
  };
  cache.set(question, shown);
  return shown;
}
