/**
 * The generic form of a tool approval: edit fields generated from the tool's input schema and
 * prefilled with the proposed input (flat properties as fields, nested ones as JSON text), decoded
 * into an edited input that the schema checks before it counts, and encoded back.
 */
import { describe, expect, it } from 'vitest';
import {
  type AskUserQuestion,
  buildAskUserForm,
  decodeAskUserFormAnswer,
  encodeAskUserFormAnswer,
  isUserInteractionError,
  normalizeAskUserRequest,
  readAskUserForm,
  toolApprovalRequest,
  type UiFormAnswer,
  type UiFormField,
} from '../../src/index.js';

const inputSchema = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'Where to *delete*', minLength: 1 },
    depth: { type: 'integer', minimum: 0 },
    force: { type: 'boolean' },
    mode: { type: 'string', enum: ['dry-run', 'real'] },
    exclude: { type: 'array', items: { type: 'string' } },
  },
  required: ['path', 'mode'],
  additionalProperties: false,
};
const input = { path: '/tmp/build', depth: 2, mode: 'real', exclude: ['keep'] };

function questionsFor(call: Record<string, unknown> = {}): AskUserQuestion[] {
  const result = normalizeAskUserRequest(
    toolApprovalRequest({ toolName: 'rm', toolCallId: 'c1', input, inputSchema, ...call }),
    { allowIds: true },
  );
  if (!result.ok) throw result.error;
  return result.value.questions;
}

const submit = (values: Record<string, string | string[]>): UiFormAnswer => ({
  action: 'submit',
  values: { 'q1.selection': 'option1', ...values },
});

/** A field's prefilled value (multi-choice fields have none). */
const prefilled = (field: UiFormField) => ('default' in field ? field.default : undefined);

describe('the tool-approval form', () => {
  it('has one prefilled field per property: text, number, choice, enum, JSON', () => {
    const form = buildAskUserForm(questionsFor());
    const edits = form.fields.filter((field) => field.id.startsWith('q1.edit'));
    expect(edits.map((field) => [field.id, field.label, field.type, prefilled(field)])).toEqual([
      ['q1.edit1', 'path', 'text', '/tmp/build'],
      ['q1.edit2', 'depth', 'text', '2'],
      ['q1.edit3', 'force', 'choice', 'unset'],
      ['q1.edit4', 'mode', 'choice', 'value2'],
      ['q1.edit5', 'exclude', 'text', '[\n  "keep"\n]'],
    ]);
    // Descriptions are escaped Markdown like every other text of the form.
    expect(edits[0]?.description).toContain('Where to \\*delete\\*');
    expect(readAskUserForm(form)).toEqual(questionsFor());
  });

  it('decodes the prefilled values as an approval of the input as proposed', () => {
    const questions = questionsFor();
    const form = buildAskUserForm(questions);
    const values = Object.fromEntries(
      form.fields.flatMap((field) => {
        const value = prefilled(field);
        return value === undefined ? [] : [[field.id, value]];
      }),
    );
    expect(decodeAskUserFormAnswer(questions, submit(values))).toEqual([
      { questionId: 'q1', response: { kind: 'selection', selections: ['Approve'] } },
    ]);
  });

  it('decodes changed fields as an edited input, keys sorted', () => {
    const answers = decodeAskUserFormAnswer(
      questionsFor(),
      submit({
        'q1.edit1': '/tmp/build/cache',
        'q1.edit2': '',
        'q1.edit3': 'value1',
        'q1.edit4': 'value1',
        'q1.edit5': '["a", "b"]',
      }),
    );
    expect(answers?.[0]?.response).toEqual({
      kind: 'selection',
      selections: ['Approve'],
      input: { exclude: ['a', 'b'], force: true, mode: 'dry-run', path: '/tmp/build/cache' },
    });
  });

  it.each([
    ['a schema violation', { 'q1.edit1': '' }, 'q1.edit1', /at \/path, expected at least 1/],
    ['a number that is not one', { 'q1.edit2': 'two' }, 'q1.edit2', /not a whole number/],
    ['a nested value that is not JSON', { 'q1.edit5': '["a",' }, 'q1.edit5', /not valid JSON/],
    [
      'nested JSON the schema refuses',
      { 'q1.edit5': '[1]' },
      'q1.edit5',
      /at \/exclude\/0, expected string/,
    ],
    ['an unknown enum value', { 'q1.edit4': 'value9' }, 'q1.edit4', /not one of the options/],
  ])('refuses %s, naming the field', (_, values, field, message) => {
    let error: unknown;
    try {
      decodeAskUserFormAnswer(questionsFor(), submit(values));
    } catch (caught) {
      error = caught;
    }
    expect(isUserInteractionError(error, 'INVALID_ANSWER')).toBe(true);
    expect((error as Error).message).toMatch(message);
    expect((error as { data: { field?: string } }).data.field).toBe(field);
  });

  it('takes a rejection with its reason and the prefilled edit fields as they are', () => {
    const answers = decodeAskUserFormAnswer(
      questionsFor(),
      submit({ 'q1.selection': 'option2', 'q1.comment': 'Wrong dir', 'q1.edit1': '/other' }),
    );
    expect(answers?.[0]?.response).toEqual({
      kind: 'selection',
      selections: ['Reject'],
      comment: 'Wrong dir',
    });
  });

  it('holds an input its schema does not describe field by field as one JSON field', () => {
    const questions = questionsFor({ inputSchema: { type: 'object' }, input: { a: { b: 1 } } });
    const form = buildAskUserForm(questions);
    const edits = form.fields.filter((field) => field.id.startsWith('q1.edit'));
    expect(edits).toHaveLength(1);
    expect(edits[0]).toMatchObject({ type: 'text', default: '{\n  "a": {\n    "b": 1\n  }\n}' });
    const answers = decodeAskUserFormAnswer(questions, submit({ 'q1.edit1': '{"a":2}' }));
    expect(answers?.[0]?.response).toMatchObject({ input: { a: 2 } });
  });

  it('offers no edit fields without a schema or with edits turned off', () => {
    for (const call of [{ inputSchema: undefined }, { allowEdits: false }]) {
      const form = buildAskUserForm(questionsFor(call));
      expect(form.fields.map((field) => field.id)).toEqual(['q1.selection', 'q1.comment']);
    }
  });

  it('encodes an edited input into the field values the decoder reads back', () => {
    const questions = questionsFor();
    const form = buildAskUserForm(questions);
    const answers = [
      {
        questionId: 'q1',
        response: {
          kind: 'selection' as const,
          selections: ['Approve'],
          input: { path: '/x', mode: 'dry-run', force: false },
        },
      },
    ];
    const reply = encodeAskUserFormAnswer(form, answers);
    expect(reply.values).toMatchObject({
      'q1.edit1': '/x',
      'q1.edit2': '',
      'q1.edit3': 'value2',
      'q1.edit4': 'value1',
      'q1.edit5': '',
    });
    expect(decodeAskUserFormAnswer(questions, reply)?.[0]?.response).toEqual({
      kind: 'selection',
      selections: ['Approve'],
      input: { force: false, mode: 'dry-run', path: '/x' },
    });
  });
});
