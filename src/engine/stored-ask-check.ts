/**
 * The boundary between a store and the engine: a row or a persisted snapshot is checked once,
 * here, before anything uses it (its shape with a compiled TypeBox schema, its questions with
 * the same rules as a new request, its machine state against the machine). A tampered or
 * corrupt row is refused with an error that names the ask and what was wrong.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { askMachine } from '../../machines/ask.machine.js';
import { AskUserAnswersSchema } from '../contracts/answer.js';
import { AskOutcomeSchema } from '../contracts/outcome.js';
import { AskUserQuestionSchema } from '../contracts/question.js';
import { UserInteractionError } from '../rules/errors.js';
import { MAX_QUESTIONS } from '../rules/limits.js';
import { normalizeAskUserRequest } from '../rules/normalize.js';
import type { PersistedAskSnapshot, StoredAsk } from '../stores/ask-store.js';

// Derived from the machine, so a new state needs no edit here.
const STATE_VALUES = Object.keys(askMachine.root.states);
const StateSchema = Type.Union(STATE_VALUES.map((value) => Type.Literal(value)));
const OptionalString = Type.Optional(Type.String({ minLength: 1 }));

const ContextSchema = Type.Object({
  askId: Type.String({ minLength: 1 }),
  createdAt: Type.Number(),
  deadlineAt: Type.Optional(Type.Number()),
  toolCallId: Type.Optional(Type.String()),
  sessionId: Type.Optional(Type.String()),
  agent: Type.Optional(Type.String()),
  progress: AskUserAnswersSchema,
  outcome: Type.Optional(AskOutcomeSchema),
});

const PersistedSnapshotSchema = Type.Object({
  status: Type.Union([Type.Literal('active'), Type.Literal('done')]),
  value: StateSchema,
  context: ContextSchema,
});

const StoredAskSchema = Type.Object({
  askId: Type.String({ minLength: 1 }),
  state: StateSchema,
  version: Type.Integer({ minimum: 1 }),
  snapshot: PersistedSnapshotSchema,
  questions: Type.Array(AskUserQuestionSchema, { minItems: 1, maxItems: MAX_QUESTIONS }),
  outcome: Type.Optional(AskOutcomeSchema),
  interactionId: OptionalString,
  key: OptionalString,
  deadlineAt: Type.Optional(Type.Number()),
  owner: OptionalString,
  final: Type.Boolean(),
  createdAt: Type.Number(),
  updatedAt: Type.Number(),
});

const storedAskCheck = TypeCompiler.Compile(StoredAskSchema);
const snapshotCheck = TypeCompiler.Compile(PersistedSnapshotSchema);

/** Returns the row if it is whole and consistent; throws `INVALID_REQUEST` naming the fault. */
export function checkStoredAsk(row: unknown, where: string): StoredAsk {
  const ask = checked(storedAskCheck, row, where) as StoredAsk;
  const context = (ask.snapshot as { context: { askId: string } }).context;
  const fault =
    context.askId !== ask.askId
      ? `its snapshot belongs to ask ${JSON.stringify(context.askId)}`
      : ask.snapshot.value !== ask.state
        ? `its state ${JSON.stringify(ask.state)} differs from its snapshot's ${JSON.stringify(ask.snapshot.value)}`
        : (ask.snapshot.status === 'done') !== ask.final
          ? `its final flag (${ask.final}) contradicts its snapshot`
          : questionFault(ask.questions);
  if (fault !== undefined) {
    throw new UserInteractionError(
      'INVALID_REQUEST',
      `Refused ${where} for ask ${JSON.stringify(ask.askId)}: ${fault}.`,
      { askId: ask.askId },
    );
  }
  return ask;
}

/** A persisted snapshot handed to `restore`: its shape and machine state. */
export function checkPersistedSnapshot(snapshot: unknown): PersistedAskSnapshot {
  return checked(snapshotCheck, snapshot, 'the persisted snapshot') as PersistedAskSnapshot;
}

/** Questions read back from a store obey the same rules as questions asked now. */
function questionFault(questions: StoredAsk['questions']): string | undefined {
  const result = normalizeAskUserRequest({ questions }, { allowIds: true });
  return result.ok ? undefined : `its questions break the question rules (${result.error.message})`;
}

function checked(
  check: ReturnType<typeof TypeCompiler.Compile<TSchema>>,
  value: unknown,
  where: string,
): unknown {
  if (check.Check(value)) return value;
  const first = check.Errors(value).First();
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
