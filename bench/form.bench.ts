/**
 * The ask_user form codec on a maximal form (4 questions x 64 options, hint data just under
 * 128 KiB): encode + decode + validate, as a ratio against JSON.parse + JSON.stringify of the
 * same payload in the same run.
 */
import {
  type AskUserQuestion,
  type AskUserQuestionAnswer,
  buildAskUserForm,
  decodeAskUserFormAnswer,
  encodeAskUserFormAnswer,
  MAX_FORM_HINT_BYTES,
  type UiForm,
  type UiFormAnswer,
  utf8ByteLength,
} from '../src/data.js';
import { timeRatio } from './ratio.js';

const GOAL = 3;

function maximalQuestions(padding: number): AskUserQuestion[] {
  return [1, 2, 3, 4].map((n) => ({
    id: `q${n}`,
    question: `Which components should step ${n} of the *migration* touch?`,
    header: `Step ${n}`,
    context: `Plan for step ${n}: <details>, **notes** and \`code\`. ${'é'.repeat(padding)}`,
    options: Array.from({ length: 64 }, (_, i) => ({
      title: `Component ${n}.${i + 1}`,
      description: `Moves [module ${i + 1}](https://e.example/${i}) to the new store; 😀`.repeat(3),
    })),
    allowMultiple: true,
    allowFreeform: true,
    allowComment: true,
  }));
}

// Grow the context until the hint data is as close under the limit as whole characters allow.
let padding = 0;
const hintBytes = (p: number) => utf8ByteLength(JSON.stringify({ questions: maximalQuestions(p) }));
const step = Math.floor((MAX_FORM_HINT_BYTES - hintBytes(0)) / (4 * 2));
padding = Math.max(0, step);
while (hintBytes(padding + 1) <= MAX_FORM_HINT_BYTES) padding++;
const questions = maximalQuestions(padding);
const form = buildAskUserForm(questions);
const formJson = JSON.stringify(form);

const answers: AskUserQuestionAnswer[] = [
  {
    questionId: 'q1',
    response: {
      kind: 'selection',
      selections: questions[0]!.options.map((option) => option.title),
      comment: 'All of them, in this order.',
    },
  },
  {
    questionId: 'q2',
    response: { kind: 'freeform', text: 'Only the ones already on the new store.' },
  },
  {
    questionId: 'q3',
    response: {
      kind: 'selection',
      selections: questions[2]!.options.filter((_, i) => i % 2 === 0).map((o) => o.title),
    },
  },
  { questionId: 'q4', response: null },
];
const answer = encodeAskUserFormAnswer(form, answers);
const answerJson = JSON.stringify(answer);

console.log(
  `hint data ${hintBytes(padding)} bytes (limit ${MAX_FORM_HINT_BYTES}), form JSON ${formJson.length} chars, answer JSON ${answerJson.length} chars`,
);

// Cold: what a client and the engine do per ask. The form arrives as JSON (a new object, so no
// per-form cache helps), the client encodes the person's answers, the engine decodes and
// validates. Floor: the same payload through JSON alone.
await timeRatio(
  'form codec, form arriving as JSON (parse + encode + decode + validate)',
  GOAL,
  () => {
    const received = JSON.parse(formJson) as UiForm;
    return [JSON.stringify(received), JSON.parse(JSON.stringify(answer))];
  },
  () => {
    const received = JSON.parse(formJson) as UiForm;
    const encoded = encodeAskUserFormAnswer(received, answers);
    return decodeAskUserFormAnswer(questions, JSON.parse(JSON.stringify(encoded)) as UiFormAnswer);
  },
);

// Warm: encoding again for a form already read (a client re-validating as the person types).
// Floor: the answer through JSON alone.
await timeRatio(
  'form codec, form already read (encode + decode + validate)',
  GOAL,
  () => JSON.parse(JSON.stringify(answer)),
  () => decodeAskUserFormAnswer(questions, encodeAskUserFormAnswer(form, answers)),
);
