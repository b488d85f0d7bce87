import { describe, expect, it } from 'vitest';
import {
  type AskUserQuestion,
  decodeAskUserFormAnswer,
  isUserInteractionError,
  MAX_ANSWER_BYTES,
  type UiFormAnswer,
} from '../../src/data.js';
import { open, question, tags, typed } from './questions.js';

const single = [open];
const wizard = [question('q1'), tags, typed];

function submit(values: Record<string, unknown>): UiFormAnswer {
  return { action: 'submit', values } as UiFormAnswer;
}

function rejection(questions: readonly AskUserQuestion[], answer: unknown) {
  try {
    decodeAskUserFormAnswer(questions, answer as UiFormAnswer);
  } catch (error) {
    expect(isUserInteractionError(error)).toBe(true);
    return error as { code: string; message: string; data: Record<string, unknown> };
  }
  throw new Error('expected the answer to be rejected');
}

describe('decodeAskUserFormAnswer', () => {
  it('maps option ids back to titles, in question order', () => {
    expect(
      decodeAskUserFormAnswer(
        wizard,
        submit({
          'q3.mode': 'text',
          'q3.text': 'typed',
          'q2.mode': 'choice',
          'q2.selection': ['option3', 'option1'],
          'q2.comment': 'why',
          'q1.mode': 'skip',
        }),
      ),
    ).toEqual([
      { questionId: 'q1', response: null },
      {
        questionId: 'q2',
        response: { kind: 'selection', selections: ['Blue', 'Red'], comment: 'why' },
      },
      { questionId: 'q3', response: { kind: 'freeform', text: 'typed' } },
    ]);
  });

  it('returns null when the person cancelled', () => {
    expect(decodeAskUserFormAnswer(single, { action: 'cancel', values: {} })).toBeNull();
  });

  it('needs no mode where only one kind of answer is possible', () => {
    expect(
      decodeAskUserFormAnswer([question('q1')], submit({ 'q1.selection': 'option2' })),
    ).toEqual([{ questionId: 'q1', response: { kind: 'selection', selections: ['No'] } }]);
    expect(decodeAskUserFormAnswer([typed], submit({ 'q1.text': 'hi' }))).toEqual([
      { questionId: 'q3', response: { kind: 'freeform', text: 'hi' } },
    ]);
  });

  it('accepts empty text and empty multi-select values on inactive fields', () => {
    expect(
      decodeAskUserFormAnswer(
        wizard,
        submit({
          'q1.mode': 'skip',
          'q2.mode': 'skip',
          'q2.selection': [],
          'q2.comment': '',
          'q3.mode': 'text',
          'q3.text': 'x',
        }),
      ),
    ).toEqual([
      { questionId: 'q1', response: null },
      { questionId: 'q2', response: null },
      { questionId: 'q3', response: { kind: 'freeform', text: 'x' } },
    ]);
    expect(
      decodeAskUserFormAnswer(
        single,
        submit({ 'q1.mode': 'choice', 'q1.selection': 'option1', 'q1.text': '', 'q1.comment': '' }),
      ),
    ).toEqual([{ questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } }]);
  });

  it('accepts written answers and comments of exactly 32 KiB of UTF-8 and refuses one byte more', () => {
    for (const last of [
      'é'.repeat(MAX_ANSWER_BYTES / 2),
      '😀'.repeat(MAX_ANSWER_BYTES / 4),
      `${'€'.repeat(10922)}ab`,
    ]) {
      expect(decodeAskUserFormAnswer([typed], submit({ 'q1.text': last }))).toHaveLength(1);
      expect(
        decodeAskUserFormAnswer(
          [tags],
          submit({ 'q1.selection': ['option1'], 'q1.comment': last }),
        ),
      ).toHaveLength(1);
      const text = rejection([typed], submit({ 'q1.text': `${last}a` }));
      expect(text).toMatchObject({
        code: 'LIMIT_EXCEEDED',
        data: { questionId: 'q3', field: 'q1.text', actual: MAX_ANSWER_BYTES + 1 },
      });
      const comment = rejection(
        [tags],
        submit({ 'q1.selection': ['option1'], 'q1.comment': `${last}a` }),
      );
      expect(comment).toMatchObject({
        code: 'LIMIT_EXCEEDED',
        data: { questionId: 'q2', field: 'q1.comment' },
      });
    }
  });

  // Every rule, with the question and field the error must name.
  it.each<[string, readonly AskUserQuestion[], unknown, string | undefined, string | undefined]>([
    ['an answer that is not an object', single, 'submit', undefined, undefined],
    [
      'an unknown top-level property',
      single,
      { action: 'submit', values: {}, extra: 1 },
      undefined,
      undefined,
    ],
    ['an unknown action', single, { action: 'approve', values: {} }, undefined, undefined],
    [
      'values that are not an object',
      single,
      { action: 'submit', values: ['option1'] },
      undefined,
      undefined,
    ],
    [
      'an unknown field',
      single,
      submit({ 'q1.mode': 'text', 'q1.text': 'x', 'q9.text': 'y' }),
      undefined,
      'q9.text',
    ],
    [
      'a field the question does not have',
      [question('q1')],
      submit({ 'q1.selection': 'option1', 'q1.comment': 'c' }),
      undefined,
      'q1.comment',
    ],
    ['a missing answer type', single, submit({ 'q1.selection': 'option1' }), 'q1', 'q1.mode'],
    ['an unknown answer type', single, submit({ 'q1.mode': 'skip' }), 'q1', 'q1.mode'],
    [
      'an answer type that is not a string',
      single,
      submit({ 'q1.mode': ['choice'] }),
      'q1',
      'q1.mode',
    ],
    ['a missing selection', [question('q1')], submit({}), 'q1', 'q1.selection'],
    ['a choice with no option', single, submit({ 'q1.mode': 'choice' }), 'q1', 'q1.selection'],
    [
      'an empty multi-select on an active field',
      [tags],
      submit({ 'q1.selection': [] }),
      'q2',
      'q1.selection',
    ],
    ['a missing typed answer', [typed], submit({}), 'q3', 'q1.text'],
    [
      'an empty typed answer',
      single,
      submit({ 'q1.mode': 'text', 'q1.text': '' }),
      'q1',
      'q1.text',
    ],
    [
      'a blank typed answer',
      single,
      submit({ 'q1.mode': 'text', 'q1.text': ' \n ' }),
      'q1',
      'q1.text',
    ],
    [
      'a blank comment',
      single,
      submit({ 'q1.mode': 'choice', 'q1.selection': 'option1', 'q1.comment': '  ' }),
      'q1',
      'q1.comment',
    ],
    [
      'an unknown option',
      single,
      submit({ 'q1.mode': 'choice', 'q1.selection': 'option3' }),
      'q1',
      'q1.selection',
    ],
    [
      'an option title instead of its id',
      single,
      submit({ 'q1.mode': 'choice', 'q1.selection': 'Yes' }),
      'q1',
      'q1.selection',
    ],
    [
      'an empty single choice',
      single,
      submit({ 'q1.mode': 'choice', 'q1.selection': '' }),
      'q1',
      'q1.selection',
    ],
    [
      'a duplicate choice',
      [tags],
      submit({ 'q1.selection': ['option1', 'option1'] }),
      'q2',
      'q1.selection',
    ],
    [
      'too many selections on a single select',
      single,
      submit({ 'q1.mode': 'choice', 'q1.selection': ['option1', 'option2'] }),
      'q1',
      'q1.selection',
    ],
    [
      'too many selections on a multi-select',
      [tags],
      submit({ 'q1.selection': ['option1', 'option2', 'option3', 'option1'] }),
      'q2',
      'q1.selection',
    ],
    [
      'a single choice sent as an array',
      single,
      submit({ 'q1.mode': 'choice', 'q1.selection': ['option1'] }),
      'q1',
      'q1.selection',
    ],
    [
      'a multi-select sent as a string',
      [tags],
      submit({ 'q1.selection': 'option1' }),
      'q2',
      'q1.selection',
    ],
    ['a non-string option id', [tags], submit({ 'q1.selection': [1] }), 'q2', 'q1.selection'],
    ['text that is not a string', [typed], submit({ 'q1.text': ['x'] }), 'q3', 'q1.text'],
    [
      'a choice with text as well',
      single,
      submit({ 'q1.mode': 'choice', 'q1.selection': 'option1', 'q1.text': 'x' }),
      'q1',
      'q1.text',
    ],
    [
      'typed text with a selection as well',
      single,
      submit({ 'q1.mode': 'text', 'q1.text': 'x', 'q1.selection': 'option1' }),
      'q1',
      'q1.selection',
    ],
    [
      'a comment on a typed answer',
      single,
      submit({ 'q1.mode': 'text', 'q1.text': 'x', 'q1.comment': 'c' }),
      'q1',
      'q1.comment',
    ],
    [
      'a skip with a selection',
      wizard,
      submit({
        'q1.mode': 'skip',
        'q1.selection': 'option1',
        'q2.mode': 'skip',
        'q3.mode': 'text',
        'q3.text': 'x',
      }),
      'q1',
      'q1.selection',
    ],
    [
      'a skip with a comment',
      wizard,
      submit({
        'q1.mode': 'skip',
        'q2.mode': 'skip',
        'q2.comment': 'c',
        'q3.mode': 'text',
        'q3.text': 'x',
      }),
      'q2',
      'q2.comment',
    ],
    [
      'a skip with text',
      wizard,
      submit({
        'q1.mode': 'choice',
        'q1.selection': 'option1',
        'q2.mode': 'skip',
        'q3.mode': 'skip',
        'q3.text': 'x',
      }),
      'q3',
      'q3.text',
    ],
    [
      'a skip with blank text',
      wizard,
      submit({
        'q1.mode': 'choice',
        'q1.selection': 'option1',
        'q2.mode': 'skip',
        'q3.mode': 'skip',
        'q3.text': ' ',
      }),
      'q3',
      'q3.text',
    ],
    [
      'a wizard question with no answer type',
      wizard,
      submit({ 'q1.mode': 'choice', 'q1.selection': 'option1', 'q2.mode': 'skip' }),
      'q3',
      'q3.mode',
    ],
    ['a skip on a single question', [typed], submit({ 'q1.mode': 'skip' }), undefined, 'q1.mode'],
    [
      'typed text where only options are allowed',
      [question('q1')],
      submit({ 'q1.text': 'x' }),
      undefined,
      'q1.text',
    ],
  ])('rejects %s', (_name, questions, answer, questionId, field) => {
    const error = rejection(questions, answer);
    expect(error.code).toBe('INVALID_ANSWER');
    if (questionId !== undefined) {
      expect(error.data.questionId).toBe(questionId);
      expect(error.message).toContain(`"${questionId}"`);
    }
    if (field !== undefined) {
      expect(error.data.field).toBe(field);
      expect(error.message).toContain(field);
    }
  });

  it('rejects a wizard where every question was skipped, naming the mode fields', () => {
    const error = rejection(
      wizard,
      submit({ 'q1.mode': 'skip', 'q2.mode': 'skip', 'q3.mode': 'skip' }),
    );
    expect(error).toMatchObject({
      code: 'INVALID_ANSWER',
      data: { fields: ['q1.mode', 'q2.mode', 'q3.mode'] },
    });
    expect(error.message).toMatch(/at least one/);
  });

  it('ignores inherited properties of the values object', () => {
    const values = Object.create({ 'q1.text': 'inherited' }) as Record<string, string>;
    expect(rejection([typed], submit(values)).data.field).toBe('q1.text');
  });

  it('refuses a __proto__ key rather than reading through it', () => {
    const values = JSON.parse('{"__proto__": {"q1.text": "x"}}') as Record<string, string>;
    expect(rejection([typed], submit(values)).data.field).toBe('__proto__');
  });
});
