/** The answers JSON `resume` and `answer` take: parsed here, checked by the service. */
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import { UsageError } from './usage-error.js';

/**
 * Parses the answers argument (a JSON array); the service validates each answer against the
 * ask's questions.
 *
 * @example
 * parseAnswers('[{"questionId":"q1","response":{"kind":"freeform","text":"main"}}]');
 */
export function parseAnswers(text: string): AskUserQuestionAnswer[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`The answers are not valid JSON: ${(error as Error).message}.`);
  }
  if (!Array.isArray(value)) {
    throw new UsageError(
      'The answers must be a JSON array like [{"questionId":"q1","response":{"kind":"freeform","text":"…"}}].',
    );
  }
  return value as AskUserQuestionAnswer[];
}
