/// <reference lib="dom.iterable" />
/**
 * The answer page's script (bundled for the browser): live validation with the same codec the
 * server runs, byte counters at the 32 KiB limits, and the answer mode following what the
 * person does. The page works without it; the server checks everything again.
 */
import {
  type AskUserQuestion,
  buildAskUserForm,
  decodeAskUserFormAnswer,
  type UiForm,
  type UiFormAnswer,
  utf8ByteLength,
} from '../../data.js';
import { refusalInWords } from '../refusal-words.js';

const form = document.querySelector<HTMLFormElement>('form.answer-form');
if (form !== null) enhance(form);

/** Live validation, byte counters and answer modes on a rendered answer form. */
export function enhance(form: HTMLFormElement): void {
  const questions = JSON.parse(form.dataset.questions ?? '[]') as AskUserQuestion[];
  const uiForm = buildAskUserForm(questions);
  const status = form.querySelector<HTMLElement>('#live-status')!;

  const textareas = [...form.querySelectorAll<HTMLTextAreaElement>('textarea[data-max-bytes]')];
  for (const textarea of textareas) {
    updateCounter(textarea);
    textarea.addEventListener('input', () => {
      updateCounter(textarea);
      // Typing a comment means answering with the options; typing text, answering in text.
      const mode = textarea.name.endsWith('.comment') ? 'choice' : 'text';
      if (textarea.value !== '') chooseMode(form, textarea.name, mode);
    });
  }
  form.addEventListener('change', (event) => {
    const target = event.target as HTMLInputElement;
    if (target.name.endsWith('.selection')) chooseMode(form, target.name, 'choice');
    markInactive(form);
  });
  form.addEventListener('input', () => {
    markInactive(form);
    showProblem(status, check(form, questions, uiForm));
  });
  form.addEventListener('submit', (event) => {
    // Declining needs no valid answer.
    if ((event as SubmitEvent).submitter?.dataset.kind === 'cancel') return;
    const problem = check(form, questions, uiForm);
    if (problem !== undefined) {
      event.preventDefault();
      showProblem(status, problem);
      status.focus();
      return;
    }
    // Leave out what the chosen modes make irrelevant, so a filled but unused field does not
    // conflict; the fields stay on screen and keep their text.
    for (const field of inactiveControls(form)) field.disabled = true;
    setTimeout(() => {
      for (const field of inactiveControls(form)) field.disabled = false;
    });
  });
  status.tabIndex = -1;
  markInactive(form);
}

/**
 * The codec's verdict on the form as it stands, in the person's words (as the server says it):
 * undefined when it would be accepted.
 */
function check(
  form: HTMLFormElement,
  questions: AskUserQuestion[],
  uiForm: UiForm,
): string | undefined {
  const answer = collect(form);
  try {
    decodeAskUserFormAnswer(questions, answer);
    return undefined;
  } catch (error) {
    return refusalInWords(error, questions, uiForm, answer.values);
  }
}

/** The form's answer as the codec reads it: the fields the chosen modes leave active. */
export function collect(form: HTMLFormElement): UiFormAnswer {
  const inactive = new Set(inactiveControls(form));
  const values: Record<string, string | string[]> = {};
  for (const control of form.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(
    'input, textarea',
  )) {
    if (control.name === 'token' || control.name === '' || inactive.has(control)) continue;
    if (control instanceof HTMLInputElement && control.type === 'checkbox') {
      const list = (values[control.name] as string[] | undefined) ?? [];
      if (control.checked) list.push(control.value);
      if (list.length > 0) values[control.name] = list;
    } else if (control instanceof HTMLInputElement && control.type === 'radio') {
      if (control.checked) values[control.name] = control.value;
    } else values[control.name] = control.value;
  }
  return { action: 'submit', values };
}

function showProblem(status: HTMLElement, problem: string | undefined): void {
  status.textContent = problem ?? 'Ready to send.';
  status.classList.toggle('ready', problem === undefined);
}

function updateCounter(textarea: HTMLTextAreaElement): void {
  const max = Number(textarea.dataset.maxBytes);
  const bytes = utf8ByteLength(textarea.value);
  const counter = document.getElementById(`${textarea.id}.count`);
  const over = bytes > max;
  if (counter !== null) {
    counter.textContent = over
      ? `${bytes} of ${max} bytes: ${bytes - max} bytes too long.`
      : `${bytes} of ${max} bytes.`;
    counter.classList.toggle('over', over);
  }
  textarea.setAttribute('aria-invalid', String(over));
  textarea.setCustomValidity(over ? `At most ${max} bytes; this text has ${bytes}.` : '');
}

/** Checks the question's mode radio `mode` (if the question has one and it offers that mode). */
function chooseMode(form: HTMLFormElement, fieldName: string, mode: 'choice' | 'text'): void {
  const question = fieldName.split('.')[0]!;
  const radio = form.querySelector<HTMLInputElement>(
    `input[type=radio][name="${question}.mode"][value="${mode}"]`,
  );
  if (radio !== null && !radio.checked) {
    radio.checked = true;
    markInactive(form);
  }
}

const ACTIVE_PARTS: Record<string, readonly string[]> = {
  choice: ['selection', 'comment'],
  text: ['text'],
  skip: [],
};

/** Controls that the chosen mode of their question leaves out. */
function inactiveControls(form: HTMLFormElement): (HTMLInputElement | HTMLTextAreaElement)[] {
  const out: (HTMLInputElement | HTMLTextAreaElement)[] = [];
  for (const control of form.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(
    'input, textarea',
  )) {
    const [question, part] = control.name.split('.');
    if (part === undefined || part === 'mode') continue;
    const mode = form.querySelector<HTMLInputElement>(`input[name="${question}.mode"]:checked`);
    if (mode !== null && !ACTIVE_PARTS[mode.value]?.includes(part)) out.push(control);
  }
  return out;
}

function markInactive(form: HTMLFormElement): void {
  const inactive = new Set(inactiveControls(form));
  for (const control of form.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(
    'input, textarea',
  )) {
    const box = control.closest('.field');
    if (box !== null && control.name !== 'token')
      box.classList.toggle('inactive', inactive.has(control));
  }
}
