/**
 * Quorum asks, the rules at their edges: `start`'s `quorum` option checked against the ask's
 * questions (once, where the ask is written), and the progress every surface shows (who has
 * responded, how many more are needed), read from the machine's context with the machine's own
 * counting. The machine decides; nothing here counts a second way.
 */
import {
  type AskMachineQuorum,
  type AskMachineQuorumResponse,
  largestAgreement,
} from '../../machines/ask.machine.js';
import type { AnsweredBy, AskOutcome } from '../contracts/outcome.js';
import type { AskUserQuestion } from '../contracts/question.js';
import { describe } from './describe.js';
import { UserInteractionError } from './errors.js';
import { MAX_QUORUM_PEOPLE } from './limits.js';
import { personKey, readPersonId, readPersonText } from './person-id.js';

/**
 * Several people decide one ask (`service.start(request, { quorum })`): `required` distinct
 * people must respond (M); only the recipient ids in `from` may respond when it is given;
 * `agree: 'same'` (the default) needs M responses with the same answers to every question,
 * `'any'` M responses of any kind; anyone picking a `veto` option title ends the ask at once.
 */
export interface QuorumOption {
  required: number;
  from?: readonly string[];
  agree?: 'same' | 'any';
  veto?: readonly string[];
}

/** Where a quorum ask stands: its rule, who has responded (names only), how many more are needed. */
export interface QuorumProgress {
  required: number;
  agree: 'same' | 'any';
  from?: readonly string[];
  veto?: readonly string[];
  /** The recipient ids that have responded, in order. */
  responded: readonly string[];
  /**
   * How many more responses the quorum needs at the least (with `agree: 'same'`, counted from
   * the largest group that agrees so far); 0 once it is reached.
   */
  needed: number;
}

const KEYS: ReadonlySet<string> = new Set(['required', 'from', 'agree', 'veto']);

/**
 * Checks `start`'s `quorum` option against the ask's questions and returns the machine's rule
 * (a plain copy, `agree` filled in). Throws `INVALID_REQUEST` naming the field at fault: a
 * `required` that is not a whole number from 1 to the people in `from`, a `from` with a repeated
 * or malformed id, a `veto` title that no option of the questions has.
 */
export function readQuorumOption(
  value: unknown,
  questions: readonly AskUserQuestion[],
): AskMachineQuorum {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw refusal(
      'quorum',
      `Expected ask option \`quorum\` to be an object { required, from?, agree?, veto? }, got ${describe(value)}.`,
    );
  }
  for (const key of Object.keys(value)) {
    if (!KEYS.has(key)) {
      throw refusal(
        `quorum.${key}`,
        `Ask option \`quorum\` has the field ${JSON.stringify(key)}, which it does not take; it takes required, from, agree and veto.`,
      );
    }
  }
  const { required, from, agree, veto } = value as Record<string, unknown>;
  const rule: AskMachineQuorum = { required: 0, agree: 'same' };
  if (from !== undefined)
    rule.from = readNames(from, 'quorum.from', 'recipient ids', readPersonId, personKey);
  const most = rule.from?.length ?? MAX_QUORUM_PEOPLE;
  if (typeof required !== 'number' || !Number.isInteger(required) || required < 1) {
    throw refusal(
      'quorum.required',
      `Expected \`quorum.required\` to be a whole number of people from 1, got ${describe(required)}.`,
    );
  }
  if (required > most) {
    throw refusal(
      'quorum.required',
      rule.from === undefined
        ? `\`quorum.required\` is ${required}, more than the ${MAX_QUORUM_PEOPLE} people a quorum may need.`
        : `\`quorum.required\` is ${required}, but \`quorum.from\` names only ${most} ${most === 1 ? 'person' : 'people'}: the quorum could never be reached.`,
    );
  }
  rule.required = required;
  if (agree !== undefined) {
    if (agree !== 'same' && agree !== 'any') {
      throw refusal(
        'quorum.agree',
        `Expected \`quorum.agree\` to be "same" or "any", got ${describe(agree)}.`,
      );
    }
    rule.agree = agree;
  }
  if (veto !== undefined) {
    const titles = readNames(
      veto,
      'quorum.veto',
      'option titles',
      readPersonText,
      (title) => title,
    );
    for (const title of titles) {
      if (!questions.some((question) => question.options.some((o) => o.title === title))) {
        throw refusal(
          'quorum.veto',
          `\`quorum.veto\` names ${JSON.stringify(title)}, which is not the title of any option of the questions; a veto is an option the person can pick.`,
        );
      }
    }
    rule.veto = titles;
  }
  return rule;
}

