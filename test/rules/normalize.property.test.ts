import { Value } from '@sinclair/typebox/value';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { AskUserQuestionSchema } from '../../src/contracts/question.js';
import { isUserInteractionError, USER_INTERACTION_ERROR_CODES } from '../../src/rules/errors.js';
import { MAX_MULTI_SELECT_OPTIONS, MAX_QUESTIONS } from '../../src/rules/limits.js';
import { normalizeAskUserRequest } from '../../src/rules/normalize.js';
import { prepareAskUserArguments } from '../../src/tool/prepare-arguments.js';

const KNOWN_KEYS = [
  'question',
  'questions',
  'header',
  'context',
  'options',
  'allowMultiple',
  'allowFreeform',
  'allowComment',
  'intent',
  'displayMode',
  'singleSelectLayout',
  'overlayToggleKey',
  'commentToggleKey',
  'timeout',
  'title',
  'label',
  'text',
  'value',
  'name',
  'option',
  'description',
  'kind',
  'approve',
  'id',
];
const HOSTILE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
];

function deeplyNested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { options: value };
  return value;
}

function cyclic(): unknown {
  const node: Record<string, unknown> = { question: 'loop?' };
  node.options = [node];
  node.questions = [node];
  node.intent = node;
  return node;
}

const controlChars = fc.string({
  unit: fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code)),
});
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  controlChars,
  fc.constantFrom('', '   ', 'Yes', 'yes', ' YES ', 'true', 'false', '1500', 'null', '[]', '{}'),
  fc.constantFrom('["a","b"]', '[{"title":"a"},{"label":"b"}]', '{"question":"x"}', '[1, null]'),
  // Look-alikes: invisible characters, soft hyphens, NFD against NFC.
  fc.constantFrom(
    'Yes\u200b',
    'Ye\u00ads',
    'Cafe\u0301',
    'Café',
    '\u200b',
    '\u2060 \ufe0f',
    'YES\u2060',
  ),
);
const hugeText = fc.constantFrom('x'.repeat(200_000), '\u0000'.repeat(40_000), '💥'.repeat(50_000));
const special = fc.constantFrom<unknown>(
  null,
  undefined,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  -0,
  0,
  -1,
  1e308,
  [],
  {},
  () => 'fn',
  Symbol('s'),
  10n,
  new Date(0),
  new Map([['question', 'x']]),
  Object.create(null),
  Object.create({ question: 'inherited', options: ['a'] }),
);
const hostile = fc.constantFrom<unknown>(deeplyNested(5_000), cyclic(), hugeText);

const key = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...KNOWN_KEYS) },
  { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_KEYS) },
  { weight: 1, arbitrary: fc.string() },
);

const leaf = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), special, hostile);

// Objects built with own keys only (defineProperty), so `__proto__` is data, as JSON.parse makes it.
function ownObject(entries: [string, unknown][]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [name, value] of entries) {
    Object.defineProperty(object, name, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return object;
}

const { value: anyValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 6 }),
    fc.array(fc.tuple(key, tie('value')), { maxLength: 6 }).map(ownObject),
  ),
}));

const option = fc.oneof(
  text,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  special,
  fc
    .tuple(fc.constantFrom('title', 'label', 'text', 'value', 'name', 'option'), text)
    .map(([name, title]) => ownObject([[name, title]])),
  fc.record({ title: text, description: fc.oneof(text, special) }, { requiredKeys: ['title'] }),
  anyValue,
);

const entry = fc
  .record(
    {
      question: fc.oneof(text, hugeText, special),
      header: fc.oneof(text, special),
      context: fc.oneof(text, hugeText, special),
      options: fc.oneof(fc.array(option, { maxLength: 70 }), text, special),
      allowMultiple: fc.oneof(fc.boolean(), text, special),
      allowFreeform: fc.oneof(fc.boolean(), text, special),
      allowComment: fc.oneof(fc.boolean(), text, special),
      intent: fc.oneof(
        fc.record({ kind: fc.oneof(fc.constant('plan-review'), text), approve: text }),
        anyValue,
      ),
    },
    { requiredKeys: ['question'] },
  )
  .chain((base) =>
    fc
      .array(fc.tuple(key, anyValue), { maxLength: 2 })
      .map((extra) => ownObject([...Object.entries(base), ...extra])),
  );

