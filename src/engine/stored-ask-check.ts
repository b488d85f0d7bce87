/**
 * The boundary between a store and the engine: a row or a persisted snapshot is checked once,
 * here, before anything uses it: its shape against the stored-row schema (never against today's
 * question rules, so an ask written before a rule tightened stays readable), its machine state
 * against the machine, and its outcome for consistency (final exactly when settled, the row as
 * its snapshot says, selections among the options offered). A tampered or corrupt row is
 * refused with an error that names the ask and what was wrong; a row that passes is frozen.
 */
import {
  type Static,
  type TObject,
  type TOptional,
  type TProperties,
  type TSchema,
  Type,
} from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import type { ValueError } from '@sinclair/typebox/errors';
import { AskUserAnswersSchema } from '../contracts/answer.js';
import { AskAttachmentSchema } from '../contracts/attachment.js';
import { AskOutcomeSchema, QuorumResponseSchema } from '../contracts/outcome.js';
import { AskUserQuestionSchema } from '../contracts/question.js';
import { UserInteractionError } from '../rules/errors.js';
import { MAX_QUESTIONS } from '../rules/limits.js';
import { ASK_ROW, type RowField, type RowKind, UNLISTED_FIELDS } from '../stores/ask-row.js';
import type { ListedAsk, PersistedAskSnapshot, StoredAsk } from '../stores/ask-store.js';
import { sameData } from './ask-intake.js';
import { ASK_STATES, type AskState, INITIAL_ASK_STATE } from './audit.js';
import { deepFreeze } from './outcome-copy.js';

// Derived from the machine (ASK_STATES), so a new state needs no edit here.
const StateSchema = Type.Union(ASK_STATES.map((value: AskState) => Type.Literal(value)));

const ByText = Type.String({ minLength: 1 });

/** A quorum as the machine keeps it (`AskMachineQuorum`; `readQuorum` checked it when written). */
const QuorumSchema = Type.Object({
  required: Type.Integer({ minimum: 1 }),
  from: Type.Optional(Type.Array(ByText, { minItems: 1 })),
  agree: Type.Union([Type.Literal('same'), Type.Literal('any')]),
  veto: Type.Optional(Type.Array(ByText, { minItems: 1 })),
});

/**
 * The machine's context (`AskMachineContext`) as stored: every field, so none is read unchecked.
 * test/machines/contract-types.test.ts requires `Static` of it to equal the machine's type, so a
 * field added to the context fails the type check until it is described here.
 */
export const StoredContextSchema = Type.Object(
  {
    askId: Type.String({ minLength: 1 }),
    createdAt: Type.Number(),
    deadlineAt: Type.Optional(Type.Number()),
    toolCallId: Type.Optional(Type.String()),
    sessionId: Type.Optional(Type.String()),
    agent: Type.Optional(Type.String()),
    redact: Type.Optional(Type.Literal(true)),
    // Written by ask-engine/otel only: version 00 of W3C Trace Context, and its vendor state.
    traceparent: Type.Optional(
      Type.String({ pattern: '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$' }),
    ),
    tracestate: Type.Optional(Type.String({ maxLength: 512 })),
    quorum: Type.Optional(QuorumSchema),
    progress: AskUserAnswersSchema,
    responses: Type.Optional(Type.Array(QuorumResponseSchema)),
    refused: Type.Optional(
      Type.Union([
        Type.Object({
          by: ByText,
          reason: Type.Union([
            Type.Literal('duplicate'),
            Type.Literal('not-allowed'),
            Type.Literal('not-a-quorum-ask'),
          ]),
          at: Type.Number(),
        }),
        Type.Undefined(),
      ]),
    ),
    outcome: Type.Optional(AskOutcomeSchema),
  },
  { additionalProperties: false },
);

// The machine has no history states and no child actors: both are always empty.
const Empty = Type.Object({}, { additionalProperties: false });

/** A persisted snapshot as `persistAskSnapshot` writes it; nothing else is accepted in it. */
const PersistedSnapshotSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('active'), Type.Literal('done')]),
    value: StateSchema,
    historyValue: Empty,
    context: StoredContextSchema,
    children: Empty,
    output: Type.Optional(AskOutcomeSchema),
  },
  { additionalProperties: false },
);

