/**
 * The ask as a modal, where the platform has one: the generic form (`buildAskUserForm`) with
 * each choice field a select and each text field a text input, so a typed answer, a comment or
 * a wizard of several questions is answered in the chat; the submitted values are read back by
 * the form codec (`decodeAskUserFormAnswer`), which checks them as the web page's are. What a
 * modal cannot hold within the platform's limits (a multi-select, too many options, labels past
 * the limit) is not offered as a modal: the card's web link takes it.
 */
import {
  CardText,
  Modal,
  type ModalChild,
  type ModalElement,
  Select,
  SelectOption,
  TextInput,
} from 'chat';
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { UiForm } from '../contracts/form.js';
import type { AskUserQuestion } from '../contracts/question.js';
import { buildAskUserForm } from '../form/build-form.js';
import { decodeAskUserFormAnswer } from '../form/decode-answer.js';
import { CHAT_ACTION_ID } from './card-reference.js';
import type { ChatPlatform } from './platform.js';

/** Whether the ask fits the platform's modal, and if not, why. */
export type ModalFit = { modal: true; form: UiForm } | { modal: false; why: string };

/** Whether `questions` can be answered in `platform`'s modal. */
export function modalFit(questions: readonly AskUserQuestion[], platform: ChatPlatform): ModalFit {
  const limits = platform.modalLimits;
  if (!platform.hasModals || limits === undefined) {
    return { modal: false, why: `${platform.name} has no modal for this ask.` };
  }
  const form = buildAskUserForm(questions);
  if (form.fields.length + questions.length > limits.blocks) {
    return { modal: false, why: `This ask needs more fields than a ${platform.name} modal holds.` };
  }
  for (const field of form.fields) {
    if (field.type === 'multi-choice') {
      return { modal: false, why: `A ${platform.name} modal has no field for several choices.` };
    }
    const label = platform.plainText(field.label);
    if (label.length > limits.label) {
      return {
        modal: false,
        why: `A label runs to ${label.length} characters, more than the ${limits.label} a ${platform.name} modal shows.`,
      };
    }
    if (field.type !== 'choice') continue;
    if (field.options.length > limits.options) {
      return {
        modal: false,
        why: `A question has ${field.options.length} options, more than the ${limits.options} a ${platform.name} select holds.`,
      };
    }
    for (const option of field.options) {
      if (platform.plainText(option.label).length > limits.optionLabel) {
        return {
          modal: false,
          why: `An option runs to more than the ${limits.optionLabel} characters a ${platform.name} select shows.`,
        };
      }
    }
  }
  for (const question of questions) {
    if (platform.escapeText(questionText(question)).length > limits.text) {
      return {
        modal: false,
        why: `A question runs to more than the ${limits.text} characters a ${platform.name} modal shows.`,
      };
    }
  }
  return { modal: true, form };
}

/**
 * The modal of an ask that fits (`modalFit`): per question its text, then its form fields. Every
 * field is optional in the platform's eyes: the form codec decides what an answer needs and
 * says what is missing, next to the field.
 */
export function askModal(
  questions: readonly AskUserQuestion[],
  form: UiForm,
  platform: ChatPlatform,
  reference: string,
): ModalElement {
  const typed = platform.modalLimits?.typed;
  const children: ModalChild[] = [];
  for (const [index, question] of questions.entries()) {
    children.push(CardText(platform.escapeText(questionText(question))));
    const prefix = `q${index + 1}.`;
    for (const field of form.fields.filter((f) => f.id.startsWith(prefix))) {
      const label = platform.plainText(field.label);
      if (field.type === 'choice') {
        children.push(
          Select({
            id: field.id,
            label,
            optional: true,
            options: field.options.map((option) =>
              SelectOption({ label: platform.plainText(option.label), value: option.id }),
            ),
          }),
        );
      } else if (field.type === 'text') {
        children.push(
          TextInput({
            id: field.id,
            label,
            multiline: field.multiline,
            optional: true,
            ...(typed === undefined ? {} : { maxLength: typed }),
          }),
        );
      }
    }
  }
  return Modal({
    callbackId: modalCallbackId(reference),
    title: 'Your answer',
    submitLabel: 'Send',
    privateMetadata: reference,
    children,
  });
}

/**
 * The callback id of the modal of the ask `reference` names: the action id and the reference.
 * The reference rides in it as well as in the private metadata, since a platform's adapter may
 * drop the metadata on submit (the Teams adapter's dialog submit does) but keeps the callback id.
 */
export function modalCallbackId(reference: string): string {
  return `${CHAT_ACTION_ID}:${reference}`;
}

/** The reference of the ask a submitted modal answers, or `undefined` when it is not ours. */
export function referenceOfModal(callbackId: string, privateMetadata: string | undefined) {
  if (callbackId.startsWith(`${CHAT_ACTION_ID}:`)) {
    return callbackId.slice(CHAT_ACTION_ID.length + 1);
  }
  // A modal opened before the reference rode in the callback id.
  return callbackId === CHAT_ACTION_ID ? privateMetadata : undefined;
}

/**
 * The answers a submitted modal holds, read by the form codec (`INVALID_ANSWER` naming the
 * field when they are not an answer). Empty fields are left out: the platform sends every
 * input, answered or not, and an inactive field is one the codec allows to be absent.
 */
export function answersOfModal(
  questions: readonly AskUserQuestion[],
  values: Readonly<Record<string, string>>,
): AskUserQuestionAnswer[] {
  const form = buildAskUserForm(questions);
  const submit = form.actions.find((action) => action.kind === 'submit')?.id ?? 'submit';
  const given = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== ''));
  const answers = decodeAskUserFormAnswer(questions, { action: submit, values: given });
  if (answers === null) throw new TypeError('The form codec read a submitted modal as a cancel.');
  return answers;
}

/** A question's text with its context and its options' descriptions, as a modal shows it. */
function questionText(question: AskUserQuestion): string {
  const parts = [question.question];
  if (question.context !== undefined) parts.push(question.context);
  for (const option of question.options) {
    if (option.description !== undefined) parts.push(`${option.title}: ${option.description}`);
  }
  return parts.join('\n\n');
}
