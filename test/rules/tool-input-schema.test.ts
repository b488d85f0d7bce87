/**
 * Which edited inputs a tool's input JSON Schema accepts, through the public rules: the schema
 * goes into a tool-approval question, the edit into an answer, and validateAskUserAnswers says
 * yes or names the path and the problem. A schema keyword the check does not know is refused
 * when the question is normalized.
 */
import { describe, expect, it } from 'vitest';
import {
  normalizeAskUserRequest,
  toolApprovalRequest,
  validateAskUserAnswers,
} from '../../src/index.js';

function questionsFor(inputSchema: object) {
  const result = normalizeAskUserRequest(
    toolApprovalRequest({ toolName: 't', toolCallId: 'c', input: {}, inputSchema }),
    { allowIds: true },
  );
  if (!result.ok) throw result.error;
  return result.value.questions;
}

function check(inputSchema: object, input: unknown): string | undefined {
  const answers = [
    { questionId: 'q1', response: { kind: 'selection', selections: ['Approve'], input } },
  ];
  try {
    validateAskUserAnswers(questionsFor(inputSchema), answers);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const cases: [string, object, unknown, RegExp | undefined][] = [
  [
    'anyOf: one alternative fits',
    { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    3,
    undefined,
  ],
  [
    'anyOf: none fits',
    { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    1.5,
    /expected string/,
  ],
  [
    'oneOf: two fit',
    { oneOf: [{ type: 'number' }, { type: 'integer' }] },
    2,
    /exactly one of 2 alternatives, 2 match/,
  ],
  ['allOf', { allOf: [{ minimum: 1 }, { maximum: 3 }] }, 4, /above 3/],
  ['not', { not: { const: 'root' } }, 'root', /must not/],
  ['const', { const: 'a' }, 'b', /expected "a"/],
  ['enum of objects, keys in any order', { enum: [{ a: 1, b: 2 }] }, { b: 2, a: 1 }, undefined],
  ['uniqueItems', { type: 'array', uniqueItems: true }, [{ a: 1 }, { a: 1 }], /items that differ/],
  ['multipleOf', { multipleOf: 5 }, 12, /multiple of 5/],
  [
    'minLength counts characters, not UTF-16 units',
    { type: 'string', maxLength: 1 },
    '😀',
    undefined,
  ],
  ['pattern', { type: 'string', pattern: '^[a-z]+$' }, 'A1', /pattern/],
  ['nullable by type list', { type: ['string', 'null'] }, null, undefined],
  [
    'a $ref to $defs',
    { $ref: '#/$defs/n', $defs: { n: { type: 'number' } } },
    'x',
    /expected number/,
  ],
  [
    'additionalProperties as a schema',
    { type: 'object', additionalProperties: { type: 'boolean' } },
    { x: 1 },
    /at \/x, expected boolean/,
  ],
  [
    'a property named with a slash',
    { type: 'object', properties: { 'a/b': { type: 'string' } } },
    { 'a/b': 1 },
    /at \/a~1b/,
  ],
  ['NaN is not JSON', { type: 'number' }, Number.NaN, /not JSON/],
];

describe('an edited input against the tool’s input schema', () => {
  it.each(cases)('%s', (_, schema, input, expected) => {
    const problem = check(schema, input);
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(expected);
  });

  it.each([
    ['a keyword it does not check', { patternProperties: {} }, /"patternProperties"/],
    ['draft 4’s boolean exclusiveMinimum', { minimum: 1, exclusiveMinimum: true }, /draft 4/],
    ['tuple items', { items: [{ type: 'string' }] }, /#\/items is not a schema/],
    ['a $ref that leads nowhere', { $ref: '#/$defs/missing' }, /not a reference to an entry/],
    ['a remote $ref', { $ref: 'https://example.com/s.json' }, /not a reference to an entry/],
    ['an unknown type', { type: 'date' }, /names no known type/],
  ])('refuses a schema with %s when the question is made', (_, schema, expected) => {
    expect(() => questionsFor(schema)).toThrow(expected);
  });
});
