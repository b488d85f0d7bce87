/** What a person answered: selections are option titles, never option ids. */
import { type Static, Type } from '@sinclair/typebox';

/** The person picked options: one, or several when the question allows multiple. */
export const AskUserSelectionResponseSchema = Type.Object(
  {
    kind: Type.Literal('selection'),
    /** The titles of the picked options, each once; once validated, spelled as the options are. */
    selections: Type.Array(Type.String()),
    /** What the person added to the pick; only where the question allows a comment. */
    comment: Type.Optional(Type.String()),
    /**
     * A tool approval approved with edits: the arguments the person approved instead of the
     * proposed ones (JSON, checked against the tool's input schema; keys sorted once checked).
     */
    input: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

/** The person typed an answer; only where the question allows freeform (or has no options). */
export const AskUserFreeformResponseSchema = Type.Object(
  {
    kind: Type.Literal('freeform'),
    /** The typed answer, as the person wrote it. */
    text: Type.String(),
  },
  { additionalProperties: false },
);

/** The answer to one question: a selection or a typed (freeform) answer. */
export const AskUserResponseSchema = Type.Union([
  AskUserSelectionResponseSchema,
  AskUserFreeformResponseSchema,
]);
/** A selection of option titles (with an optional comment), or typed text. */
export type AskUserResponse = Static<typeof AskUserResponseSchema>;

/** `response: null` means the person skipped this question of a wizard. */
export const AskUserQuestionAnswerSchema = Type.Object(
  {
    /** The `id` of the question answered. */
    questionId: Type.String(),
    /** What the person gave, or `null` for a question of a wizard they skipped. */
    response: Type.Union([AskUserResponseSchema, Type.Null()]),
  },
  { additionalProperties: false },
);
/** One question's answer; a `null` response marks a question of a wizard the person skipped. */
export type AskUserQuestionAnswer = Static<typeof AskUserQuestionAnswerSchema>;

/**
 * The answers of one ask, one per question. A provider's answers count only once
 * `validateAskUserAnswers` accepts them; then they come in question order.
 */
export const AskUserAnswersSchema = Type.Array(AskUserQuestionAnswerSchema);
