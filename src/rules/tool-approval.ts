/**
 * The rules of a tool-approval question: what its intent must hold, what an edited input must
 * be, and what an edit changed. The normalizer, the check of normalized questions, the answer
 * validator and the engine each apply them from here.
 */
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { ToolInputEdit } from '../contracts/outcome.js';
import type {
  AskUserOption,
  AskUserQuestion,
  AskUserToolApprovalIntent,
} from '../contracts/question.js';
import { callDigest, canonicalJson } from './call-digest.js';
import { describe } from './describe.js';
import { UserInteractionError } from './errors.js';
import { firstSchemaProblem, kindOf } from './json-schema-check.js';
import { unsupportedSchemaKeyword } from './json-schema-keywords.js';
import { MAX_ANSWER_BYTES, utf8ByteLength } from './limits.js';
import { titleKey } from './question-rules.js';
import { checkStoreText } from './store-text.js';

/** The fields of a tool-approval intent, as `askToolApproval` (or a caller) writes them. */
const INTENT_FIELDS = new Set([
  'kind',
  'approve',
  'reject',
  'toolName',
  'toolCallId',
  'approvalId',
  'input',
  'inputSchema',
  'allowEdits',
]);

/** How deep a tool input may nest; deeper is refused (a form could not show it anyway). */
const MAX_INPUT_DEPTH = 32;

/**
 * The checked tool-approval intent of question `n` (options already normalized): the approve
 * and reject titles name two of its options, the ids are text a store keeps, the input is JSON,
 * and edits are allowed only with an input schema whose every keyword can be checked. Throws
 * `BAD_INTENT` naming the field and the fix.
 */
export function resolveToolApproval(
  n: number,
  input: Record<string, unknown>,
  question: Pick<AskUserQuestion, 'options' | 'allowMultiple' | 'allowFreeform'>,
): AskUserToolApprovalIntent {
  const where = `Question ${n} is a tool approval whose`;
  for (const key of Object.keys(input)) {
    if (!INTENT_FIELDS.has(key)) {
      throw bad(
        `${where} intent has unknown field ${JSON.stringify(key)}; its fields are ${[...INTENT_FIELDS].join(', ')}.`,
      );
    }
  }
  const text = (field: string, required: boolean): string | undefined => {
    const value = input[field];
    if (value === undefined && !required) return undefined;
    if (typeof value !== 'string' || value.trim() === '') {
      throw bad(`${where} "${field}" is ${describe(value)}; it must be a non-empty string.`);
    }
    checkStoreText(value, `intent.${field}`);
    return value;
  };
  const toolName = text('toolName', true)!;
  const toolCallId = text('toolCallId', true)!;
  const approvalId = text('approvalId', false);
  const approve = optionTitle(where, 'approve', input.approve, question.options);
  const reject = optionTitle(where, 'reject', input.reject, question.options);
  if (approve === reject) {
    throw bad(`${where} "approve" and "reject" name the same option; name two options.`);
  }
  if (question.allowMultiple || question.allowFreeform) {
    throw bad(
      `${where} question allows ${question.allowMultiple ? 'several selections' : 'a typed answer'}; an approval is one pick of approve or reject.`,
    );
  }
  if (!Object.hasOwn(input, 'input')) {
    throw bad(`${where} intent has no "input"; give the proposed arguments (JSON).`);
  }
  const jsonProblem = notJson(input.input, '', 0);
  if (jsonProblem !== undefined) {
    throw bad(`${where} "input" is not JSON: ${jsonProblem}.`);
  }
  const { inputSchema } = input;
  if (inputSchema !== undefined) {
    const unsupported = unsupportedSchemaKeyword(inputSchema);
    if (unsupported !== undefined) {
      throw bad(
        `${where} "inputSchema" cannot be checked: ${unsupported}. Edits are checked against the schema before they count, so give a schema of the keywords it checks, or leave "inputSchema" out to offer approve and reject only.`,
      );
    }
  }
  const allowEdits = input.allowEdits ?? inputSchema !== undefined;
  if (typeof allowEdits !== 'boolean') {
    throw bad(`${where} "allowEdits" is ${describe(allowEdits)}; it must be a boolean.`);
  }
  if (allowEdits && inputSchema === undefined) {
    throw bad(
      `${where} "allowEdits" is true without "inputSchema"; an edit is checked against the tool's input schema, so give it.`,
    );
  }
  const intent: AskUserToolApprovalIntent = {
    kind: 'tool-approval',
    approve,
    reject,
    toolName,
    toolCallId,
    input: input.input,
    allowEdits,
  };
  if (approvalId !== undefined) intent.approvalId = approvalId;
  if (inputSchema !== undefined) intent.inputSchema = inputSchema;
  return intent;
}

/**
 * An edited input given with a pick of `question`: allowed only with the approving option of a
 * tool approval that allows edits, and only as JSON that conforms to the tool's input schema.
 * Returns it with its keys sorted (one spelling); throws `INVALID_ANSWER` (part `input`), or
 * `LIMIT_EXCEEDED` past `MAX_ANSWER_BYTES`, never quoting the input itself.
 */
