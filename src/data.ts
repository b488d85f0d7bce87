/**
 * `ask-engine/data`: the browser-safe entry. Contracts, the form codec, option normalization,
 * answer validation, errors and limits; no Node built-ins, no xstate, no rxjs in its imports
 * (test/browser proves it by bundling this file for the browser and running it in Chromium).
 *
 * @module ask-engine/data
 */

export {
  AskUserAnswersSchema,
  AskUserFreeformResponseSchema,
  type AskUserQuestionAnswer,
  AskUserQuestionAnswerSchema,
  type AskUserResponse,
  AskUserResponseSchema,
  AskUserSelectionResponseSchema,
} from './contracts/answer.js';
export { type AskAttachment, AskAttachmentSchema } from './contracts/attachment.js';
export {
  type UiForm,
  type UiFormAction,
  UiFormActionSchema,
  type UiFormAnswer,
  UiFormAnswerSchema,
  type UiFormChoice,
  UiFormChoiceFieldSchema,
  UiFormChoiceSchema,
  type UiFormField,
  UiFormFieldSchema,
  type UiFormHint,
  UiFormHintSchema,
  UiFormMultiChoiceFieldSchema,
  UiFormSchema,
  UiFormTextFieldSchema,
} from './contracts/form.js';
export {
  type AnsweredBy,
  AnsweredBySchema,
  type AskCancelReason,
  AskCancelReasonSchema,
  type AskOutcome,
  AskOutcomeSchema,
  type AskStatus,
  type ProviderOutcome,
  ProviderOutcomeSchema,
  type QuorumResponse,
  QuorumResponseSchema,
  type ToolInputEdit,
  ToolInputEditSchema,
} from './contracts/outcome.js';
export {
  type AskUserIntent,
  AskUserIntentSchema,
  type AskUserOption,
  AskUserOptionSchema,
  type AskUserPlanReviewIntent,
  AskUserPlanReviewIntentSchema,
  type AskUserQuestion,
  AskUserQuestionSchema,
  type AskUserToolApprovalIntent,
  AskUserToolApprovalIntentSchema,
} from './contracts/question.js';
export type { AskUserRequest } from './contracts/request.js';
export {
  type AskUserHints,
  AskUserHintsSchema,
  AskUserIntentInputSchema,
  type AskUserOptionInput,
  AskUserOptionInputSchema,
  type AskUserOptionLike,
  type AskUserQuestionEntry,
  AskUserQuestionEntrySchema,
  type AskUserQuestionInput,
  type AskUserRequestInput,
  type AskUserToolApprovalIntentInput,
  type AskUserToolInput,
  AskUserToolInputSchema,
} from './contracts/tool-input.js';
export { buildAskUserForm } from './form/build-form.js';
export {
  type DecodeAskUserFormAnswerOptions,
  decodeAskUserFormAnswer,
} from './form/decode-answer.js';
export { encodeAskUserFormAnswer } from './form/encode-answer.js';
export { ASK_USER_FORM_HINT } from './form/form-ids.js';
export { readAskUserForm } from './form/read-form.js';
export {
  isUserInteractionError,
  USER_INTERACTION_ERROR_CODES,
  UserInteractionError,
  type UserInteractionErrorCode,
} from './rules/errors.js';
export {
  MAX_ANSWER_BYTES,
  MAX_ATTACHMENT_BYTES,
  MAX_FORM_HINT_BYTES,
  MAX_MULTI_SELECT_OPTIONS,
  MAX_QUESTIONS,
  utf8ByteLength,
} from './rules/limits.js';
export { normalizeAskUserOption } from './rules/normalize-option.js';
export { MIN_TIMEOUT_MS } from './rules/timeout.js';
export {
  type ValidateAskUserAnswersOptions,
  validateAskUserAnswers,
} from './rules/validate-answers.js';