// Mostly valid input, so the success path is exercised as hard as the refusals.
const word = fc.oneof(
  fc.string({ minLength: 1, maxLength: 12 }),
  controlChars,
  fc.constantFrom('Yes', 'No', ' A ', 'a', 'Yes\u200b', 'Café', 'Cafe\u0301', 'N\u00ado'),
);
const plausibleOption = fc.oneof(
  word,
  fc.integer(),
  fc.boolean(),
  fc.record({ title: word, description: word }, { requiredKeys: ['title'] }),
  word.map((title) => ({ label: title })),
);
const plausibleEntry = fc.record(
  {
    question: word,
    header: word,
    context: word,
    options: fc.array(plausibleOption, { maxLength: 70 }),
    allowMultiple: fc.boolean(),
    allowFreeform: fc.boolean(),
    allowComment: fc.boolean(),
  },
  { requiredKeys: ['question'] },
);
const planReview = fc
  .uniqueArray(fc.string({ minLength: 1, maxLength: 8 }), {
    minLength: 1,
    maxLength: 5,
    selector: (title) => title.trim().toLowerCase(),
  })
  .chain((titles) =>
    fc.record({
      question: word,
      context: word,
      options: fc.constant(titles),
      intent: fc.record({ kind: fc.constant('plan-review'), approve: fc.constantFrom(...titles) }),
    }),
  );
const plausible = fc.oneof(
  plausibleEntry,
  planReview,
  fc.record(
    {
      questions: fc.array(plausibleEntry, { minLength: 1, maxLength: 4 }),
      options: fc.array(plausibleOption, { maxLength: 6 }),
      timeout: fc.integer({ min: 1000 }),
      displayMode: fc.constantFrom('overlay', 'inline'),
      commentToggleKey: word,
    },
    { requiredKeys: ['questions'] },
  ),
);

const request = fc.oneof(
  { weight: 3, arbitrary: plausible },
  entry,
  fc
    .tuple(
      fc.oneof(fc.array(fc.oneof(entry, anyValue), { maxLength: 6 }), text, special),
      fc.record(
        {
          options: fc.array(option, { maxLength: 8 }),
          allowComment: fc.boolean(),
          timeout: fc.oneof(fc.integer(), fc.double(), text, special),
          displayMode: fc.oneof(fc.constantFrom('overlay', 'inline'), text),
        },
        { requiredKeys: [] },
      ),
    )
    .map(([questions, defaults]) => ({ questions, ...defaults })),
  anyValue,
);

// Raw arguments as a model's client hands them over: objects, or the same serialized to JSON.
const rawArguments = fc.oneof(
  request,
  request.map((value) => {
    try {
      return JSON.stringify(value) ?? 'null';
    } catch {
      return '{"question": 1}';
    }
  }),
);

function expectCleanError(error: unknown): void {
  expect(isUserInteractionError(error)).toBe(true);
  if (!isUserInteractionError(error)) return;
  expect(USER_INTERACTION_ERROR_CODES).toContain(error.code);
  expect(typeof error.message).toBe('string');
  expect(error.message.length).toBeGreaterThan(10);
}