/** A quorum ask's progress from its rule and responses (the machine's context). */
export function quorumProgress(
  rule: AskMachineQuorum,
  responses: readonly AskMachineQuorumResponse[] | undefined,
): QuorumProgress {
  const all = (responses ?? []) as AskMachineQuorumResponse[];
  const progress: QuorumProgress = {
    required: rule.required,
    agree: rule.agree,
    responded: all.map((response) => response.by),
    needed: Math.max(0, rule.required - largestAgreement(all, rule.agree)),
  };
  if (rule.from !== undefined) progress.from = rule.from;
  if (rule.veto !== undefined) progress.veto = rule.veto;
  return progress;
}

/**
 * Where a quorum ask stands, in plain sentences every surface shows the same way (names only,
 * never what anyone answered). Plain text: each surface escapes it as it shows text.
 *
 * @example
 * describeQuorum(progress);
 * // ['Needs 2 people of ana, ben, cy giving the same answer; picking Deny ends it at once.',
 * //  'Responded so far: ana. 1 more response needed.']
 */
export function describeQuorum(progress: QuorumProgress): [rule: string, standing: string] {
  const { required, agree, from, veto, responded, needed } = progress;
  const people = `${required} ${required === 1 ? 'person' : 'people'}`;
  const among = from === undefined ? '' : ` of ${from.join(', ')}`;
  const same = agree === 'same' && required > 1 ? ' giving the same answer' : '';
  const vetoes = veto === undefined ? '' : `; picking ${veto.join(' or ')} ends it at once`;
  const so =
    responded.length === 0
      ? 'No one has responded yet.'
      : `Responded so far: ${responded.join(', ')}.`;
  const more =
    needed === 0 ? '' : ` ${needed} more ${needed === 1 ? 'response' : 'responses'} needed.`;
  return [`Needs ${people}${among}${same}${vetoes}.`, `${so}${more}`];
}

/**
 * Who decided an ask, read from its outcome (names only, never what they answered): the person
 * who answered, whoever vetoed, the people whose responses made the quorum, or, for `no-quorum`,
 * those who responded without reaching it. `undefined` when no person decided (a timeout, a
 * cancel, an abort, an answer nobody was named for).
 */
export type DecidedBy =
  | { kind: 'answer'; answeredBy: AnsweredBy }
  | { kind: 'veto'; names: readonly [string] }
  | { kind: 'quorum' | 'no-quorum'; names: readonly string[] };

export function decidedBy(outcome: AskOutcome | undefined): DecidedBy | undefined {
  if (outcome?.status === 'cancelled' && outcome.reason === 'no-quorum') {
    return { kind: 'no-quorum', names: responders(outcome.responses) };
  }
  if (outcome?.status !== 'answered') return undefined;
  if (outcome.vetoedBy !== undefined) return { kind: 'veto', names: [outcome.vetoedBy] };
  if (outcome.responses !== undefined) {
    return { kind: 'quorum', names: responders(outcome.responses) };
  }
  return outcome.answeredBy === undefined
    ? undefined
    : { kind: 'answer', answeredBy: outcome.answeredBy };
}

function responders(responses: readonly { by: string }[] | undefined): string[] {
  return (responses ?? []).map((response) => response.by);
}

/**
 * `read` checks each entry, kept as given; two entries with one `key` are a repeat (`personKey`
 * for ids, so two spellings of one id are).
 */
function readNames(
  value: unknown,
  field: string,
  what: string,
  read: (value: unknown, field: string) => string,
  key: (name: string) => string,
): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw refusal(
      field,
      `Expected \`${field}\` to be a non-empty array of ${what}, got ${describe(value)}.`,
    );
  }
  if (value.length > MAX_QUORUM_PEOPLE) {
    throw refusal(
      field,
      `\`${field}\` has ${value.length} entries, more than the ${MAX_QUORUM_PEOPLE} allowed; it is refused, not shortened.`,
    );
  }
  const names = value.map((name, index) => read(name, `${field}[${index}]`));
  const seen = new Map<string, string>();
  for (const name of names) {
    const first = seen.get(key(name));
    if (first !== undefined) {
      throw refusal(
        field,
        first === name
          ? `\`${field}\` names ${JSON.stringify(name)} twice; each entry counts once.`
          : `\`${field}\` names one person twice, as ${JSON.stringify(first)} and ${JSON.stringify(name)} (ids that differ only in case, composition or look-alike letters are one id); each entry counts once.`,
      );
    }
    seen.set(key(name), name);
  }
  return names;
}

function refusal(field: string, message: string): UserInteractionError {
  return new UserInteractionError('INVALID_REQUEST', message, { option: 'quorum', field });
}
