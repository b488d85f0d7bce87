import { describe, expect, it } from 'vitest';
import { isUserInteractionError } from '../../src/rules/errors.js';
import { prepareAskUserArguments } from '../../src/tool/prepare-arguments.js';

function refusal(raw: unknown): string {
  try {
    prepareAskUserArguments(raw);
  } catch (error) {
    if (!isUserInteractionError(error, 'INVALID_REQUEST')) throw error;
    return error.message;
  }
  throw new Error('expected prepareAskUserArguments to refuse');
}

describe('prepareAskUserArguments', () => {
  it('passes well-formed arguments through with options as { title, description? }', () => {
    const raw = {
      question: 'Deploy?',
      options: [{ title: 'Yes', description: 'now' }, { title: 'No' }],
      allowComment: true,
      timeout: 1000,
    };
    expect(prepareAskUserArguments(raw)).toEqual(raw);
  });

  it('parses the whole argument object sent as a JSON string', () => {
    expect(prepareAskUserArguments('{"question":"Deploy?"}')).toEqual({ question: 'Deploy?' });
  });

  it('parses questions and options sent as JSON strings', () => {
    expect(
      prepareAskUserArguments({
        questions: '[{"question":"A?","options":"[\\"x\\",\\"y\\"]"}]',
        options: '["d"]',
      }),
    ).toEqual({
      questions: [{ question: 'A?', options: [{ title: 'x' }, { title: 'y' }] }],
      options: [{ title: 'd' }],
    });
  });

  it('turns option strings, numbers, booleans and keyed objects into titles', () => {
    expect(
      prepareAskUserArguments({
        question: 'Pick',
        options: [
          'a',
          2,
          false,
          { label: 'L' },
          { text: 'T' },
          { value: 'V' },
          { name: 'N' },
          { option: 'O' },
        ],
      }).options,
    ).toEqual(['a', '2', 'false', 'L', 'T', 'V', 'N', 'O'].map((title) => ({ title })));
  });

  it('turns "true"/"false" strings into booleans and a numeric timeout string into a number', () => {
    expect(
      prepareAskUserArguments({
        question: 'x',
        allowMultiple: 'true',
        allowFreeform: ' FALSE ',
        questions: [{ question: 'y', allowComment: 'true' }],
        timeout: ' 1500 ',
      }),
    ).toEqual({
      question: 'x',
      allowMultiple: true,
      allowFreeform: false,
      questions: [{ question: 'y', allowComment: true }],
      timeout: 1500,
    });
  });

  it('leaves values it cannot read as booleans or numbers for the normalizer to report', () => {
    expect(
      prepareAskUserArguments({ question: 'x', allowMultiple: 'yes', timeout: '10s' }),
    ).toEqual({
      question: 'x',
      allowMultiple: 'yes',
      timeout: '10s',
    });
    expect(prepareAskUserArguments({ question: 'x', timeout: '0x10' }).timeout).toBe('0x10');
  });

  it('treats null as a field left out', () => {
    expect(
      prepareAskUserArguments({
        question: 'x',
        questions: null,
        header: null,
        options: null,
        timeout: null,
      }),
    ).toEqual({ question: 'x' });
  });

  it('turns bare string entries of questions into questions', () => {
    expect(prepareAskUserArguments({ questions: ['A?', 'B?'] })).toEqual({
      questions: [{ question: 'A?' }, { question: 'B?' }],
    });
  });

  it('parses an intent sent as a JSON string', () => {
    expect(
      prepareAskUserArguments({ question: 'x', intent: '{"kind":"plan-review","approve":"Yes"}' })
        .intent,
    ).toEqual({ kind: 'plan-review', approve: 'Yes' });
  });

  it('keeps unknown fields for the normalizer to name', () => {
    expect(prepareAskUserArguments({ question: 'x', multiSelect: true })).toEqual({
      question: 'x',
      multiSelect: true,
    });
  });

  it('names an unusable option by position and question', () => {
    expect(refusal({ question: 'x', options: ['a', { id: 3 }] })).toMatch(
      /^Option 2 of question 1 is unusable: an option object needs a "title"/,
    );
    expect(refusal({ questions: [{ question: 'x' }, { question: 'y', options: [NaN] }] })).toMatch(
      /^Option 1 of question 2 is unusable: the option is NaN/,
    );
    expect(refusal({ questions: [{ question: 'x' }], options: ['', 'b'] })).toMatch(
      /^Option 1 of the top-level "options" is unusable/,
    );
  });

  it('refuses options that are not an array, rather than falling back to a typed answer', () => {
    expect(refusal({ question: 'x', options: 'yes, no' })).toMatch(
      /"options" of question 1 arrived as a string that is not valid JSON \("yes, no"\); send an array/,
    );
    expect(refusal({ question: 'x', options: { a: 1 } })).toMatch(
      /"options" of question 1 must be an array/,
    );
  });

  it('refuses arguments that are not an object, or a JSON string of something else', () => {
    expect(refusal('[1,2]')).toMatch(/JSON string holding an array of 2; send an object/);
    expect(refusal('{oops')).toMatch(/not valid JSON/);
    expect(refusal(42)).toMatch(/must be an object/);
    expect(refusal({ questions: [null] })).toMatch(/^Question 1 is unusable: .*got null/);
  });

  it('keeps a __proto__ key as data without changing the copy’s prototype', () => {
    const repaired = prepareAskUserArguments(
      JSON.parse('{"question":"x","__proto__":{"options":["a"]}}'),
    );
    expect(Object.getPrototypeOf(repaired)).toBe(Object.prototype);
    expect(Object.hasOwn(repaired, '__proto__')).toBe(true);
    expect(repaired.options).toBeUndefined();
    expect(({} as Record<string, unknown>).options).toBeUndefined();
  });

  it('does not change its input', () => {
    const raw = { question: 'x', options: ['a'], allowComment: 'true' };
    const copy = structuredClone(raw);
    prepareAskUserArguments(raw);
    expect(raw).toEqual(copy);
  });
});
