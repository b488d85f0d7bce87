import { describe, expect, it } from 'vitest';
import {
  ASK_USER_FORM_HINT,
  buildAskUserForm,
  isUserInteractionError,
  MAX_ANSWER_BYTES,
  MAX_FORM_HINT_BYTES,
  type UiFormField,
  utf8ByteLength,
} from '../../src/data.js';
import { open, question, tags, typed } from './questions.js';

function layout(fields: readonly UiFormField[]) {
  return fields.map((field) =>
    field.type === 'text'
      ? `${field.id}:text`
      : `${field.id}:${field.type}[${field.options.map((o) => o.id).join(',')}]`,
  );
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('buildAskUserForm', () => {
  it.each([
    [
      'a single select without freeform',
      [question('q1')],
      ['q1.selection:choice[option1,option2]'],
    ],
    ['a question with no options', [typed], ['q1.text:text']],
    [
      'a single select that also takes text and a comment',
      [open],
      [
        'q1.mode:choice[choice,text]',
        'q1.selection:choice[option1,option2]',
        'q1.text:text',
        'q1.comment:text',
      ],
    ],
    [
      'a wizard, where every question can be skipped',
      [question('a'), tags, typed],
      [
        'q1.mode:choice[choice,skip]',
        'q1.selection:choice[option1,option2]',
        'q2.mode:choice[choice,skip]',
        'q2.selection:multi-choice[option1,option2,option3]',
        'q2.comment:text',
        'q3.mode:choice[text,skip]',
        'q3.text:text',
      ],
    ],
  ])('lays out %s', (_name, questions, expected) => {
    expect(layout(buildAskUserForm(questions).fields)).toEqual(expected);
  });

  it('keys fields by position, not by the question id', () => {
    const form = buildAskUserForm([question('db'), question('cache')]);
    expect(form.fields.map((field) => field.id)).toEqual([
      'q1.mode',
      'q1.selection',
      'q2.mode',
      'q2.selection',
    ]);
  });

  it('declares submit and cancel, the hint with the questions, and no default values', () => {
    const form = buildAskUserForm([open, tags]);
    expect(form.actions).toEqual([
      { id: 'submit', kind: 'submit', label: 'Submit' },
      { id: 'cancel', kind: 'cancel', label: 'Cancel' },
    ]);
    expect(form.hint).toEqual({ ...ASK_USER_FORM_HINT, data: { questions: [open, tags] } });
    expect(ASK_USER_FORM_HINT).toEqual({ id: 'ask-user.wizard', version: '2' });
    expect(JSON.stringify(form)).not.toMatch(/"default/i);
    const multi = form.fields.find((field) => field.type === 'multi-choice');
    expect(multi).toMatchObject({ maxSelections: 3 });
    for (const field of form.fields) {
      if (field.type === 'text') expect(field).toMatchObject({ maxBytes: MAX_ANSWER_BYTES });
    }
  });

  it('copies the questions rather than aliasing them', () => {
    const input = question('q1', { options: [{ title: 'A', description: 'first' }] });
    const form = buildAskUserForm([input]);
    input.options[0]!.title = 'changed';
    expect(
      (form.hint!.data as { questions: (typeof input)[] }).questions[0]!.options[0]!.title,
    ).toBe('A');
  });

  it('shows the header as the label and the question with its context as escaped Markdown', () => {
    const form = buildAskUserForm([
      question('q1', {
        header: 'Plan <b>',
        question: 'Ship **it**?',
        context: '# Plan\n- step [one](http://evil.example)',
        options: [{ title: 'Go *now*', description: '`rm -rf` <script>' }],
      }),
    ]);
    const field = form.fields[0]!;
    expect(form.title).toBe('Plan <b>');
    expect(field.label).toBe('Plan <b>');
    expect(field.description).toBe(
      'Ship \\*\\*it\\*\\*?\n\n\\# Plan\\\n\\- step \\[one\\]\\(http\\://evil\\.example\\)',
    );
    expect(field.type === 'choice' && field.options[0]).toEqual({
      id: 'option1',
      label: 'Go *now*',
      description: '\\`rm \\-rf\\` \\<script\\>',
    });
  });

  it('never shortens shown text', () => {
    const long = 'word '.repeat(5000).trim();
    const form = buildAskUserForm([question('q1', { question: long, context: long })]);
    expect(form.fields[0]!.description).toBe(`${long}\n\n${long}`);
  });

  it('shows control characters in labels as escape sequences', () => {
    const form = buildAskUserForm([
      question('q1', {
        header: 'red\u001b[31m',
        options: [{ title: 'a\u202eb' }, { title: 'c\nd' }],
      }),
    ]);
    const field = form.fields[0]!;
    expect(field.label).toBe('red\\x1b[31m');
    expect(field.type === 'choice' && field.options.map((o) => o.label)).toEqual([
      'a\\u202eb',
      'c\\x0ad',
    ]);
  });
});

describe('buildAskUserForm limits', () => {
  // One question whose hint data is exactly `bytes` long, padded with a multi-byte character.
  function questionOfHintSize(bytes: number, filler: string) {
    const base = question('q1', { context: '' });
    const empty = utf8ByteLength(JSON.stringify({ questions: [base] }));
    const unit = utf8ByteLength(filler);
    const room = bytes - empty;
    return { ...base, context: filler.repeat(Math.floor(room / unit)) + 'a'.repeat(room % unit) };
  }

  it.each(['é', '€', '😀'])(
    'accepts hint data of exactly %s-padded 128 KiB and refuses one byte more',
    (filler) => {
      const last = questionOfHintSize(MAX_FORM_HINT_BYTES, filler);
      expect(utf8ByteLength(JSON.stringify({ questions: [last] }))).toBe(MAX_FORM_HINT_BYTES);
      expect(() => buildAskUserForm([last])).not.toThrow();

      const first = questionOfHintSize(MAX_FORM_HINT_BYTES + 1, filler);
      const error = thrown(() => buildAskUserForm([first]));
      expect(isUserInteractionError(error, 'LIMIT_EXCEEDED')).toBe(true);
      expect(error).toMatchObject({
        data: { limit: MAX_FORM_HINT_BYTES, actual: MAX_FORM_HINT_BYTES + 1 },
        message: expect.stringContaining('131073 bytes'),
      });
    },
  );

  it('counts JSON escapes in the hint size', () => {
    // A quote is one byte of text but two of JSON.
    const base = questionOfHintSize(MAX_FORM_HINT_BYTES, 'a');
    const quoted = { ...base, context: `"${base.context.slice(1)}` };
    expect(
      isUserInteractionError(
        thrown(() => buildAskUserForm([quoted])),
        'LIMIT_EXCEEDED',
      ),
    ).toBe(true);
  });

  it('allows 64 options on a multi-select and refuses 65', () => {
    const options = (n: number) => Array.from({ length: n }, (_, i) => ({ title: `o${i}` }));
    expect(() =>
      buildAskUserForm([question('q1', { allowMultiple: true, options: options(64) })]),
    ).not.toThrow();
    const error = thrown(() =>
      buildAskUserForm([question('q1', { allowMultiple: true, options: options(65) })]),
    );
    expect(error).toMatchObject({
      code: 'LIMIT_EXCEEDED',
      data: { questionId: 'q1', limit: 64, actual: 65 },
    });
    // A single select is not a multi-select: the option limit does not apply to it.
    expect(() => buildAskUserForm([question('q1', { options: options(65) })])).not.toThrow();
  });

  it.each([
    ['no questions', [], 'EMPTY_QUESTIONS'],
    ['five questions', ['a', 'b', 'c', 'd', 'e'].map((id) => question(id)), 'TOO_MANY_QUESTIONS'],
    ['duplicate ids', [question('q1'), question('q1')], 'INVALID_REQUEST'],
    [
      'titles equal but for case',
      [question('q1', { options: [{ title: 'Yes' }, { title: 'YES' }] })],
      'INVALID_REQUEST',
    ],
    ['no options and no freeform', [question('q1', { options: [] })], 'INVALID_REQUEST'],
    ['a question that is not normalized', [{ id: 'q1', question: 'x' }], 'INVALID_REQUEST'],
  ])('refuses %s', (_name, questions, code) => {
    const error = thrown(() => buildAskUserForm(questions as never));
    expect(isUserInteractionError(error)).toBe(true);
    expect(error).toMatchObject({ code });
  });
});
