/** Outcomes: what a provider reports, and the one immutable outcome of an ask. */
import { type Static, Type } from '@sinclair/typebox';
import { MAX_ANSWERED_BY_LENGTH } from '../rules/limits.js';
import { AskUserAnswersSchema } from './answer.js';

const BylineText = Type.String({ minLength: 1, maxLength: MAX_ANSWERED_BY_LENGTH });

/**
 * Who answered (`recipient`), and through what (`channel`: `'terminal'`, `'mcp'`, `'web'`,
 * `'email'`, ...). Kept with the answered outcome and its audit event, and never redacted: it
 * names a person, not what they answered. Where it is written it is also checked for control
 * characters (`service.answer`'s `by`, a provider's `answeredBy`, a signed link).
 */
export const AnsweredBySchema = Type.Object(
  { recipient: BylineText, channel: Type.Optional(BylineText) },
  { additionalProperties: false },
);
/** Who answered an ask: a recipient id and, when known, the channel it came through. */
export type AnsweredBy = Static<typeof AnsweredBySchema>;

/** A provider's answers; they count only once validated against the questions. */
export const ProviderAnsweredSchema = Type.Object(
  {
    status: Type.Literal('answered'),
    answers: AskUserAnswersSchema,
    /** Who answered, when the provider knows (the OS user, the MCP client, a signed link). */
    answeredBy: Type.Optional(AnsweredBySchema),
  },
  { additionalProperties: false },
);

/**
 * A provider ending the ask without an answer: `user` when the person dismissed it,
 * `unavailable` when no one can answer here (no terminal, the host went away).
 */
export const ProviderCancelledSchema = Type.Object(
  {
    status: Type.Literal('cancelled'),
    reason: Type.Union([Type.Literal('user'), Type.Literal('unavailable')]),
    message: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/** `interactionId` shows at least one character that is not white space: something can resume it. */
export const ProviderDeferredSchema = Type.Object(
  {
    status: Type.Literal('deferred'),
    interactionId: Type.String({ minLength: 1, pattern: '\\S' }),
    message: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/** What a provider's `ask` resolves with: answered, cancelled or deferred to be resumed later. */
export const ProviderOutcomeSchema = Type.Union([
  ProviderAnsweredSchema,
  ProviderCancelledSchema,
  ProviderDeferredSchema,
]);
/** A provider's result; the service turns it into the ask's one `AskOutcome`. */
export type ProviderOutcome = Static<typeof ProviderOutcomeSchema>;

/**
 * Why an ask was cancelled: the person dismissed it (`user`), no one could answer
 * (`unavailable`), the provider's answer was refused (`invalid-answer`) or the provider threw
 * (`provider-error`), or everyone who may respond to a quorum ask responded without reaching
 * it (`no-quorum`).
 */
export const AskCancelReasonSchema = Type.Union([
  Type.Literal('user'),
  Type.Literal('unavailable'),
  Type.Literal('invalid-answer'),
  Type.Literal('provider-error'),
  Type.Literal('no-quorum'),
]);
/** `user`, `unavailable`, `invalid-answer`, `provider-error` or `no-quorum`. */
export type AskCancelReason = Static<typeof AskCancelReasonSchema>;

/**
 * One person's response to a quorum ask: their recipient id (`by`, never redacted), their
 * answers (redacted like answers) and when it was recorded (epoch milliseconds).
 */
export const QuorumResponseSchema = Type.Object(
  { by: BylineText, answers: AskUserAnswersSchema, at: Type.Number() },
  { additionalProperties: false },
);
/** One recorded response to a quorum ask. */
export type QuorumResponse = Static<typeof QuorumResponseSchema>;

/**
 * A tool approval approved with edits: the input digests before (`from`) and after (`to`), as
 * `sha256:<base64url>` over the tool name and the canonical JSON, and the top-level fields that
 * changed (added, removed or given another value). Never redacted: the values are in the
 * answers.
 */
export const ToolInputEditSchema = Type.Object(
  {
    from: Type.String({ minLength: 1 }),
    to: Type.String({ minLength: 1 }),
    fields: Type.Array(Type.String()),
  },
  { additionalProperties: false },
);
/** What an edit changed: both input digests and the changed top-level fields. */
export type ToolInputEdit = Static<typeof ToolInputEditSchema>;

/**
 * The outcome an ask's caller receives, once: `answered` with validated answers, `cancelled`
 * with a reason, `deferred` (the question lives on elsewhere and is answered later through
 * `resume` with `interactionId`), `timedOut` at `deadlineAt` (epoch milliseconds; not an
 * answer), or `aborted` with what JSON can hold of the abort's cause.
 */
export const AskOutcomeSchema = Type.Union([
  Type.Object({
    status: Type.Literal('answered'),
    answers: AskUserAnswersSchema,
    answeredBy: Type.Optional(AnsweredBySchema),
    /** A quorum ask: every response counted, in order. */
    responses: Type.Optional(Type.Array(QuorumResponseSchema)),
    /** A quorum ask ended by a veto: who picked the veto option. */
    vetoedBy: Type.Optional(BylineText),
    /** A tool approval approved with edited input: what changed (the input is in the answer). */
    edited: Type.Optional(ToolInputEditSchema),
  }),
  Type.Object({
    status: Type.Literal('cancelled'),
    reason: AskCancelReasonSchema,
    message: Type.Optional(Type.String()),
    /** `no-quorum`: the responses that did not agree. */
    responses: Type.Optional(Type.Array(QuorumResponseSchema)),
  }),
  Type.Object({
    status: Type.Literal('deferred'),
    interactionId: Type.String({ minLength: 1 }),
    message: Type.Optional(Type.String()),
  }),
  Type.Object({ status: Type.Literal('timedOut'), deadlineAt: Type.Number() }),
  Type.Object({ status: Type.Literal('aborted'), cause: Type.Unknown(), message: Type.String() }),
]);
/** The outcome an ask's caller receives; `status` tells the five cases apart. */
export type AskOutcome = Static<typeof AskOutcomeSchema>;
/** `answered`, `cancelled`, `deferred`, `timedOut` or `aborted`. */
export type AskStatus = AskOutcome['status'];
