/** `quoteInput: false`: messages name the question and what was wrong, never what was typed or picked. */
import {
  type AskUserQuestion,
  decodeAskUserFormAnswer,
  isUserInteractionError,
  type UiFormAnswer,
  validateAskUserAnswers,
} from 'ask-engine/data';
import { describe, expect, it } from 'vitest';

const SECRET = 'my-ssn-078-05-1120';

const questions: AskUserQuestion[] = [
  {
    id: 'q1',
    question: 'Which account?',
    header: 'Account',
    options: [{ title: 'Checking' }, { title: 'Savings' }],
    allowMultiple: true,
    allowFreeform: false,
    allowComment: true,
  },
  {
    id: 'q2',
    question: 'Anything else?',
    header: 'Notes',
    options: [],
    allowMultiple: false,
    allowFreeform: true,
    allowComment: false,
  },
];

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (isUserInteractionError(error)) return error.message;
    throw error;
  }
  throw new Error('expected a UserInteractionError');
}

const answersCases: [string, unknown, RegExp][] = [
  [
    'a selection that is not an option',
    [
      { questionId: 'q1', response: { kind: 'selection', selections: [SECRET] } },
      { questionId: 'q2', response: null },
    ],
    /^Question "q1" has a selection \(a string of 18 characters\), which is not one of its option titles \("Checking", "Savings"\)\.$/,
  ],
  [
    'the same option picked twice',
    [
      { questionId: 'q1', response: { kind: 'selection', selections: ['Savings', 'savings'] } },
      { questionId: 'q2', response: null },
    ],
    /^Question "q1" selects one option twice\.$/,
  ],
  [
    'a response that is typed text instead of an object',
    [
      { questionId: 'q1', response: SECRET },
      { questionId: 'q2', response: null },
    ],
    /^Question "q1" has a response that is not an object, got a string of 18 characters\.$/,
  ],
  [
    'an answer for an unknown question',
    [{ questionId: SECRET, response: null }],
    /^Answer 1 is for unknown question a string of 18 characters; the questions are "q1", "q2"\.$/,
  ],
  [
    'a response kind that is not one',
    [{ questionId: 'q1', response: { kind: SECRET } }],
    /^Question "q1" has response kind a string of 18 characters/,
  ],
  [
    'an unknown response field',
    [
      { questionId: 'q1', response: null },
      { questionId: 'q2', response: { kind: 'freeform', text: 'x', [SECRET]: 1 } },
    ],
    /^Question "q2" response has unknown field a string of 18 characters/,
  ],
  ['an answer that is a string', [SECRET], /got a string of 18 characters/],
];

describe('validateAskUserAnswers with quoteInput: false', () => {
  it.each(answersCases)('names %s without quoting it', (_what, answers, expected) => {
    const quoted = messageOf(() => validateAskUserAnswers(questions, answers));
    // Without the option the same message does quote it: the option is what keeps it out.
    expect(quoted).toMatch(/my-ssn-078-05-1120|Savings/);
    const redacted = messageOf(() =>
      validateAskUserAnswers(questions, answers, { quoteInput: false }),
    );
    expect(redacted).toMatch(expected);
    expect(redacted).not.toContain(SECRET);
  });
});

const formCases: [string, UiFormAnswer, RegExp][] = [
  [
    'an option id that is not one',
    {
      action: 'submit',
      values: { 'q1.mode': 'choice', 'q1.selection': [SECRET], 'q2.mode': 'skip' },
    },
    /^Question "q1", field "q1.selection": has a string of 18 characters, which is not one of its options/,
  ],
  [
    'an option chosen twice',
    {
      action: 'submit',
      values: { 'q1.mode': 'choice', 'q1.selection': ['option2', 'option2'], 'q2.mode': 'skip' },
    },
    /^Question "q1", field "q1.selection": chooses one option twice\.$/,
  ],
  [
    'an unknown field',
    { action: 'submit', values: { [SECRET]: 'x' } },
    /^Form answer: unknown field a string of 18 characters; this form has /,
  ],
  [
    'a mode that is not one',
    { action: 'submit', values: { 'q1.mode': SECRET } },
    /^Question "q1", field "q1.mode": is a string of 18 characters; expected one of/,
  ],
  [
    'an action that is not one',
    { action: SECRET, values: {} },
    /^Form answer: action is a string of 18 characters; expected "submit" or "cancel"\.$/,
  ],
  [
    'a typed answer where the mode says skip',
    {
      action: 'submit',
      values: {
        'q1.mode': 'choice',
        'q1.selection': ['option1'],
        'q2.mode': 'skip',
        'q2.text': SECRET,
      },
    },
    /^Question "q2", field "q2.text": has text although "q2.mode" says "skip"/,
  ],
];

describe('decodeAskUserFormAnswer with quoteInput: false', () => {
  it.each(formCases)('names %s without quoting it', (_what, answer, expected) => {
    const redacted = messageOf(() =>
      decodeAskUserFormAnswer(questions, answer, { quoteInput: false }),
    );
    expect(redacted).toMatch(expected);
    expect(redacted).not.toContain(SECRET);
  });

  it('still quotes the value by default, for a client fixing its own form', () => {
    expect(
      messageOf(() =>
        decodeAskUserFormAnswer(questions, {
          action: 'submit',
          values: { 'q1.mode': 'choice', 'q1.selection': ['option9'], 'q2.mode': 'skip' },
        }),
      ),
    ).toContain('"option9"');
  });
});
