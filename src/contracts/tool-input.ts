/** The input a model (or a permission plugin) writes: one question or up to four. */
import { type Static, Type } from '@sinclair/typebox';
import { MAX_QUESTIONS } from '../rules/limits.js';
import { MIN_TIMEOUT_MS } from '../rules/timeout.js';
import { StringEnum } from './string-enum.js';

export const AskUserOptionInputSchema = Type.Object(
  {
    title: Type.String({ description: 'What the person picks; shown as plain text.' }),
    description: Type.Optional(
      Type.String({ description: 'One line on what this option means or implies.' }),
    ),
  },
  { additionalProperties: false },
);
export type AskUserOptionInput = Static<typeof AskUserOptionInputSchema>;

export const AskUserIntentInputSchema = Type.Object(
  {
    kind: StringEnum(['plan-review'] as const, {
      description: 'plan-review: the question asks the person to review the plan in `context`.',
    }),
    approve: Type.String({ description: 'The title of the option that approves the plan.' }),
  },
  { additionalProperties: false },
);

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

export const AskUserQuestionEntrySchema = Type.Object(
  {
    question: Type.String({ description: 'The question, as one focused decision.' }),
    ...questionFields,
  },
  { additionalProperties: false },
);
export type AskUserQuestionEntry = Static<typeof AskUserQuestionEntrySchema>;

/** Presentation hints; local preferences of the person win over them. */
export const AskUserHintsSchema = Type.Object(
  {
    displayMode: Type.Optional(StringEnum(['overlay', 'inline'] as const)),
    singleSelectLayout: Type.Optional(StringEnum(['auto', 'list'] as const)),
    overlayToggleKey: Type.Optional(
      Type.String({ description: 'Key that hides/shows the overlay.' }),
    ),
    commentToggleKey: Type.Optional(
      Type.String({ description: 'Key that opens the comment editor.' }),
    ),
  },
  { additionalProperties: false },
);
export type AskUserHints = Static<typeof AskUserHintsSchema>;

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
export type AskUserToolInput = Static<typeof AskUserToolInputSchema>;

/**
 * An option given through the service: `{ title, description? }` or a bare title. The normalizer
 * accepts both on every path; only the model-facing schema stays flat objects (no unions).
 */
export type AskUserOptionLike = AskUserOptionInput | string;

/** A question entry given through the service: the tool's entry plus a caller-chosen id. */
export type AskUserQuestionInput = Omit<AskUserQuestionEntry, 'options'> & {
  id?: string;
  options?: AskUserOptionLike[];
};

/** What `service.ask` takes: the tool's shape, with caller-chosen ids and the asking agent. */
export type AskUserRequestInput = Omit<AskUserToolInput, 'questions' | 'options'> & {
  questions?: AskUserQuestionInput[];
  options?: AskUserOptionLike[];
  agent?: string;
};
