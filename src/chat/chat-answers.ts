/**
 * Clicks and modal submits on an ask's cards, turned into responses. Identity is the platform
 * user id the adapter read from a request it verified (Slack's signature, Telegram's secret
 * token, ...): never a display name, never anything in the button. The button names the ask by
 * a reference and the choice; whether this person may answer is decided here, and the answer is
 * recorded through `service.respond` (a quorum counts distinct platform user ids), so a click
 * on a settled ask is refused and audited exactly as any late answer.
 */
import {
  type ActionEvent,
  Card,
  CardText,
  type Chat,
  type ModalResponse,
  type ModalSubmitEvent,
} from 'chat';
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { InteractionService } from '../engine/service-contract.js';
import { openAskMessageOf } from '../notify/open-ask-message.js';
import { isUserInteractionError } from '../rules/errors.js';
import { readPersonId, samePerson } from '../rules/person-id.js';
import type { AskLog, StoredAsk } from '../stores/ask-store.js';
import { answersOfModal, askModal, modalFit, referenceOfModal } from './ask-modal.js';
import { CHAT_ACTION_ID, interactionIdFor, readButtonValue } from './card-reference.js';
import { type ChatPlatform, tellClickerEphemerally } from './platform.js';

/** Who may answer from a card; see `ChatProviderOptions.whoMayAnswer`. */
export type WhoMayAnswer = 'recipients' | 'anyone';

/** What the handlers need: the service to respond through and the store to find asks in. */
export interface ChatAnswerContext {
  service: Pick<InteractionService, 'respond' | 'history' | 'get'>;
  store: Pick<AskLog, 'findByInteractionId'>;
  platforms: ReadonlyMap<string, ChatPlatform>;
  whoMayAnswer: WhoMayAnswer;
  onError: (error: unknown) => void;
  /** False once the provider is closed: a click then changes nothing here. */
  isOpen: () => boolean;
}

/** Registers the handlers of ask-engine's buttons and modal on `chat`. */
export function handleChatAnswers(chat: Chat, context: ChatAnswerContext): void {
  // A failure here (the store unreachable) is reported to the host, not left to the SDK's log.
  chat.onAction(CHAT_ACTION_ID, (event) => onClick(event, context).catch(context.onError));
  // Every submit is looked at: the callback id carries the ask's reference (see modalCallbackId).
  chat.onModalSubmit((event) =>
    onFormSubmit(event, context).catch((error): ModalResponse => {
      context.onError(error);
      return { action: 'errors', errors: { [Object.keys(event.values)[0] ?? '']: WORDS.failed } };
    }),
  );
}

async function onClick(event: ActionEvent, context: ChatAnswerContext): Promise<void> {
  const platform = context.platforms.get(event.adapter.name);
  if (platform === undefined || !context.isOpen()) return;
  const tell = (text: string) =>
    (platform.tellClicker ?? tellClickerEphemerally)(
      event,
      Card({ children: [CardText(platform.escapeText(text))] }),
    ).catch(context.onError);
  const button = readButtonValue(event.value);
  if (button === undefined) return tell(WORDS.unknown);
  const ask = await context.store.findByInteractionId(interactionIdFor(button.reference));
  if (ask === undefined) return tell(WORDS.unknown);
  const person = signedPerson(event.user.userId);
  if (person === undefined) return tell(WORDS.noIdentity);
  if (!(await mayAnswer(context, ask, platform, person))) return tell(WORDS.notAsked);
  if (button.choice.kind === 'form') {
    if (ask.final) return tell(WORDS.settled);
    const fit = modalFit(ask.questions, platform);
    if (!fit.modal) return tell(fit.why);
    await event.openModal(askModal(ask.questions, fit.form, platform, button.reference));
    return;
  }
  const [question] = ask.questions;
  const option = question?.options[button.choice.n - 1];
  if (question === undefined || option === undefined) return tell(WORDS.unknown);
  const answers = [
    { questionId: question.id, response: { kind: 'selection', selections: [option.title] } },
  ] satisfies AskUserQuestionAnswer[];
  const refusal = await respond(context, ask, answers, platform, person);
  if (refusal !== undefined) return tell(refusal);
}