/** The schema of each kind of stored value (ask-row.ts); a JSON field names its own below. */
const KIND_SCHEMAS = {
  text: Type.String({ minLength: 1 }),
  state: StateSchema,
  version: Type.Integer({ minimum: 1 }),
  time: Type.Number(),
  flag: Type.Boolean(),
} as const satisfies Partial<Record<RowKind, TSchema>>;

/**
 * A stored row, built from the row's description (`ASK_ROW`): each field by its kind, or by its
 * own schema where it holds JSON, optional where the description says. `Static` of it equals
 * `StoredAsk` but for the snapshot (contract-types test), so a field added to the row fails the
 * type check until it is described.
 */
export const StoredAskSchema = describedSchema(ASK_ROW, KIND_SCHEMAS, {
  snapshot: PersistedSnapshotSchema,
  questions: Type.Array(AskUserQuestionSchema, { minItems: 1, maxItems: MAX_QUESTIONS }),
  outcome: AskOutcomeSchema,
  attachment: AskAttachmentSchema,
});

type JsonKind = 'object' | 'array';

/** The schema of a described field: its own (`J`) where it has one, else its kind's. */
type FieldSchema<D, F, K, J> = F extends keyof J
  ? J[F]
  : D extends { kind: infer Kind }
    ? Kind extends keyof K
      ? K[Kind]
      : never
    : never;

type DescribedProperties<R, K, J> = {
  -readonly [F in keyof R]: R[F] extends { optional: true }
    ? TOptional<Extract<FieldSchema<R[F], F, K, J>, TSchema>>
    : FieldSchema<R[F], F, K, J>;
};

type DescribedSchema<R, K, J> =
  DescribedProperties<R, K, J> extends infer P extends TProperties ? TObject<P> : never;

/** An object schema of a described row; every field of a JSON kind must be given its schema. */
function describedSchema<
  const R extends Readonly<Record<string, RowField>>,
  const K extends Partial<Record<RowKind, TSchema>>,
  const J extends { [F in keyof R as R[F] extends { kind: JsonKind } ? F : never]: TSchema },
>(row: R, kinds: K, json: J): DescribedSchema<R, K, J> {
  const properties: Record<string, TSchema> = {};
  for (const [field, described] of Object.entries(row)) {
    const schema: TSchema | undefined =
      (json as Record<string, TSchema>)[field] ?? kinds[described.kind];
    if (schema === undefined) {
      throw new Error(`No schema for the stored field ${field} of kind ${described.kind}.`);
    }
    properties[field] = described.optional === true ? Type.Optional(schema) : schema;
  }
  return Type.Object(properties) as DescribedSchema<R, K, J>;
}

/**
 * A row as `list` returns it: without the snapshot and the attachment, with the session and
 * agent it held.
 */
const ListedAskSchema = Type.Composite([
  Type.Omit(StoredAskSchema, UNLISTED_FIELDS),
  Type.Object({ sessionId: Type.Optional(Type.String()), agent: Type.Optional(Type.String()) }),
]);

const storedAskCheck = TypeCompiler.Compile(StoredAskSchema);
const listedAskCheck = TypeCompiler.Compile(ListedAskSchema);
const snapshotCheck = TypeCompiler.Compile(PersistedSnapshotSchema);

/** Returns the row (frozen) if it is whole and consistent; throws `INVALID_REQUEST` naming the fault. */
export function checkStoredAsk(row: unknown, where: string): StoredAsk {
  const ask = checked(storedAskCheck, row, where);
  refuseFault(ask.askId, rowFault(ask), where);
  return deepFreeze(ask);
}

/**
 * A listed row (no snapshot) if it is whole and consistent (its outcome is its state's, its
 * answers among its questions); throws `INVALID_REQUEST` naming the fault. Frozen.
 */
export function checkListedAsk(row: unknown, where: string): ListedAsk {
  const ask = checked(listedAskCheck, row, where);
  refuseFault(ask.askId, outcomeFault(ask), where);
  return deepFreeze(ask);
}

/** Throws `INVALID_REQUEST` naming the ask and its fault, when there is one. */
function refuseFault(askId: string, fault: string | undefined, where: string): void {
  if (fault === undefined) return;
  throw new UserInteractionError(
    'INVALID_REQUEST',
    `Refused ${where} for ask ${JSON.stringify(askId)}: ${fault}.`,
    { askId },
  );
}