function expectWellFormed(input: unknown, allowIds = false): void {
  const result = normalizeAskUserRequest(input, { allowIds });
  if (!result.ok) {
    expectCleanError(result.error);
    return;
  }
  const { questions } = result.value;
  expect(questions.length).toBeGreaterThanOrEqual(1);
  expect(questions.length).toBeLessThanOrEqual(MAX_QUESTIONS);
  questions.forEach((question, index) => {
    expect(Value.Check(AskUserQuestionSchema, question)).toBe(true);
    if (!allowIds) expect(question.id).toBe(`q${index + 1}`);
    expect(question.question).toBe(question.question.trim());
    expect(question.question).not.toBe('');
    if (question.options.length === 0) {
      expect(question.allowFreeform).toBe(true);
      expect(question.allowMultiple).toBe(false);
    }
    if (question.allowMultiple) {
      expect(question.options.length).toBeLessThanOrEqual(MAX_MULTI_SELECT_OPTIONS);
    }
    // Distinct as people see them: no two titles differ only in case, invisible characters or
    // Unicode normalization form, and every title shows something.
    const seen = question.options.map((o) =>
      o.title
        .replace(/\p{Default_Ignorable_Code_Point}/gu, '')
        .normalize('NFC')
        .toLowerCase(),
    );
    expect(new Set(seen).size).toBe(seen.length);
    for (const key of seen) expect(key.trim()).not.toBe('');
    if (question.intent !== undefined) {
      expect(question.options.map((o) => o.title)).toContain(question.intent.approve);
      expect(question.context).toBeDefined();
    }
  });
  // What the tool hands on is normalized again by the service: that must change nothing.
  const again = normalizeAskUserRequest(
    {
      questions,
      ...result.value.hints,
      ...(result.value.timeoutMs === undefined ? {} : { timeout: result.value.timeoutMs }),
    },
    { allowIds: true },
  );
  expect(again.ok && again.value.questions).toEqual(questions);
  // The request itself is taken as it is: it was normalized once already.
  expect(normalizeAskUserRequest(result.value, { allowIds: true })).toEqual({
    ok: true,
    value: result.value,
  });
}

const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();

describe('hostile and random tool input', () => {
  afterAll(() => {
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
  });

  it('normalizeAskUserRequest returns a well-formed request or a UserInteractionError, never throws', () => {
    fc.assert(
      fc.property(request, fc.boolean(), (input, allowIds) => {
        expectWellFormed(input, allowIds);
      }),
      { numRuns: 1500 },
    );
  });

  it('prepareAskUserArguments returns repaired input or throws a UserInteractionError', () => {
    fc.assert(
      fc.property(rawArguments, (raw) => {
        let repaired: unknown;
        try {
          repaired = prepareAskUserArguments(raw);
        } catch (error) {
          expectCleanError(error);
          return;
        }
        expect(typeof repaired).toBe('object');
        expect(Object.getPrototypeOf(repaired)).toBe(Object.prototype);
        expectWellFormed(repaired);
      }),
      { numRuns: 1500 },
    );
  });

  it('leaves Object.prototype untouched by __proto__ and constructor keys', () => {
    const payloads = [
      '{"__proto__": {"polluted": true}, "question": "x"}',
      '{"questions": [{"question": "x", "__proto__": {"polluted": true}}]}',
      '{"question": "x", "options": [{"title": "a", "__proto__": {"polluted": true}}]}',
      '{"question": "x", "constructor": {"prototype": {"polluted": true}}}',
      '{"questions": "[{\\"question\\": \\"x\\", \\"__proto__\\": {\\"polluted\\": true}}]"}',
    ];
    for (const payload of payloads) {
      try {
        normalizeAskUserRequest(prepareAskUserArguments(payload));
      } catch (error) {
        expectCleanError(error);
      }
      normalizeAskUserRequest(JSON.parse(payload));
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
  });

  it('reports an argument string nested thousands deep as bad input', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(() => prepareAskUserArguments(deep)).toThrow(/JSON string holding an array/);
    const deepObject = `{"question":"x","options":${'['.repeat(50_000)}${']'.repeat(50_000)}}`;
    try {
      prepareAskUserArguments(deepObject);
      throw new Error('expected a refusal');
    } catch (error) {
      expectCleanError(error);
    }
  });

  it('survives a Proxy whose traps throw', () => {
    const trap = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('trap');
        },
      },
    );
    const result = normalizeAskUserRequest(trap);
    expect(result.ok).toBe(false);
    expect(() => prepareAskUserArguments(trap)).toThrow(/could not be read: trap/);
    expect(() => prepareAskUserArguments({ question: 'x', options: [trap] })).toThrow(
      /could not be read: trap/,
    );
  });
});