export function checkEditedInput(
  question: AskUserQuestion,
  selections: readonly string[],
  input: unknown,
): unknown {
  const where = `Question "${question.id}"`;
  const fail = (message: string, path?: string, problem?: string) =>
    new UserInteractionError('INVALID_ANSWER', message, {
      questionId: question.id,
      part: 'input',
      ...(path === undefined ? {} : { path }),
      ...(problem === undefined ? {} : { problem }),
    });
  const intent = question.intent;
  if (intent?.kind !== 'tool-approval') {
    throw fail(`${where} is not a tool approval; an edited input goes only with one.`);
  }
  if (!intent.allowEdits) {
    throw fail(`${where} does not allow edits; approve or reject the input as proposed.`);
  }
  if (selections.length !== 1 || selections[0] !== intent.approve) {
    throw fail(
      `${where} has an edited input with another pick than ${describe(intent.approve)}; an edit goes only with the approval.`,
    );
  }
  const jsonProblem = notJson(input, '', 0);
  if (jsonProblem !== undefined)
    throw fail(`${where} has an edited input that is not JSON: ${jsonProblem}.`);
  const json = canonicalJson(input);
  const bytes = utf8ByteLength(json);
  if (bytes > MAX_ANSWER_BYTES) {
    throw new UserInteractionError(
      'LIMIT_EXCEEDED',
      `${where} has an edited input of ${bytes} bytes of UTF-8 as JSON; the limit is ${MAX_ANSWER_BYTES} bytes. It is refused, not shortened.`,
      { limit: MAX_ANSWER_BYTES, actual: bytes, questionId: question.id, part: 'input' },
    );
  }
  const problem = firstSchemaProblem(intent.inputSchema, input);
  if (problem !== undefined) {
    throw fail(
      `${where} has an edited input the tool ${JSON.stringify(intent.toolName)} does not accept: at ${problem.path}, ${problem.message}. Correct the field, or approve the input as proposed.`,
      problem.path,
      `at ${problem.path}, ${problem.message}`,
    );
  }
  return JSON.parse(json);
}

/** `sha256:<base64url>` over the tool name and the canonical JSON of the input. */
export function inputDigest(toolName: string, input: unknown): string {
  return `sha256:${callDigest(toolName, input)}`;
}

/**
 * What the approval in `answers` changed, when a tool-approval question among `questions` was
 * approved with an input other than the proposed one: both digests and the changed top-level
 * fields. `undefined` when nothing was edited (an input equal to the proposed one is no edit).
 */
export function toolInputEdit(
  questions: readonly AskUserQuestion[],
  answers: readonly AskUserQuestionAnswer[],
): ToolInputEdit | undefined {
  for (const answer of answers) {
    const response = answer.response;
    if (response?.kind !== 'selection' || response.input === undefined) continue;
    const question = questions.find((candidate) => candidate.id === answer.questionId);
    if (question?.intent?.kind !== 'tool-approval') continue;
    const { toolName, input } = question.intent;
    const from = inputDigest(toolName, input);
    const to = inputDigest(toolName, response.input);
    if (from === to) return undefined;
    return { from, to, fields: changedFields(input, response.input) };
  }
  return undefined;
}

/** The top-level fields whose values differ (present in one only, or unequal as JSON), sorted. */
export function changedFields(before: unknown, after: unknown): string[] {
  if (!isRecord(before) || !isRecord(after)) return [];
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names]
    .filter(
      (name) =>
        Object.hasOwn(before, name) !== Object.hasOwn(after, name) ||
        canonicalJson(before[name]) !== canonicalJson(after[name]),
    )
    .sort();
}

function optionTitle(
  where: string,
  field: 'approve' | 'reject',
  value: unknown,
  options: readonly AskUserOption[],
): string {
  const wanted = typeof value === 'string' ? titleKey(value.trim()) : undefined;
  const match = options.find((option) => titleKey(option.title) === wanted);
  if (match === undefined) {
    throw bad(
      `${where} "${field}" ${describe(value)} is not one of its options (${options.length === 0 ? 'it has none' : options.map((option) => describe(option.title)).join(', ')}); name the option's title.`,
    );
  }
  return match.title;
}

/** Why a value is not plain JSON (where, what), or `undefined` when it is. */
function notJson(value: unknown, path: string, depth: number): string | undefined {
  if (depth > MAX_INPUT_DEPTH) return `${path || '/'} nests deeper than ${MAX_INPUT_DEPTH} levels`;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') {
    return Number.isFinite(value) ? undefined : `${path || '/'} is a number JSON cannot hold`;
  }
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const problem = notJson(value[index], `${path}/${index}`, depth + 1);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (isRecord(value)) {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      return `${path || '/'} is an object of a class, not plain data`;
    }
    for (const [name, item] of Object.entries(value)) {
      const problem = notJson(item, `${path}/${name}`, depth + 1);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  return `${path || '/'} is ${kindOf(value)}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function bad(message: string): UserInteractionError {
  return new UserInteractionError('BAD_INTENT', message);
}