/** What makes a row that has the right shape inconsistent, if anything. */
function rowFault(ask: Static<typeof StoredAskSchema>): string | undefined {
  const { snapshot } = ask;
  const { context } = snapshot;
  if (context.askId !== ask.askId)
    return `its snapshot belongs to ask ${JSON.stringify(context.askId)}`;
  if (snapshot.value !== ask.state) {
    return `its state ${JSON.stringify(ask.state)} differs from its snapshot's ${JSON.stringify(snapshot.value)}`;
  }
  if ((snapshot.status === 'done') !== ask.final) {
    return `its final flag (${ask.final}) contradicts its snapshot`;
  }
  if (context.deadlineAt !== ask.deadlineAt || context.createdAt !== ask.createdAt) {
    return 'its deadline or creation time differs from its snapshot';
  }
  if (!sameData(context.outcome, ask.outcome)) return 'its outcome differs from its snapshot';
  const fault = outcomeFault(ask);
  if (fault !== undefined) return fault;
  // A final snapshot's output is its outcome; an active one has none.
  if (!sameData(snapshot.output, ask.final ? context.outcome : undefined)) {
    return "its snapshot's output differs from its outcome";
  }
  return undefined;
}

/** What makes a row's outcome inconsistent with its state or its questions, if anything. */
function outcomeFault(ask: ListedAsk): string | undefined {
  const outcome = ask.outcome;
  // The initial state (pending) has no outcome; every other has the outcome of its own name.
  const expected = ask.state === INITIAL_ASK_STATE ? undefined : ask.state;
  if (outcome?.status !== expected) {
    return outcome === undefined
      ? `it is ${ask.state} without an outcome`
      : `its outcome is ${JSON.stringify(outcome.status)} in state ${JSON.stringify(ask.state)}`;
  }
  if (outcome?.status === 'deferred' && outcome.interactionId !== ask.interactionId) {
    return 'its interaction id differs from its deferral';
  }
  return outcome?.status === 'answered' ? answersFault(ask.questions, outcome.answers) : undefined;
}

/** Answers a stored outcome may hold: each for a question asked, once, selecting options offered. */
function answersFault(
  questions: StoredAsk['questions'],
  answers: readonly { questionId: string; response: unknown }[],
): string | undefined {
  const seen = new Set<string>();
  for (const { questionId, response } of answers) {
    const question = questions.find((candidate) => candidate.id === questionId);
    if (question === undefined || seen.has(questionId)) {
      return `its outcome answers question ${JSON.stringify(questionId)} ${question === undefined ? 'that was never asked' : 'twice'}`;
    }
    seen.add(questionId);
    const selections = (response as { kind?: string; selections?: string[] } | null)?.selections;
    if (selections === undefined) continue;
    for (const selection of selections) {
      if (!question.options.some((option) => option.title === selection)) {
        return `its outcome selects an option question ${JSON.stringify(questionId)} never offered`;
      }
    }
  }
  return undefined;
}

/** A persisted snapshot handed to `restore`: its shape and machine state. */
export function checkPersistedSnapshot(snapshot: unknown): PersistedAskSnapshot {
  return checked(snapshotCheck, snapshot, 'the persisted snapshot');
}

function checked<T extends TSchema>(check: TypeCheck<T>, value: unknown, where: string): Static<T> {
  if (check.Check(value)) return value;
  const found = check.Errors(value).First();
  const first = found === undefined ? undefined : innermost(found);
  const askId =
    typeof value === 'object' && value !== null ? (value as { askId?: unknown }).askId : undefined;
  throw new UserInteractionError(
    'INVALID_REQUEST',
    `Refused ${where}${typeof askId === 'string' ? ` for ask ${JSON.stringify(askId)}` : ''}: ${
      first === undefined ? 'it is not a stored ask' : `${first.path || '/'} ${first.message}`
    }.`,
    typeof askId === 'string' ? { askId } : {},
  );
}

/**
 * The error that names the field at fault: a value that matches no member of a union (an
 * outcome, a response) is reported by the member it came closest to, the one whose first
 * error lies deepest (the first such member on a tie: a wrong `status` is named as itself), so
 * the message names `/outcome/answers/0/questionId`, not `/outcome`.
 */
function innermost(error: ValueError): ValueError {
  let best = error;
  for (const member of error.errors) {
    const first = member.First();
    if (first === undefined) continue;
    const inner = innermost(first);
    if (depth(inner) > depth(best)) best = inner;
  }
  return best;
}

function depth(error: ValueError): number {
  return error.path.split('/').length;
}
