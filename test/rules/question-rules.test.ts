/** The question rules, as the normalizer, the answer validator and the form codec apply them. */
import { normalizeAskUserRequest, prepareAskUserArguments } from 'ask-engine';
import {
  type AskUserQuestion,
  buildAskUserForm,
  decodeAskUserFormAnswer,
  encodeAskUserFormAnswer,
  isUserInteractionError,
  readAskUserForm,
  validateAskUserAnswers,
} from 'ask-engine/data';
import { describe, expect, it } from 'vitest';

function refusal(input: unknown): { code: string; message: string } {
  const result = normalizeAskUserRequest(input);
  if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.value)}`);
  return { code: result.error.code, message: result.error.message };
}

function thrown(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (isUserInteractionError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a UserInteractionError');
}

function question(overrides: Partial<AskUserQuestion> = {}): AskUserQuestion {
  return {
    id: 'q1',
    question: 'Proceed?',
    header: 'Q1',
    options: [{ title: 'Allow' }, { title: 'Deny' }],
    allowMultiple: false,
    allowFreeform: false,
    allowComment: false,
    ...overrides,
  };
}

const LOOK_ALIKES: [string, string, string][] = [
  ['a zero-width space', 'Allow', 'Allow\u200b'],
  ['NFC against NFD', 'Café', 'Cafe\u0301'],
  ['a word joiner', 'Deny', 'Deny\u2060'],
  ['a soft hyphen', 'Yes', 'Ye\u00ads'],
  ['a variation selector and case', 'Star', 'STAR\ufe0f'],
  ['a byte order mark', 'Later', 'La\ufeffter'],
];

describe('option titles are compared as people see them', () => {
  it.each(LOOK_ALIKES)('refuses two titles that differ only by %s', (_what, first, second) => {
    const { code, message } = refusal({ question: 'Proceed?', options: [first, second] });
    expect(code).toBe('INVALID_REQUEST');
    expect(message).toMatch(/^Options 1 and 2 of question 1 have titles that look the same/);
    expect(message).toContain('give each option a distinct title');
  });

  it('writes invisible characters as escapes in the message, so the two titles read apart', () => {
    expect(refusal({ question: 'Proceed?', options: ['Allow', 'Allow\u200b'] }).message).toContain(
      '("Allow" and "Allow\\u200b"',
    );
  });

  it.each(['\u200b', '\u2060\u200b', ' \u00ad ', '\ufe0f'])(
    'refuses a title that shows nothing (%j)',
    (title) => {
      const { code, message } = refusal({ question: 'Proceed?', options: ['Yes', title] });
      expect(code).toBe('INVALID_REQUEST');
      expect(message).toMatch(/^Option 2 of question 1 is unusable: .*shows nothing/);
    },
  );

  it('refuses an invisible title already when the tool repairs its arguments', () => {
    expect(thrown(() => prepareAskUserArguments({ question: 'x', options: ['\u200b'] }))).toEqual({
      code: 'INVALID_REQUEST',
      message: expect.stringMatching(/^Option 1 of question 1 is unusable: .*shows nothing/),
    });
  });

  it('refuses two questions that ask the same thing as people see it', () => {
    expect(
      refusal({ questions: [{ question: 'Deploy now?' }, { question: 'deploy\u200b now?' }] })
        .message,
    ).toMatch(/^Questions 1 and 2 ask the same thing/);
    expect(
      refusal({ questions: [{ question: 'Café?' }, { question: 'Cafe\u0301?' }] }).message,
    ).toMatch(/^Questions 1 and 2 ask the same thing/);
  });

  it('refuses a question that shows nothing', () => {
    expect(refusal({ question: '\u200b\u2060' }).message).toMatch(
      /^Question 1 has the "question" .* which shows nothing/,
    );
  });

  it('names the approving option of a plan review as people see it, spelled as the option', () => {
    const result = normalizeAskUserRequest({
      question: 'Approve the plan?',
      context: 'Step 1, step 2.',
      options: ['Cafe\u0301', 'Reject'],
      intent: { kind: 'plan-review', approve: 'CAFÉ' },
    });
    expect(result.ok && result.value.questions[0]?.intent).toEqual({
      kind: 'plan-review',
      approve: 'Cafe\u0301',
    });
  });
});

describe('selections match titles as people see them', () => {
  const nfd = question({ options: [{ title: 'Cafe\u0301' }, { title: 'Tea' }] });

  it('matches an NFC selection to an NFD title and returns the option’s own spelling', () => {
    const [answer] = validateAskUserAnswers(
      [nfd],
      [{ questionId: 'q1', response: { kind: 'selection', selections: ['Café'] } }],
    );
    expect(answer?.response).toEqual({ kind: 'selection', selections: ['Cafe\u0301'] });
  });

  it('ignores invisible characters and case in a selection', () => {
    const [answer] = validateAskUserAnswers(
      [question()],
      [{ questionId: 'q1', response: { kind: 'selection', selections: ['al\u00adlow\u200b'] } }],
    );
    expect(answer?.response).toEqual({ kind: 'selection', selections: ['Allow'] });
  });

  it('counts two spellings of one option as selecting it twice', () => {
    const multi = question({ options: [{ title: 'Café' }, { title: 'Tea' }], allowMultiple: true });
    expect(
      thrown(() =>
        validateAskUserAnswers(
          [multi],
          [
            {
              questionId: 'q1',
              response: { kind: 'selection', selections: ['Café', 'cafe\u0301'] },
            },
          ],
        ),
      ).message,
    ).toBe('Question "q1" selects "Café" twice.');
  });

  it('finds a selection made twice among many, however far apart', () => {
    const titles = Array.from({ length: 20 }, (_, i) => `Option ${i + 1}`);
    const many = question({ options: titles.map((title) => ({ title })), allowMultiple: true });
    const answer = (selections: string[]) => [
      { questionId: 'q1', response: { kind: 'selection', selections } },
    ];
    // Past a few selections duplicates are found by a set, not a scan: both must find them.
    for (const selections of [
      [...titles.slice(0, 12), 'option 1'],
      ['Option 3', 'Option 20', 'OPTION 3'],
    ]) {
      expect(thrown(() => validateAskUserAnswers([many], answer(selections))).message).toMatch(
        /^Question "q1" selects "Option (1|3)" twice\.$/,
      );
    }
    const all = validateAskUserAnswers([many], answer(titles.map((t) => t.toLowerCase())));
    expect(all[0]?.response).toEqual({ kind: 'selection', selections: titles });
  });

  it('encodes an NFC selection for an NFD option through the form codec and decodes it back', () => {
    const form = buildAskUserForm([nfd]);
    const encoded = encodeAskUserFormAnswer(form, [
      { questionId: 'q1', response: { kind: 'selection', selections: ['café'] } },
    ]);
    expect(encoded.values).toEqual({ 'q1.selection': 'option1' });
    expect(decodeAskUserFormAnswer([nfd], encoded)).toEqual([
      { questionId: 'q1', response: { kind: 'selection', selections: ['Cafe\u0301'] } },
    ]);
  });
});

describe('the form plan applies the same rules as the normalizer', () => {
  it.each(LOOK_ALIKES)(
    'refuses hand-made questions whose titles differ only by %s',
    (_what, a, b) => {
      const questions = [question({ options: [{ title: a }, { title: b }] })];
      const fromForm = thrown(() => buildAskUserForm(questions));
      // One rule, one message: the normalizer says the same about the same options.
      expect(fromForm).toEqual(refusal({ question: 'Proceed?', options: [a, b] }));
    },
  );

  it('refuses a title that shows nothing and a question that asks what another asks', () => {
    expect(
      thrown(() => buildAskUserForm([question({ options: [{ title: '\u200b' }] })])).message,
    ).toMatch(/^Option 1 of question 1 has the title "\\u200b", which shows nothing/);
    expect(
      thrown(() =>
        buildAskUserForm([question(), question({ id: 'q2', question: 'PROCEED?\u2060' })]),
      ).message,
    ).toMatch(/^Questions 1 and 2 ask the same thing/);
  });

  it('refuses a multi-select over the option limit with the normalizer’s message', () => {
    const titles = Array.from({ length: 65 }, (_, i) => `Option ${i + 1}`);
    const fromForm = thrown(() =>
      buildAskUserForm([
        question({ options: titles.map((title) => ({ title })), allowMultiple: true }),
      ]),
    );
    expect(fromForm).toEqual(
      refusal({ question: 'Proceed?', options: titles, allowMultiple: true }),
    );
  });

  it('refuses a plan review whose approving option is missing, like the normalizer', () => {
    const fromForm = thrown(() =>
      buildAskUserForm([
        question({ context: 'The plan.', intent: { kind: 'plan-review', approve: 'Ship' } }),
      ]),
    );
    expect(fromForm.code).toBe('BAD_INTENT');
    expect(fromForm).toEqual(
      refusal({
        question: 'Proceed?',
        context: 'The plan.',
        options: ['Allow', 'Deny'],
        intent: { kind: 'plan-review', approve: 'Ship' },
      }),
    );
  });

  it('reads a received form whose hint data hides look-alike titles as a generic form', () => {
    const form = buildAskUserForm([question()]);
    const hint = form.hint as { data: { questions: AskUserQuestion[] } };
    hint.data.questions[0]!.options[1] = { title: 'Allow\u200b' };
    expect(readAskUserForm(JSON.parse(JSON.stringify(form)))).toBeNull();
  });
});
