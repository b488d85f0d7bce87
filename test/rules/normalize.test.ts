import { describe, expect, it } from 'vitest';
import {
  AskUserQuestionEntrySchema,
  AskUserToolInputSchema,
} from '../../src/contracts/tool-input.js';
import { MAX_FORM_HINT_BYTES, MAX_MULTI_SELECT_OPTIONS } from '../../src/rules/limits.js';
import {
  isNormalizedAskRequest,
  type NormalizedAskRequest,
  normalizeAskUserRequest,
} from '../../src/rules/normalize.js';
import { prepareAskUserArguments } from '../../src/tool/prepare-arguments.js';

function ok(input: unknown, options?: { allowIds?: boolean }): NormalizedAskRequest {
  const result = normalizeAskUserRequest(input, options);
  if (!result.ok) throw new Error(`expected ok, got ${result.error.code}: ${result.error.message}`);
  return result.value;
}

function fail(input: unknown, options?: { allowIds?: boolean }): { code: string; message: string } {
  const result = normalizeAskUserRequest(input, options);
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.value)}`);
  expect(result.error).toBeInstanceOf(Error);
  return { code: result.error.code, message: result.error.message };
}

describe('normalizeAskUserRequest', () => {
  describe('one question', () => {
    it('normalizes a top-level question with ids, header default and trimmed texts', () => {
      expect(
        ok({
          question: '  Which database?  ',
          context: ' We need transactions. ',
          options: [' Postgres ', { label: 'SQLite', description: ' a file ' }],
        }),
      ).toEqual({
        questions: [
          {
            id: 'q1',
            question: 'Which database?',
            header: 'Q1',
            context: 'We need transactions.',
            options: [{ title: 'Postgres' }, { title: 'SQLite', description: 'a file' }],
            allowMultiple: false,
            allowFreeform: false,
            allowComment: false,
          },
        ],
      });
    });

    it('keeps an explicit header and the three flags', () => {
      const [question] = ok({
        question: 'Pick',
        header: ' Stack ',
        options: ['a', 'b'],
        allowMultiple: true,
        allowFreeform: true,
        allowComment: true,
      }).questions;
      expect(question).toMatchObject({
        header: 'Stack',
        allowMultiple: true,
        allowFreeform: true,
        allowComment: true,
      });
    });

    it('forces a typed answer when there are no options, and turns off multiple and comment', () => {
      const [question] = ok({
        question: 'Name the branch',
        allowFreeform: false,
        allowMultiple: true,
        allowComment: true,
      }).questions;
      expect(question).toMatchObject({
        options: [],
        allowFreeform: true,
        allowMultiple: false,
        allowComment: false,
      });
    });

    it('treats an empty options array like no options', () => {
      expect(ok({ question: 'Why?', options: [] }).questions[0]?.allowFreeform).toBe(true);
    });

    it('defaults a blank header to Q<n> and leaves a blank context out', () => {
      const [question] = ok({ question: 'x', header: '  ', context: '\n' }).questions;
      expect(question?.header).toBe('Q1');
      expect(question).not.toHaveProperty('context');
    });

    it('carries hints, the timeout and the agent', () => {
      expect(
        ok(
          {
            question: 'x',
            displayMode: 'inline',
            singleSelectLayout: 'list',
            overlayToggleKey: 'ctrl+o',
            commentToggleKey: ' ',
            timeout: 1500,
            agent: ' planner ',
          },
          { allowIds: true },
        ),
      ).toMatchObject({
        agent: 'planner',
        hints: {
          displayMode: 'inline',
          singleSelectLayout: 'list',
          overlayToggleKey: 'ctrl+o',
          commentToggleKey: ' ',
        },
        timeoutMs: 1500,
      });
    });

    it('has no hints and no timeout when none are given', () => {
      const value = ok({ question: 'x' });
      expect(value).not.toHaveProperty('hints');
      expect(value).not.toHaveProperty('timeoutMs');
    });
  });

  describe('a wizard', () => {
    it('numbers entries q1..q4 and headers Q1..Q4 in order', () => {
      const value = ok({ questions: ['A?', 'B?', 'C?', 'D?'].map((question) => ({ question })) });
      expect(value.questions.map((q) => [q.id, q.header])).toEqual([
        ['q1', 'Q1'],
        ['q2', 'Q2'],
        ['q3', 'Q3'],
        ['q4', 'Q4'],
      ]);
    });

    it('uses top-level fields as defaults that an entry overrides', () => {
      const value = ok({
        options: ['Yes', 'No'],
        allowComment: true,
        context: 'shared',
        questions: [
          { question: 'A?' },
          { question: 'B?', options: ['Later'], allowComment: false },
        ],
      });
      expect(value.questions[0]).toMatchObject({
        options: [{ title: 'Yes' }, { title: 'No' }],
        allowComment: true,
        context: 'shared',
      });
      expect(value.questions[1]).toMatchObject({
        options: [{ title: 'Later' }],
        allowComment: false,
        context: 'shared',
      });
    });

    it('gives each question its own option objects', () => {
      const value = ok({ options: ['Yes'], questions: [{ question: 'A?' }, { question: 'B?' }] });
      expect(value.questions[0]?.options[0]).not.toBe(value.questions[1]?.options[0]);
    });
  });

  describe('question counts', () => {
    it('refuses a request with no question as EMPTY_QUESTIONS', () => {
      expect(fail({}).code).toBe('EMPTY_QUESTIONS');
      expect(fail({ header: 'x' }).code).toBe('EMPTY_QUESTIONS');
      expect(fail({ questions: [] }).code).toBe('EMPTY_QUESTIONS');
    });

    it('refuses more than four questions as TOO_MANY_QUESTIONS', () => {
      const questions = ['a', 'b', 'c', 'd', 'e'].map((question) => ({ question }));
      expect(fail({ questions })).toEqual({
        code: 'TOO_MANY_QUESTIONS',
        message: expect.stringContaining('5 entries; at most 4'),
      });
    });

    it('refuses both question and questions', () => {
      expect(fail({ question: 'a', questions: [{ question: 'b' }] })).toEqual({
        code: 'INVALID_REQUEST',
        message: expect.stringContaining('both "question" and "questions"'),
      });
    });
  });

  describe('wrong shapes', () => {
    it.each([
      ['null', null],
      ['a string', 'Which?'],
      ['an array', [{ question: 'x' }]],
      ['a number', 4],
    ])('refuses %s as the request', (_name, input) => {
      expect(fail(input).code).toBe('INVALID_REQUEST');
    });

    it('names an unknown top-level field, with a hint for a likely misspelling', () => {
      expect(fail({ question: 'x', multiSelect: true }).message).toMatch(
        /unknown field "multiSelect" \(did you mean "allowMultiple"\?\)/,
      );
      expect(fail({ question: 'x', choices: ['a'] }).message).toMatch(/did you mean "options"/);
    });

    it('names an unknown field of a wizard entry', () => {
      expect(fail({ questions: [{ question: 'x' }, { question: 'y', foo: 1 }] }).message).toMatch(
        /Question 2 has unknown field "foo"/,
      );
    });

    it('refuses a non-object wizard entry, naming it', () => {
      expect(fail({ questions: [{ question: 'x' }, 'y'] }).message).toMatch(
        /Question 2 must be an object/,
      );
    });

    it('refuses questions that are not an array', () => {
      expect(fail({ questions: { question: 'x' } }).message).toMatch(
        /"questions" must be an array/,
      );
    });

    it('refuses an empty or missing question text', () => {
      expect(fail({ question: '   ' }).message).toMatch(/Question 1 has an empty "question"/);
      expect(fail({ questions: [{ header: 'x' }] }).message).toMatch(
        /Question 1 needs a "question" string, got undefined/,
      );
      expect(fail({ question: 7 }).message).toMatch(/got 7/);
    });

    it('refuses flags that are not booleans, naming the flag and the value', () => {
      expect(fail({ question: 'x', options: ['a'], allowMultiple: 'true' }).message).toMatch(
        /Question 1 has "allowMultiple" "true"; it must be true or false/,
      );
    });

    it('refuses non-string header and context', () => {
      expect(fail({ question: 'x', header: 3 }).message).toMatch(/"header" 3/);
      expect(fail({ question: 'x', context: ['a'] }).message).toMatch(/"context" an array of 1/);
    });

    it('refuses bad hints', () => {
      expect(fail({ question: 'x', displayMode: 'popup' }).message).toMatch(
        /"displayMode" must be "overlay" or "inline", got "popup"/,
      );
      expect(fail({ question: 'x', singleSelectLayout: 'grid' }).code).toBe('INVALID_REQUEST');
      expect(fail({ question: 'x', overlayToggleKey: '' }).code).toBe('INVALID_REQUEST');
      expect(fail({ question: 'x', commentToggleKey: 5 }).code).toBe('INVALID_REQUEST');
      expect(fail({ question: 'x', agent: '' }, { allowIds: true }).code).toBe('INVALID_REQUEST');
    });

    it.each([0, -5, Number.NaN, Number.POSITIVE_INFINITY, '100', null, 5e-324, 999])(
      'refuses timeout %s',
      (timeout) => {
        expect(fail({ question: 'x', timeout }).message).toMatch(
          /"timeout" must be a number of milliseconds, at least 1000 \(1 second\), got /,
        );
      },
    );

    it('tells a model that sent seconds what to send in milliseconds', () => {
      expect(fail({ question: 'x', timeout: 30 }).message).toBe(
        '"timeout" must be a number of milliseconds, at least 1000 (1 second), got 30. Timeouts are in milliseconds: for 30 seconds send 30000.',
      );
    });

    it('accepts the minimum timeout of one second', () => {
      expect(ok({ question: 'x', timeout: 1000 }).timeoutMs).toBe(1000);
    });
  });

  describe('options', () => {
    it('names an unusable option by its position and its question', () => {
      expect(fail({ question: 'x', options: ['a', null] })).toEqual({
        code: 'INVALID_REQUEST',
        message: expect.stringMatching(/^Option 2 of question 1 is unusable: .*got null/),
      });
      expect(
        fail({ questions: [{ question: 'x' }, { question: 'y', options: ['a', 'b', ''] }] })
          .message,
      ).toMatch(/^Option 3 of question 2 is unusable: .*empty/);
    });

    it('says when an unusable option came from the top-level defaults', () => {
      expect(fail({ options: [{}], questions: [{ question: 'x' }] }).message).toMatch(
        /^Option 1 of question 1 \(from the top-level "options"\) is unusable/,
      );
    });

    it('refuses options that are not an array, never falling back to a typed answer', () => {
      expect(fail({ question: 'x', options: 'a, b' }).message).toMatch(
        /Question 1 has "options" "a, b"; options are an array/,
      );
    });

    it('refuses duplicate option titles compared ignoring case and surrounding space', () => {
      expect(fail({ question: 'x', options: ['Yes', 'No', ' yes '] }).message).toMatch(
        /Options 1 and 3 of question 1 have titles that look the same \("Yes" and "yes"/,
      );
    });

    it('refuses duplicate question texts', () => {
      expect(
        fail({ questions: [{ question: 'Deploy?' }, { question: ' deploy? ' }] }).message,
      ).toMatch(/Questions 1 and 2 ask the same thing/);
    });
  });

  describe('limits', () => {
    const titles = (count: number) => Array.from({ length: count }, (_, i) => `Option ${i + 1}`);

    it('accepts a multi-select question with 64 options', () => {
      const value = ok({
        question: 'x',
        options: titles(MAX_MULTI_SELECT_OPTIONS),
        allowMultiple: true,
      });
      expect(value.questions[0]?.options).toHaveLength(64);
    });

    it('refuses a multi-select question with 65 options as LIMIT_EXCEEDED', () => {
      expect(fail({ question: 'x', options: titles(65), allowMultiple: true })).toEqual({
        code: 'LIMIT_EXCEEDED',
        message: expect.stringContaining('65 options; a multi-select question has at most 64'),
      });
    });

    it('accepts 65 options on a single-select question', () => {
      expect(ok({ question: 'x', options: titles(65) }).questions[0]?.options).toHaveLength(65);
    });

    it('refuses questions too large for the form hint, never shortening them', () => {
      const context = 'x'.repeat(MAX_FORM_HINT_BYTES);
      expect(fail({ question: 'Review', context }).code).toBe('LIMIT_EXCEEDED');
    });

    it('counts JSON escaping: control characters take six bytes each', () => {
      const context = '\u0001'.repeat(Math.ceil(MAX_FORM_HINT_BYTES / 6) + 10);
      expect(fail({ question: 'Review', context }).code).toBe('LIMIT_EXCEEDED');
    });

    it('keeps long text that fits in full', () => {
      const context = 'y'.repeat(100_000);
      expect(ok({ question: 'Review', context }).questions[0]?.context).toBe(context);
    });
  });

  describe('ids', () => {
    it('refuses an agent name on the tool path: the host names the agent, not the model', () => {
      expect(fail({ question: 'x', agent: 'root' }).message).toMatch(/field "agent"; leave it out/);
    });

    it('refuses caller ids on the tool path', () => {
      expect(fail({ questions: [{ id: 'db', question: 'x' }] }).message).toMatch(
        /Question 1 has field "id"; leave it out/,
      );
    });

    it('keeps caller-chosen ids on the service path and numbers the rest', () => {
      const value = ok(
        { questions: [{ id: 'db', question: 'x' }, { question: 'y' }] },
        { allowIds: true },
      );
      expect(value.questions.map((q) => q.id)).toEqual(['db', 'q2']);
    });

    it('refuses empty and duplicate caller ids', () => {
      expect(fail({ questions: [{ id: '', question: 'x' }] }, { allowIds: true }).message).toMatch(
        /"id" ""; an id must be a non-empty string/,
      );
      expect(
        fail(
          {
            questions: [
              { id: 'a', question: 'x' },
              { id: 'a', question: 'y' },
            ],
          },
          { allowIds: true },
        ).message,
      ).toMatch(/Questions 1 and 2 have the same id "a"/);
    });
  });

  describe('plan-review intent', () => {
    const plan = {
      question: 'Approve the plan?',
      context: '1. migrate\n2. deploy',
      options: ['Approve', 'Revise'],
    };

    it('stores approve in the option’s own spelling', () => {
      const [question] = ok({
        ...plan,
        intent: { kind: 'plan-review', approve: ' approve ' },
      }).questions;
      expect(question?.intent).toEqual({ kind: 'plan-review', approve: 'Approve' });
    });

    it('refuses approve that names no option of the question as BAD_INTENT', () => {
      expect(fail({ ...plan, intent: { kind: 'plan-review', approve: 'Ship' } })).toEqual({
        code: 'BAD_INTENT',
        message: expect.stringContaining('"Ship" is not one of its options ("Approve", "Revise")'),
      });
    });

    it('refuses a plan review without context as BAD_INTENT', () => {
      const { context: _context, ...noContext } = plan;
      expect(fail({ ...noContext, intent: { kind: 'plan-review', approve: 'Approve' } }).code).toBe(
        'BAD_INTENT',
      );
      expect(
        fail({ ...plan, context: '  ', intent: { kind: 'plan-review', approve: 'Approve' } }).code,
      ).toBe('BAD_INTENT');
    });

    it('refuses an unknown intent kind and a missing approve as BAD_INTENT', () => {
      expect(fail({ ...plan, intent: { kind: 'vote', approve: 'Approve' } }).code).toBe(
        'BAD_INTENT',
      );
      expect(fail({ ...plan, intent: { kind: 'plan-review' } }).code).toBe('BAD_INTENT');
    });

    it('checks an inherited intent against each question’s own options', () => {
      expect(
        fail({
          context: 'plan',
          intent: { kind: 'plan-review', approve: 'Yes' },
          questions: [
            { question: 'A?', options: ['Yes', 'No'] },
            { question: 'B?', options: ['Ok'] },
          ],
        }).message,
      ).toMatch(/^Question 2 is a plan review/);
    });
  });

  describe('hostile input', () => {
    it('reports a throwing getter as INVALID_REQUEST instead of throwing', () => {
      const input = {
        get question(): string {
          throw new Error('boom');
        },
      };
      expect(fail(input)).toEqual({
        code: 'INVALID_REQUEST',
        message: expect.stringContaining('could not be read: boom'),
      });
    });

    it('ignores inherited fields and rejects an own __proto__ key', () => {
      expect(fail(Object.create({ question: 'inherited' })).code).toBe('EMPTY_QUESTIONS');
      expect(
        fail(JSON.parse('{"question":"x","__proto__":{"allowMultiple":true}}')).message,
      ).toMatch(/unknown field "__proto__"/);
    });

    it('does not change the input', () => {
      const input = { question: ' x ', options: [' a ', { label: 'b' }] };
      const copy = structuredClone(input);
      ok(input);
      expect(input).toEqual(copy);
    });
  });
});

describe('caller-chosen ids at the top level (service path)', () => {
  it('names the one question with the id the caller chose', () => {
    const result = normalizeAskUserRequest(
      { id: 'deploy', question: 'Deploy?' },
      { allowIds: true },
    );
    expect(result.ok && result.value.questions[0]?.id).toBe('deploy');
  });

  it('refuses a top-level id next to questions, and any id from the tool', () => {
    const wizard = normalizeAskUserRequest(
      { id: 'x', questions: [{ question: 'A?' }, { question: 'B?' }] },
      { allowIds: true },
    );
    expect(!wizard.ok && wizard.error.message).toMatch(/own "id"/);
    const tool = normalizeAskUserRequest({ id: 'x', question: 'A?' });
    expect(!tool.ok && tool.error.code).toBe('INVALID_REQUEST');
  });
});

describe('a request normalized once', () => {
  it('is taken as it is when normalized again, and recognised as normalized', () => {
    const first = ok({ question: 'Deploy?', options: ['Yes', 'No'], timeout: 60_000 });
    expect(isNormalizedAskRequest(first)).toBe(true);
    const again = normalizeAskUserRequest(first, { allowIds: true });
    expect(again.ok && again.value).toBe(first);
  });

  it('is not recognised from its shape alone', () => {
    const first = ok({ question: 'Deploy?', options: ['Yes', 'No'] });
    const lookAlike = JSON.parse(JSON.stringify(first));
    expect(isNormalizedAskRequest(lookAlike)).toBe(false);
    expect(isNormalizedAskRequest(null)).toBe(false);
    expect(isNormalizedAskRequest('Deploy?')).toBe(false);
  });

  it('gets the host’s agent name on a copy', () => {
    const first = ok({ question: 'Deploy?' });
    const named = normalizeAskUserRequest(first, { agent: ' planner ' });
    expect(named.ok && named.value).toEqual({ ...first, agent: 'planner' });
    expect(named.ok && isNormalizedAskRequest(named.value)).toBe(true);
    expect(first).not.toHaveProperty('agent');
  });
});

describe('field lists come from the schemas', () => {
  it('accepts every field of the tool input schema, and lists exactly those when refusing one', () => {
    const fields = Object.keys(AskUserToolInputSchema.properties);
    const message = fail({ question: 'x', colour: 'red' }).message;
    expect(message).toContain(`allowed: ${fields.join(', ')}.`);
    const entryFields = Object.keys(AskUserQuestionEntrySchema.properties);
    expect(fail({ questions: [{ question: 'x', colour: 'red' }] }).message).toContain(
      `allowed: ${entryFields.join(', ')}.`,
    );
  });

  it('lets a model send null for every field of the schema, meaning "not given"', () => {
    const nulls = Object.fromEntries(
      Object.keys(AskUserToolInputSchema.properties)
        .filter((field) => field !== 'question')
        .map((field) => [field, null]),
    );
    expect(prepareAskUserArguments({ question: 'x', ...nulls })).toEqual({ question: 'x' });
  });
});
