/** What a person answered: selections are option titles, never option ids. */
import { type Static, Type } from '@sinclair/typebox';

export const AskUserSelectionResponseSchema = Type.Object(
  {
    kind: Type.Literal('selection'),
    selections: Type.Array(Type.String()),
    comment: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const AskUserFreeformResponseSchema = Type.Object(
  {
    kind: Type.Literal('freeform'),
    text: Type.String(),
  },
  { additionalProperties: false },
);

export const AskUserResponseSchema = Type.Union([
  AskUserSelectionResponseSchema,
  AskUserFreeformResponseSchema,
]);
export type AskUserResponse = Static<typeof AskUserResponseSchema>;

/** `response: null` means the person skipped this question of a wizard. */
export const AskUserQuestionAnswerSchema = Type.Object(
  {
    questionId: Type.String(),
    response: Type.Union([AskUserResponseSchema, Type.Null()]),
  },
  { additionalProperties: false },
);
export type AskUserQuestionAnswer = Static<typeof AskUserQuestionAnswerSchema>;

export const AskUserAnswersSchema = Type.Array(AskUserQuestionAnswerSchema);
