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
export const AskUserIntentSchema = Type.Object(
  {
    /** The only kind today: the question asks the person to approve the plan in `context`. */
    kind: Type.Literal('plan-review'),
    /** The title of the option that approves the plan. */
    approve: Type.String({ minLength: 1 }),
  },
  { additionalProperties: false },
);
/** What a question is for, when it is more than a choice (today: reviewing a plan). */
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
    /** What the question is for, when it is a plan review. */
    intent: Type.Optional(AskUserIntentSchema),
  },
  { additionalProperties: false },
);
/** A normalized question: the shape every provider, form and store works with. */
export type AskUserQuestion = Static<typeof AskUserQuestionSchema>;
