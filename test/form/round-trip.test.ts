import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AskUserQuestion,
  type AskUserQuestionAnswer,
  type AskUserResponse,
  buildAskUserForm,
  decodeAskUserFormAnswer,
  encodeAskUserFormAnswer,
  isUserInteractionError,
  readAskUserForm,
  type UiFormAnswer,
} from '../../src/data.js';

const text = fc
  .string({
    unit: fc.constantFrom('a', 'Z', ' ', '\n', 'é', '😀', '*', '<', '\u001b'),
    minLength: 1,
    maxLength: 12,
  })
  .filter((value) => value.trim() !== '');

const questionArb = (id: string) =>
  fc
    .record({
      // Questions of one ask differ: the rules refuse two that ask the same thing.
      question: text.map((value) => `${id}: ${value}`),
      header: text,
      context: fc.option(text, { nil: undefined }),
      titles: fc.uniqueArray(text, { maxLength: 6, selector: (title) => title.toLowerCase() }),
      allowMultiple: fc.boolean(),
      allowFreeform: fc.boolean(),
      allowComment: fc.boolean(),
    })
    .map(
      ({ titles, context, ...rest }): AskUserQuestion => ({
        id,
        ...rest,
        ...(context === undefined ? {} : { context }),
        options: titles.map((title) => ({ title })),
        allowFreeform: rest.allowFreeform || titles.length === 0,
      }),
    );

const questionsArb = fc
  .integer({ min: 1, max: 4 })
  .chain((count) => fc.tuple(...Array.from({ length: count }, (_, i) => questionArb(`id${i}`))));

function responseArb(
  question: AskUserQuestion,
  wizard: boolean,
): fc.Arbitrary<AskUserResponse | null> {
  const kinds: fc.Arbitrary<AskUserResponse | null>[] = [];
  if (wizard) kinds.push(fc.constant(null));
  if (question.allowFreeform)
    kinds.push(text.map((value) => ({ kind: 'freeform' as const, text: value })));
  if (question.options.length > 0) {
    const titles = question.options.map((option) => option.title);
    const selections = question.allowMultiple
      ? fc.shuffledSubarray(titles, { minLength: 1 })
      : fc.constantFrom(...titles).map((title) => [title]);
    const comment = question.allowComment
      ? fc.option(text, { nil: undefined })
      : fc.constant(undefined);
    kinds.push(
      fc
        .record({ selections, comment })
        .map(({ selections, comment }) =>
          comment === undefined
            ? { kind: 'selection' as const, selections }
            : { kind: 'selection' as const, selections, comment },
        ),
    );
  }
  return fc.oneof(...kinds);
}

/** Questions with a valid answer set: every question answered or skipped, at least one answered. */
const askedArb = questionsArb.chain((questions) =>
  fc
    .tuple(...questions.map((question) => responseArb(question, questions.length > 1)))
    .filter((responses) => responses.some((response) => response !== null))
    .map((responses) => ({
      questions,
      answers: responses.map(
        (response, i): AskUserQuestionAnswer => ({ questionId: questions[i]!.id, response }),
      ),
    })),
);

describe('form codec round trip', () => {
  it('decodes any encoded valid answer set back to the same answers, also through JSON', () => {
    fc.assert(
      fc.property(askedArb, ({ questions, answers }) => {
        const form = JSON.parse(JSON.stringify(buildAskUserForm(questions)));
        expect(readAskUserForm(form)).toEqual(questions);
        const encoded = JSON.parse(JSON.stringify(encodeAskUserFormAnswer(form, answers)));
        expect(decodeAskUserFormAnswer(questions, encoded)).toEqual(answers);
      }),
      { numRuns: 500 },
    );
  });

  it('encodes an omitted wizard question exactly like an explicit skip', () => {
    fc.assert(
      fc.property(askedArb, ({ questions, answers }) => {
        const form = buildAskUserForm(questions);
        const answered = answers.filter((answer) => answer.response !== null);
        expect(encodeAskUserFormAnswer(form, answered)).toEqual(
          encodeAskUserFormAnswer(form, answers),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('encodes cancellation as the cancel action, which decodes to null', () => {
    fc.assert(
      fc.property(questionsArb, (questions) => {
        const encoded = encodeAskUserFormAnswer(buildAskUserForm(questions), null);
        expect(decodeAskUserFormAnswer(questions, encoded)).toBeNull();
      }),
      { numRuns: 50 },
    );
  });
});

const junk = fc.constantFrom<unknown>(
  '',
  ' ',
  'choice',
  'text',
  'skip',
  'option0',
  'option1',
  'option2',
  'option3',
  'option7',
  'Option1',
  'typed answer',
  [],
  ['option1'],
  ['option2', 'option1'],
  ['option1', 'option1'],
  [''],
  [1],
  42,
  null,
  true,
  {},
  { 0: 'option1' },
);

type Mutation =
  | { kind: 'set'; field: string; value: unknown }
  | { kind: 'delete'; field: string }
  | { kind: 'action'; action: unknown };

function mutationArb(fields: readonly string[]): fc.Arbitrary<Mutation> {
  const field = fc.constantFrom(...fields, 'q5.text', 'q1.other', 'constructor', '__proto__');
  return fc.oneof(
    fc.record({ kind: fc.constant('set' as const), field, value: junk }),
    fc.record({ kind: fc.constant('delete' as const), field }),
    fc.record({
      kind: fc.constant('action' as const),
      action: fc.constantFrom<unknown>('Submit', 'ok', '', 1, undefined),
    }),
  );
}

function mutate(answer: UiFormAnswer, mutations: readonly Mutation[]): unknown {
  const values: Record<string, unknown> = { ...answer.values };
  let action: unknown = answer.action;
  for (const mutation of mutations) {
    if (mutation.kind === 'set')
      Object.defineProperty(values, mutation.field, {
        value: mutation.value,
        enumerable: true,
        configurable: true,
        writable: true,
      });
    else if (mutation.kind === 'delete') delete values[mutation.field];
    else action = mutation.action;
  }
  return { action, values };
}

describe('form codec under mutation', () => {
  it('rejects every mutated answer unless it is exactly the encoding of what it decodes to', () => {
    const cases = askedArb.chain((asked) => {
      const fields = buildAskUserForm(asked.questions).fields.map((field) => field.id);
      return fc.record({
        asked: fc.constant(asked),
        mutations: fc.array(mutationArb(fields), { minLength: 1, maxLength: 3 }),
      });
    });
    fc.assert(
      fc.property(cases, ({ asked: { questions, answers }, mutations }) => {
        const form = buildAskUserForm(questions);
        const mutated = mutate(encodeAskUserFormAnswer(form, answers), mutations) as UiFormAnswer;
        let decoded: AskUserQuestionAnswer[] | null;
        try {
          decoded = decodeAskUserFormAnswer(questions, mutated);
        } catch (error) {
          // Refused, and refused the documented way: never a TypeError from bad input.
          expect(isUserInteractionError(error)).toBe(true);
          return;
        }
        expect(decoded).not.toBeNull();
        // Accepted: then the mutated values must say exactly what the decoded answers say, apart
        // from empty values on inactive fields, which the contract allows.
        const canonical = encodeAskUserFormAnswer(form, decoded).values;
        const sent = mutated.values;
        for (const [field, value] of Object.entries(sent)) {
          if (field in canonical) expect(value).toEqual(canonical[field]);
          else expect(value === '' || (Array.isArray(value) && value.length === 0)).toBe(true);
        }
        for (const field of Object.keys(canonical)) expect(Object.hasOwn(sent, field)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
