/** Reading a provider's outcome once, defensively, with compiled checks. */
import {
  type AskUserQuestion,
  buildAskUserForm,
  decodeAskUserFormAnswer,
  encodeAskUserFormAnswer,
} from 'ask-engine/data';
import { describe, expect, it } from 'vitest';
import { readProviderOutcome } from '../../src/rules/provider-outcome.js';

const questions: AskUserQuestion[] = [
  {
    id: 'q1',
    question: 'Which database?',
    header: 'DB',
    options: [{ title: 'Postgres' }, { title: 'Cafe\u0301' }],
    allowMultiple: false,
    allowFreeform: true,
    allowComment: true,
  },
];

describe('readProviderOutcome', () => {
  it('returns an answer validated against the questions, spelled as the options', () => {
    expect(
      readProviderOutcome(questions, {
        status: 'answered',
        answers: [{ questionId: 'q1', response: { kind: 'selection', selections: ['café'] } }],
      }),
    ).toEqual({
      ok: true,
      outcome: {
        status: 'answered',
        answers: [
          { questionId: 'q1', response: { kind: 'selection', selections: ['Cafe\u0301'] } },
        ],
      },
    });
  });

  it('passes cancellations and deferrals through, dropping properties left undefined', () => {
    expect(readProviderOutcome(questions, { status: 'cancelled', reason: 'user' })).toEqual({
      ok: true,
      outcome: { status: 'cancelled', reason: 'user' },
    });
    expect(
      readProviderOutcome(questions, {
        status: 'deferred',
        interactionId: 'chat-42',
        message: undefined,
      }),
    ).toEqual({ ok: true, outcome: { status: 'deferred', interactionId: 'chat-42' } });
  });

  it.each<[string, unknown, RegExp]>([
    ['not an object', 'answered', /resolved with "answered"; expected an outcome/],
    ['an unknown status', { status: 'done' }, /returned status "done"; expected "answered"/],
    ['a bad cancel reason', { status: 'cancelled', reason: 'bored' }, /reason "bored"/],
    [
      'a blank interaction id',
      { status: 'deferred', interactionId: '  ' },
      /without an interaction id/,
    ],
    [
      'a message that is not text',
      { status: 'cancelled', reason: 'user', message: 5 },
      /not valid: \/message: Expected string/,
    ],
    ['an extra property', { status: 'cancelled', reason: 'user', mood: 'sad' }, /not valid/],
    [
      'an answer to an unknown question',
      { status: 'answered', answers: [{ questionId: 'q9', response: null }] },
      /unknown question "q9"/,
    ],
    [
      'answers nested past any valid depth',
      {
        status: 'answered',
        answers: [{ questionId: 'q1', response: { kind: 'selection', selections: [[[['x']]]] } }],
      },
      /Question "q1"/,
    ],
  ])('refuses %s as invalid-answer', (_what, result, message) => {
    const read = readProviderOutcome(questions, result);
    expect(read).toEqual({ ok: false, reason: 'invalid-answer', message: expect.any(String) });
    expect(!read.ok && read.message).toMatch(message);
  });

  it('turns a throwing getter into provider-error, reading each property once', () => {
    let reads = 0;
    const result = {
      status: 'answered',
      get answers() {
        reads++;
        throw new Error('lazy answers exploded');
      },
    };
    expect(readProviderOutcome(questions, result)).toEqual({
      ok: false,
      reason: 'provider-error',
      message: "The provider's outcome could not be read: lazy answers exploded.",
    });
    expect(reads).toBe(1);
  });

  it('reads a getter-backed outcome once and validates what it read', () => {
    let reads = 0;
    const result = {
      get status() {
        reads++;
        // A provider that answers differently on each read cannot slip an answer past the check.
        return reads === 1 ? 'cancelled' : 'answered';
      },
      reason: 'user',
    };
    expect(readProviderOutcome(questions, result)).toEqual({
      ok: true,
      outcome: { status: 'cancelled', reason: 'user' },
    });
    expect(reads).toBe(1);
  });

  it('turns Proxy traps that throw, and a revoked Proxy, into provider-error', () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('no keys for you');
        },
      },
    );
    expect(readProviderOutcome(questions, hostile)).toMatchObject({
      ok: false,
      reason: 'provider-error',
      message: expect.stringContaining('no keys for you'),
    });
    const { proxy, revoke } = Proxy.revocable({ status: 'answered' }, {});
    revoke();
    expect(readProviderOutcome(questions, proxy)).toMatchObject({
      ok: false,
      reason: 'provider-error',
    });
  });

  it('refuses an array claiming a hostile length without walking it', () => {
    const answers = new Proxy([], {
      get: (target, key) => (key === 'length' ? 2 ** 31 : Reflect.get(target, key)),
    });
    expect(readProviderOutcome(questions, { status: 'answered', answers })).toMatchObject({
      ok: false,
      reason: 'invalid-answer',
      message: expect.stringMatching(/array of 2147483648 entries/),
    });
  });

  it('takes the form codec’s answers for these questions as they are, without validating again', () => {
    const form = buildAskUserForm(questions);
    const decoded = decodeAskUserFormAnswer(
      questions,
      encodeAskUserFormAnswer(form, [
        { questionId: 'q1', response: { kind: 'freeform', text: 'DuckDB' } },
      ]),
    );
    expect(Object.isFrozen(decoded)).toBe(true);
    const read = readProviderOutcome(questions, { status: 'answered', answers: decoded });
    expect(read.ok && read.outcome.status === 'answered' && read.outcome.answers).toBe(decoded);
    // For other questions, the same answers are validated like any others.
    const other = [{ ...questions[0]!, allowFreeform: false }];
    expect(readProviderOutcome(other, { status: 'answered', answers: decoded })).toMatchObject({
      ok: false,
      reason: 'invalid-answer',
      message: expect.stringMatching(/does not allow a typed answer/),
    });
  });

  it('keeps what the person typed or picked out of its messages when asked to', () => {
    const secret = 'my-ssn-078-05-1120';
    const read = readProviderOutcome(
      questions,
      {
        status: 'answered',
        answers: [{ questionId: 'q1', response: { kind: 'selection', selections: [secret] } }],
      },
      { quoteInput: false },
    );
    expect(read).toMatchObject({ ok: false, reason: 'invalid-answer' });
    expect(!read.ok && read.message).toMatch(
      /^Question "q1" has a selection \(a string of 18 characters\), which is not one of its option titles/,
    );
    expect(!read.ok && read.message).not.toContain(secret);
  });
});
