/** The input a model (or a permission plugin) writes: one question or up to four. */
import { type Static, Type } from '@sinclair/typebox';
import { MAX_QUESTIONS } from '../rules/limits.js';
import { MIN_TIMEOUT_MS } from '../rules/timeout.js';
import { StringEnum } from './string-enum.js';

/** One choice as the model writes it: a plain-text title and an optional one-line description. */
export const AskUserOptionInputSchema = Type.Object(
  {
    title: Type.String({ description: 'What the person picks; shown as plain text.' }),
    description: Type.Optional(
      Type.String({ description: 'One line on what this option means or implies.' }),
    ),
  },
  { additionalProperties: false },
);
/** An option as the model writes it; the normalizer trims it and refuses repeated titles. */
export type AskUserOptionInput = Static<typeof AskUserOptionInputSchema>;

/**
 * What the question is for; today only `plan-review`: `context` holds the plan, `approve` names
 * the option that approves it, and the result then states whether the plan is approved.
 */
export const AskUserIntentInputSchema = Type.Object(
  {
    kind: StringEnum(['plan-review'] as const, {
      description: 'plan-review: the question asks the person to review the plan in `context`.',
    }),
    approve: Type.String({ description: 'The title of the option that approves the plan.' }),
  },
  {
    additionalProperties: false,
    description: 'Set for a plan review: the plan goes in `context`, `approve` names its option.',
  },
);

// The fields a question entry shares with the top level, where they are defaults for every entry.
const questionFields = {
  header: Type.Optional(
    Type.String({ description: 'A short tab label (a few words). Defaults to Q<n>.' }),
  ),
  context: Type.Optional(
    Type.String({
      description:
        'Supporting text shown with the question (a plan, a diff summary); never an option.',
    }),
  ),
  options: Type.Optional(
    Type.Array(AskUserOptionInputSchema, {
      description: 'The choices. Leave out for a typed answer.',
    }),
  ),
  allowMultiple: Type.Optional(
    Type.Boolean({ description: 'The person may pick several options.' }),
  ),
  allowFreeform: Type.Optional(
    Type.Boolean({
      description: 'The person may type an answer instead of picking. Always true without options.',
    }),
  ),
  allowComment: Type.Optional(
    Type.Boolean({ description: 'The person may add a comment to the options they pick.' }),
  ),
  intent: Type.Optional(AskUserIntentInputSchema),
};

/** One entry of `questions`: the question text plus the per-question fields of the top level. */
export const AskUserQuestionEntrySchema = Type.Object(
  {
    question: Type.String({ description: 'The question, as one focused decision.' }),
    ...questionFields,
  },
  { additionalProperties: false },
);
/** One wizard entry as the model writes it; fields it leaves out come from the top level. */
export type AskUserQuestionEntry = Static<typeof AskUserQuestionEntrySchema>;

/** Presentation hints; local preferences of the person win over them. */
export const AskUserHintsSchema = Type.Object(
  {
    displayMode: Type.Optional(
      StringEnum(['overlay', 'inline'] as const, {
        description: 'overlay: a framed box; inline: between two separators.',
      }),
    ),
    singleSelectLayout: Type.Optional(
      StringEnum(['auto', 'list'] as const, {
        description: 'auto: options beside their descriptions on wide screens; list: one list.',
      }),
    ),
    overlayToggleKey: Type.Optional(
      Type.String({ description: 'Key that hides/shows the overlay.' }),
    ),
    commentToggleKey: Type.Optional(
      Type.String({ description: 'Key that opens the comment editor.' }),
    ),
  },
  { additionalProperties: false },
);
/** Presentation hints a caller or model may give: display mode, layout and two shortcut keys. */
export type AskUserHints = Static<typeof AskUserHintsSchema>;

/**
 * The ask_user tool's parameters, exactly as the model sees them: `question` or `questions` (a
 * wizard of 1-4 entries); the question fields `header`, `context`, `options`, `allowMultiple`,
 * `allowFreeform`, `allowComment` and `intent`, which on the top level are defaults for every
 * entry; the presentation hints; and `timeout`. Every property carries its own `description`.
 * Flat objects and string enums only, never `anyOf`/`oneOf`: some model providers reject them.
 */
export const AskUserToolInputSchema = Type.Object(
  {
    question: Type.Optional(
      Type.String({ description: 'One question. Use `questions` for a 2-4 question wizard.' }),
    ),
    questions: Type.Optional(
      Type.Array(AskUserQuestionEntrySchema, {
        minItems: 1,
        maxItems: MAX_QUESTIONS,
        description:
          '1-4 related questions shown as a wizard; top-level fields are their defaults.',
      }),
    ),
    ...questionFields,
    ...AskUserHintsSchema.properties,
    timeout: Type.Optional(
      Type.Number({
        minimum: MIN_TIMEOUT_MS,
        description: `Milliseconds to wait for the person, at least ${MIN_TIMEOUT_MS} (30 seconds is 30000). Reaching it is not an answer.`,
      }),
    ),
  },
  { additionalProperties: false },
);
/** The ask_user arguments as the schema describes them; `normalizeAskUserRequest` checks them. */
export type AskUserToolInput = Static<typeof AskUserToolInputSchema>;

/**
 * An option given through the service: `{ title, description? }` or a bare title. The normalizer
 * accepts both on every path; only the model-facing schema stays flat objects (no unions).
 */
export type AskUserOptionLike = AskUserOptionInput | string;

/**
 * A tool-approval intent as the host writes it (`askToolApproval` does): service path only,
 * never the model's. `allowEdits` defaults to `true` when `inputSchema` is given.
 */
export interface AskUserToolApprovalIntentInput {
  kind: 'tool-approval';
  /** The title of the option that approves the call. */
  approve: string;
  /** The title of the option that rejects it. */
  reject: string;
  toolName: string;
  toolCallId: string;
  approvalId?: string;
  /** The proposed arguments (JSON). */
  input: unknown;
  /** The tool's input JSON Schema (an object, or a boolean); edits are allowed only with one. */
  inputSchema?: unknown;
  allowEdits?: boolean;
}

/** A question entry given through the service: the tool's entry plus a caller-chosen id. */
export type AskUserQuestionInput = Omit<AskUserQuestionEntry, 'options' | 'intent'> & {
  /** What the question is for: a plan review, or (the host only) a tool approval. */
  intent?: AskUserQuestionEntry['intent'] | AskUserToolApprovalIntentInput;
  /** The question's id in the answers; `q<n>` by position when left out. */
  id?: string;
  options?: AskUserOptionLike[];
};

/** What `service.ask` takes: the tool's shape, with caller-chosen ids and the asking agent. */
export type AskUserRequestInput = Omit<AskUserToolInput, 'questions' | 'options'> & {
  questions?: AskUserQuestionInput[];
  options?: AskUserOptionLike[];
  /** The name of the agent asking, handed to the provider. */
  agent?: string;
};
