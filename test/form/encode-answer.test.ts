import { describe, expect, it } from 'vitest';
import {
  type AskUserQuestionAnswer,
  buildAskUserForm,
  encodeAskUserFormAnswer,
  isUserInteractionError,
  MAX_ANSWER_BYTES,
  type UiForm,
} from '../../src/data.js';
import { open, question, tags, typed } from './questions.js';

const wizardForm = buildAskUserForm([question('q1'), tags, typed]);
const singleForm = buildAskUserForm([open]);

function rejection(form: UiForm, answers: unknown) {
  try {
    encodeAskUserFormAnswer(form, answers as AskUserQuestionAnswer[]);
  } catch (error) {
    expect(isUserInteractionError(error)).toBe(true);
    return error as { code: string; message: string; data: Record<string, unknown> };
  }
  throw new Error('expected the answers to be rejected');
}

describe('encodeAskUserFormAnswer', () => {
  it('maps titles to option ids ignoring case and turns omitted wizard questions into skips', () => {
    expect(
      encodeAskUserFormAnswer(wizardForm, [
        {
          questionId: 'q2',
          response: { kind: 'selection', selections: ['blue', 'RED'], comment: 'c' },
        },
      ]),
    ).toEqual({
      action: 'submit',
      values: {
        'q1.mode': 'skip',
        'q2.mode': 'choice',
        'q2.selection': ['option3', 'option1'],
        'q2.comment': 'c',
        'q3.mode': 'skip',
      },
    });
  });

  it('encodes an explicit skip and a typed answer', () => {
    expect(
      encodeAskUserFormAnswer(wizardForm, [
        { questionId: 'q1', response: null },
        { questionId: 'q3', response: { kind: 'freeform', text: 'typed' } },
      ]),
    ).toEqual({
      action: 'submit',
      values: { 'q1.mode': 'skip', 'q2.mode': 'skip', 'q3.mode': 'text', 'q3.text': 'typed' },
    });
  });

  it('encodes a single select as one option id and null as cancellation', () => {
    expect(
      encodeAskUserFormAnswer(buildAskUserForm([question('q1')]), [
        { questionId: 'q1', response: { kind: 'selection', selections: ['No'] } },
      ]),
    ).toEqual({ action: 'submit', values: { 'q1.selection': 'option2' } });
    expect(encodeAskUserFormAnswer(singleForm, null)).toEqual({ action: 'cancel', values: {} });
  });

  it('refuses a form that is not an ask_user form', () => {
    const { hint: _hint, ...generic } = singleForm;
    expect(rejection(generic, null).code).toBe('INVALID_ANSWER');
  });

  it('refuses a written answer one byte over 32 KiB', () => {
    const form = buildAskUserForm([typed]);
    const last = '😀'.repeat(MAX_ANSWER_BYTES / 4);
    expect(() =>
      encodeAskUserFormAnswer(form, [
        { questionId: 'q3', response: { kind: 'freeform', text: last } },
      ]),
    ).not.toThrow();
    expect(
      rejection(form, [{ questionId: 'q3', response: { kind: 'freeform', text: `${last}a` } }]),
    ).toMatchObject({ code: 'LIMIT_EXCEEDED', data: { questionId: 'q3', field: 'q1.text' } });
  });

  const sel = (selections: unknown, extra: object = {}) => ({
    kind: 'selection',
    selections,
    ...extra,
  });
  it.each<[string, UiForm, unknown, string | undefined, string | undefined]>([
    ['answers that are not an array', singleForm, { q1: 'Yes' }, undefined, undefined],
    ['an entry without a question id', singleForm, [{ response: null }], undefined, undefined],
    [
      'an unknown question',
      singleForm,
      [{ questionId: 'q9', response: sel(['Yes']) }],
      'q9',
      undefined,
    ],
    [
      'a question answered twice',
      singleForm,
      [
        { questionId: 'q1', response: sel(['Yes']) },
        { questionId: 'q1', response: sel(['No']) },
      ],
      'q1',
      undefined,
    ],
    ['a missing answer to a single question', singleForm, [], 'q1', undefined],
    [
      'a skip of a single question',
      singleForm,
      [{ questionId: 'q1', response: null }],
      'q1',
      undefined,
    ],
    ['every wizard question skipped', wizardForm, [], undefined, undefined],
    [
      'a response that is not an object',
      singleForm,
      [{ questionId: 'q1', response: 'Yes' }],
      'q1',
      undefined,
    ],
    [
      'an unknown response kind',
      singleForm,
      [{ questionId: 'q1', response: { kind: 'both' } }],
      'q1',
      undefined,
    ],
    [
      'empty selections',
      singleForm,
      [{ questionId: 'q1', response: sel([]) }],
      'q1',
      'q1.selection',
    ],
    [
      'an unknown option',
      singleForm,
      [{ questionId: 'q1', response: sel(['Maybe']) }],
      'q1',
      'q1.selection',
    ],
    [
      'a duplicate choice',
      wizardForm,
      [{ questionId: 'q2', response: sel(['Red', 'red']) }],
      'q2',
      'q2.selection',
    ],
    [
      'too many selections',
      singleForm,
      [{ questionId: 'q1', response: sel(['Yes', 'No']) }],
      'q1',
      'q1.selection',
    ],
    [
      'a selection on a typed-only question',
      wizardForm,
      [{ questionId: 'q3', response: sel(['Yes']) }],
      'q3',
      'q3.text',
    ],
    [
      'a typed answer where only options are allowed',
      wizardForm,
      [{ questionId: 'q1', response: { kind: 'freeform', text: 'x' } }],
      'q1',
      'q1.selection',
    ],
    [
      'an empty typed answer',
      singleForm,
      [{ questionId: 'q1', response: { kind: 'freeform', text: '' } }],
      'q1',
      'q1.text',
    ],
    [
      'a blank typed answer',
      singleForm,
      [{ questionId: 'q1', response: { kind: 'freeform', text: '\t' } }],
      'q1',
      'q1.text',
    ],
    [
      'an empty comment',
      singleForm,
      [{ questionId: 'q1', response: sel(['Yes'], { comment: '' }) }],
      'q1',
      'q1.comment',
    ],
    [
      'a comment where comments are off',
      wizardForm,
      [{ questionId: 'q1', response: sel(['Yes'], { comment: 'c' }) }],
      'q1',
      undefined,
    ],
    [
      'a selection carrying text too',
      singleForm,
      [{ questionId: 'q1', response: sel(['Yes'], { text: 'x' }) }],
      'q1',
      'q1.selection',
    ],
    [
      'a typed answer carrying a comment',
      singleForm,
      [{ questionId: 'q1', response: { kind: 'freeform', text: 'x', comment: 'c' } }],
      'q1',
      'q1.text',
    ],
  ])('rejects %s', (_name, form, answers, questionId, field) => {
    const error = rejection(form, answers);
    expect(error.code).toBe('INVALID_ANSWER');
    if (questionId !== undefined) expect(error.data.questionId).toBe(questionId);
    if (field !== undefined) expect(error.data.field).toBe(field);
  });
});
