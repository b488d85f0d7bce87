/** Normalized questions and options: what providers, forms and stores see. */
import { type Static, Type } from '@sinclair/typebox';

export const AskUserOptionSchema = Type.Object(
  {
    title: Type.String({ minLength: 1 }),
    description: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type AskUserOption = Static<typeof AskUserOptionSchema>;

export const AskUserIntentSchema = Type.Object(
  {
    kind: Type.Literal('plan-review'),
    approve: Type.String({ minLength: 1 }),
  },
  { additionalProperties: false },
);
export type AskUserIntent = Static<typeof AskUserIntentSchema>;

export const AskUserQuestionSchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    question: Type.String({ minLength: 1 }),
    header: Type.String({ minLength: 1 }),
    context: Type.Optional(Type.String()),
    options: Type.Array(AskUserOptionSchema),
    allowMultiple: Type.Boolean(),
    allowFreeform: Type.Boolean(),
    allowComment: Type.Boolean(),
    intent: Type.Optional(AskUserIntentSchema),
  },
  { additionalProperties: false },
);
export type AskUserQuestion = Static<typeof AskUserQuestionSchema>;
