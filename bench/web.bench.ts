/**
 * The web answer page against floors measured in the same run:
 * (a) render the form page + read and decode a posted answer, against a JSON round trip of the
 *     same form and answer; goal <= 3x.
 * (b) sign + verify a link token, against the bare HMAC-SHA256 work the same check needs (one
 *     MAC to sign, one MAC and a constant-time compare to verify); goal <= 2x.
 * (c) submit on loopback -> the asking caller's outcome, against a bare node:http POST round
 *     trip of the same body; the median submit time is printed in ms.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AskUserQuestion, UiFormAnswer } from '../src/data.js';
import { buildAskUserForm } from '../src/form/build-form.js';
import { decodeAskUserFormAnswer } from '../src/form/decode-answer.js';
import { createInteractionService } from '../src/index.js';
import { renderAnswerPage } from '../src/web/answer-page.js';
import { createWebAnswerServer } from '../src/web/answer-server.js';
import { createLinkTokenSigner } from '../src/web/link-token.js';
import { createWebProvider } from '../src/web/web-provider.js';
import { timeRatio } from './ratio.js';
import { record } from './record.js';

// A realistic wizard: four questions of eight described options, typed text and comments.
const questions: AskUserQuestion[] = [1, 2, 3, 4].map((n) => ({
  id: `q${n}`,
  question: `Which parts should step ${n} of the **migration** touch?`,
  header: `Step ${n}`,
  context: `Plan for step ${n}:\n1. <b>copy</b> rows\n2. switch reads`,
  options: Array.from({ length: 8 }, (_, i) => ({
    title: `Component ${n}.${i + 1}`,
    description: `Moves module ${i + 1} to the new store`,
  })),
  allowMultiple: n % 2 === 0,
  allowFreeform: true,
  allowComment: true,
}));
const posted = new URLSearchParams([
  ['token', 'x'.repeat(52)],
  ['action', 'submit'],
  ['q1.mode', 'choice'],
  ['q1.selection', 'option3'],
  ['q1.comment', 'Only after the backup; é 😀'],
  ['q2.mode', 'choice'],
  ['q2.selection', 'option1'],
  ['q2.selection', 'option4'],
  ['q3.mode', 'text'],
  ['q3.text', 'Leave step 3 for next week.'],
  ['q4.mode', 'skip'],
]).toString();
const form = buildAskUserForm(questions);
const formJson = JSON.stringify(form);
const answerJson = JSON.stringify({
  action: 'submit',
  values: Object.fromEntries(new URLSearchParams(posted)),
});

await timeRatio(
  '(a) form page render + posted answer decode vs JSON round trip of form and answer',
  3,
  () => [JSON.parse(JSON.stringify(JSON.parse(formJson))), JSON.parse(answerJson)],
  () => {
    const built = buildAskUserForm(questions);
    const html = renderAnswerPage({ askId: 'ask-1', questions, form: built, token: 't' });
    const body = new URLSearchParams(posted);
    const values: Record<string, string | string[]> = {};
    for (const key of new Set(body.keys())) {
      if (key === 'token' || key === 'action') continue;
      const all = body.getAll(key);
      values[key] = key === 'q2.selection' ? all : all[0]!;
    }
    const answer: UiFormAnswer = { action: 'submit', values };
    return [html.length, decodeAskUserFormAnswer(questions, answer)];
  },
);

const secret = randomBytes(32);
const signer = createLinkTokenSigner(secret);
const macInput = 'ask-engine/web answer v1\n12:ask-12345678\n1800000000000';
const now = 1_700_000_000_000;
await timeRatio(
  '(b) link token sign + verify vs bare HMAC-SHA256 sign + verify',
  2,
  () => {
    const mac = createHmac('sha256', secret).update(macInput).digest();
    const again = createHmac('sha256', secret).update(macInput).digest();
    return timingSafeEqual(mac, again);
  },
  () => signer.verify('ask-12345678', signer.sign('ask-12345678', 1_800_000_000_000), now).ok,
);

// (c) Loopback: a pending ask, its page's answer posted, until the caller's promise resolves.
const service = createInteractionService();
const server = await createWebAnswerServer({ service, secret });
const links: string[] = [];
let linkReady: (() => void) | undefined;
service.registerProvider(
  createWebProvider(server, {
    mode: 'pending',
    notify: (link) => {
      links.push(link);
      linkReady?.();
    },
  }),
);
const bare = createServer((request, response) => {
  request.resume();
  request.on('end', () => response.end('ok'));
});
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
const answerBody = (link: string) =>
  new URLSearchParams([
    ['token', new URL(link).searchParams.get('t')!],
    ['action', 'submit'],
    ['q1.selection', 'option1'],
  ]).toString();
const post = (url: string, body: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  }).then((response) => response.text());
const submitTimes: number[] = [];
const submit = await timeRatio(
  '(c) submit on loopback -> caller outcome vs bare node:http POST round trip',
  undefined,
  () => post(bareUrl, answerBody(links[0] ?? 'http://x/?t=t')),
  async () => {
    const ready = new Promise<void>((resolve) => {
      linkReady = resolve;
    });
    const outcome = service.ask({ question: 'Deploy now?', options: ['Yes', 'No'] });
    await ready;
    const link = links.at(-1)!;
    const started = performance.now();
    await post(link.split('?')[0]!, answerBody(link));
    const result = await outcome;
    submitTimes.push(performance.now() - started);
    if (result.status !== 'answered') throw new Error(`expected answered, got ${result.status}`);
    return result;
  },
);
submitTimes.sort((a, b) => a - b);
record({
  name: '(c) web submit -> outcome on loopback, median',
  value: submitTimes[Math.floor(submitTimes.length / 2)]!,
  unit: 'ms',
  goal: 3,
  detail: `over ${submitTimes.length} submits`,
});
await server.close();
await service.close();
bare.close();
if (!(submit.ratio > 0)) throw new Error('the web submit round trip measured nothing');
