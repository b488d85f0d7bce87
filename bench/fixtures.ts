/** Requests and answers shared by the engine benchmarks. */
import type { AskUserQuestionAnswer } from '../src/contracts/answer.js';

export const yesNoRequest = {
  question: 'Deploy now?',
  options: [{ title: 'Yes' }, { title: 'No' }],
};
export const yesAnswer: AskUserQuestionAnswer[] = [
  { questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } },
];

/** The largest request the limits allow: 4 questions x 64 options, with descriptions. */
export const maximalRequest = {
  questions: Array.from({ length: 4 }, (_, q) => ({
    question: `Which modules should migration ${q + 1} touch?`,
    header: `Step ${q + 1}`,
    allowMultiple: true,
    allowComment: true,
    options: Array.from({ length: 64 }, (_, o) => ({
      title: `module-${q}-${o}`,
      description: `Touches module ${o} of area ${q}, with its tests and fixtures.`,
    })),
  })),
};

/** Half the options of every question picked, spelled in another case, with a comment. */
export const maximalAnswers: AskUserQuestionAnswer[] = maximalRequest.questions.map(
  (question, q) => ({
    questionId: `q${q + 1}`,
    response: {
      kind: 'selection',
      selections: question.options.slice(0, 32).map((option) => option.title.toUpperCase()),
      comment: 'Keep the fixtures.',
    },
  }),
);

export function requireGc(): () => void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('Run with node --expose-gc (npm run bench does).');
  return gc;
}
