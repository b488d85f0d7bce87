/** Normalized questions and options: what providers, forms and stores see. */
import { type Static, Type } from '@sinclair/typebox';

/** A normalized option: title and description trimmed, the title unique within its question. */
export const AskUserOptionSchema = Type.Object(
  {
    /** Plain text the person picks; an answer's `selections` repeat it exactly. */
    title: Type.String({ minLength: 1 }),
    /** One line on what the option means; left out when the one given shows nothing. */
    description: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
/** One choice of a normalized question. */
export type AskUserOption = Static<typeof AskUserOptionSchema>;

/** A checked plan-review intent: `approve` is spelled exactly like one of the options' titles. */
export const AskUserPlanReviewIntentSchema = Type.Object(
  {
    /** The question asks the person to approve the plan in `context`. */
    kind: Type.Literal('plan-review'),
    /** The title of the option that approves the plan. */
    approve: Type.String({ minLength: 1 }),
  },
  { additionalProperties: false },
);
/** A plan review: the question asks the person to approve the plan in its `context`. */
export type AskUserPlanReviewIntent = Static<typeof AskUserPlanReviewIntentSchema>;

/**
 * A checked tool-approval intent (`askToolApproval` makes it): the call the person approves,
 * the option titles that approve and reject it, and, when edits are allowed, the tool's input
 * JSON Schema the edited input must conform to. `input` is the proposed arguments as the model
 * wrote them.
 */
export const AskUserToolApprovalIntentSchema = Type.Object(
  {
    kind: Type.Literal('tool-approval'),
    /** The title of the option that approves the call (with or without edits). */
    approve: Type.String({ minLength: 1 }),
    /** The title of the option that rejects it; a comment with it is the reason. */
    reject: Type.String({ minLength: 1 }),
    toolName: Type.String({ minLength: 1 }),
    toolCallId: Type.String({ minLength: 1 }),
    /** The framework's approval id, when it has one (the AI SDK's, the OpenAI Agents SDK's). */
    approvalId: Type.Optional(Type.String({ minLength: 1 })),
    /** The proposed arguments, as JSON. */
    input: Type.Unknown(),
    /** The tool's input JSON Schema; edits are checked against it. */
    inputSchema: Type.Optional(Type.Unknown()),
    /** The person may approve with edited arguments (only with `inputSchema`). */
    allowEdits: Type.Boolean(),
  },
  { additionalProperties: false },
);
/** What an approval ask for one tool call carries; see `AskUserToolApprovalIntentSchema`. */
export type AskUserToolApprovalIntent = Static<typeof AskUserToolApprovalIntentSchema>;

/** What a question is for, when it is more than a choice: a plan review or a tool approval. */
export const AskUserIntentSchema = Type.Union([
  AskUserPlanReviewIntentSchema,
  AskUserToolApprovalIntentSchema,
]);
/** What a question is for, when it is more than a choice (a plan review, a tool approval). */
export type AskUserIntent = Static<typeof AskUserIntentSchema>;

/** A question after normalization, with every default resolved: what a provider renders. */
export const AskUserQuestionSchema = Type.Object(
  {
    /** `q1`, `q2`, ... by position, or the caller's own id; answers refer to it. */
    id: Type.String({ minLength: 1 }),
    /** The question text, trimmed. */
    question: Type.String({ minLength: 1 }),
    /** A short tab label; `Q<n>` when none was given. */
    header: Type.String({ minLength: 1 }),
    /** Supporting text (a plan, a diff summary) shown with the question. */
    context: Type.Optional(Type.String()),
    /** The choices, in the order given; empty for a typed answer. */
    options: Type.Array(AskUserOptionSchema),
    /** The person may pick several options; always false without options. */
    allowMultiple: Type.Boolean(),
    /** The person may type an answer instead of picking; always true without options. */
    allowFreeform: Type.Boolean(),
    /** The person may add a comment to the options they pick; always false without options. */
    allowComment: Type.Boolean(),
    /** What the question is for, when it is a plan review or a tool approval. */
    intent: Type.Optional(AskUserIntentSchema),
  },
  { additionalProperties: false },
);
/** A normalized question: the shape every provider, form and store works with. */
export type AskUserQuestion = Static<typeof AskUserQuestionSchema>;