async function onFormSubmit(
  event: ModalSubmitEvent,
  context: ChatAnswerContext,
): Promise<ModalResponse | undefined> {
  const reference = referenceOfModal(event.callbackId, event.privateMetadata);
  // Another part of the host's bot owns this modal: its own handler answers it.
  if (reference === undefined) return undefined;
  const platform = context.platforms.get(event.adapter.name);
  if (platform === undefined || !context.isOpen()) return undefined;
  const ask = await context.store.findByInteractionId(interactionIdFor(reference));
  // A modal's errors sit next to a field: the first one, unless the codec named another.
  const errors = (text: string, field = Object.keys(event.values)[0]): ModalResponse =>
    field === undefined ? { action: 'close' } : { action: 'errors', errors: { [field]: text } };
  if (ask === undefined) return errors(WORDS.unknown);
  const person = signedPerson(event.user.userId);
  if (person === undefined) return errors(WORDS.noIdentity);
  if (!(await mayAnswer(context, ask, platform, person))) return errors(WORDS.notAsked);
  let answers: AskUserQuestionAnswer[];
  try {
    answers = answersOfModal(ask.questions, event.values);
  } catch (error) {
    if (!isUserInteractionError(error, 'INVALID_ANSWER')) throw error;
    const field = (error.data as { field?: unknown } | undefined)?.field;
    return errors(
      error.message,
      typeof field === 'string' && field in event.values ? field : undefined,
    );
  }
  const refusal = await respond(context, ask, answers, platform, person);
  return refusal === undefined ? undefined : errors(refusal);
}

/**
 * Records the response as `person` on `platform`; resolves with what to tell them when it was
 * not recorded (or how many more responses a quorum needs), `undefined` when it decided the ask.
 */
async function respond(
  context: ChatAnswerContext,
  ask: StoredAsk,
  answers: AskUserQuestionAnswer[],
  platform: ChatPlatform,
  person: string,
): Promise<string | undefined> {
  try {
    const receipt = await context.service.respond(ask.askId, answers, {
      by: { recipient: person, channel: platform.name },
    });
    if (receipt.outcome === undefined && receipt.quorum !== undefined) {
      return `Your response is recorded; ${receipt.quorum.needed} more ${receipt.quorum.needed === 1 ? 'is' : 'are'} needed.`;
    }
    return undefined;
  } catch (error) {
    if (isUserInteractionError(error, 'ASK_SETTLED')) return WORDS.settled;
    if (isUserInteractionError(error, 'INVALID_ANSWER')) return error.message;
    if (isUserInteractionError(error, 'INVALID_REQUEST')) {
      const reason = (error.data as { reason?: unknown } | undefined)?.reason;
      if (reason === 'duplicate') return WORDS.duplicate;
      if (reason === 'not-allowed') return WORDS.notAsked;
    }
    context.onError(error);
    return WORDS.failed;
  }
}

/**
 * Whether `person` may answer `ask` from a card on `platform`: with `whoMayAnswer` `anyone`,
 * whoever the platform lets see the card; by default a recipient the ask was sent to on this
 * platform (its audit trail says so: the first card, a reminder or an escalation), whose id is
 * this platform user id, or, for a quorum ask that names who decides (`quorum.from`), anyone:
 * the engine then counts only those it names and refuses (and audits) anyone else. So one card
 * in a team's channel can be decided by the people `from` names.
 */
async function mayAnswer(
  context: ChatAnswerContext,
  ask: StoredAsk,
  platform: ChatPlatform,
  person: string,
): Promise<boolean> {
  if (context.whoMayAnswer === 'anyone') return true;
  let id: string;
  try {
    id = readPersonId(person, 'by.recipient');
  } catch {
    return false;
  }
  for await (const event of context.service.history(ask.askId)) {
    const told = openAskMessageOf(event);
    if (told?.channel === platform.name && samePerson(told.recipient, id)) return true;
  }
  return (await context.service.get(ask.askId))?.quorum?.from !== undefined;
}

/**
 * The platform user id of a verified request, or `undefined` when it names nobody: empty, or
 * the placeholder an adapter puts in place of a missing user (the Google Chat adapter's
 * `"unknown"` for a click without one), which would otherwise be recorded as a person.
 */
function signedPerson(userId: unknown): string | undefined {
  return typeof userId === 'string' && userId !== '' && userId !== 'unknown' ? userId : undefined;
}

/** What a person is told when their click changed nothing: short, and never model text. */
const WORDS = {
  noIdentity: 'This click did not say who made it, so it cannot answer.',
  unknown: 'This button does not belong to an open question.',
  settled: 'This question was already decided; your click changed nothing.',
  notAsked: 'Only the people this question was sent to can answer it.',
  duplicate: 'You already responded to this question; a response counts once.',
  failed: 'Your answer could not be recorded; please try again.',
} as const;
