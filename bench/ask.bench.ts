/**
 * Issue 2 benchmarks: (a) one full ask against a bare Promise + timer ask, (b) heap per pending
 * ask against bare Promise + setTimeout, (c) normalization + validation of a maximal request
 * against JSON.parse of the same payload. Each prints a ratio against its floor.
 */
import type { AskUserQuestionAnswer } from '../src/contracts/answer.js';
import { normalizeAskUserRequest } from '../src/normalize.js';
import { createScriptedProvider } from '../src/providers/scripted-provider.js';
import { createInteractionService } from '../src/service.js';
import { validateAskUserAnswers } from '../src/validate-answers.js';
import { report, timeRatio } from './ratio.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('Run with node --expose-gc (npm run bench does).');

const answer: AskUserQuestionAnswer[] = [
  { questionId: 'q1', response: { kind: 'selection', selections: ['Yes'] } },
];
const request = { question: 'Deploy now?', options: [{ title: 'Yes' }, { title: 'No' }] };

// (a) one full ask, audit on (a subscriber on events$), provider answers, outcome resolves.
{
  const service = createInteractionService();
  let audited = 0;
  service.events$.subscribe(() => {
    audited++;
  });
  service.registerProvider(createScriptedProvider([{ answer }], { loop: true }));
  await timeRatio(
    '(a) full ask vs bare Promise + setTimeout/clearTimeout',
    15,
    () =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve('timeout'), 60_000);
        Promise.resolve(answer).then((value) => {
          clearTimeout(timer);
          resolve(value);
        });
      }),
    () => service.ask(request, { timeoutMs: 60_000 }),
  );
  if (audited === 0) throw new Error('audit events were not delivered');
}

// (b) heap bytes per pending ask, 100,000 pending.
{
  const count = 100_000;
  const heapPer = async (make: () => unknown): Promise<{ bytes: number; keep: unknown[] }> => {
    gc();
    gc();
    const before = process.memoryUsage().heapUsed;
    const keep: unknown[] = new Array(count);
    for (let i = 0; i < count; i++) keep[i] = make();
    await new Promise((resolve) => setTimeout(resolve, 10));
    gc();
    gc();
    return { bytes: (process.memoryUsage().heapUsed - before) / count, keep };
  };
  const timers: ReturnType<typeof setTimeout>[] = [];
  const floor = await heapPer(
    () =>
      new Promise((resolve) => {
        timers.push(setTimeout(() => resolve('timeout'), 600_000));
      }),
  );
  for (const timer of timers) clearTimeout(timer);
  floor.keep.length = 0;

  const service = createInteractionService();
  service.registerProvider(createScriptedProvider([{ hang: true }], { loop: true }));
  const subject = await heapPer(() => service.ask(request, { timeoutMs: 600_000 }));
  report(
    {
      name: '(b) heap per pending ask (100,000 pending)',
      goal: 4,
      subjectNs: subject.bytes,
      floorNs: floor.bytes,
    },
    'bytes',
  );
  await service.drain(new Error('benchmark done'));
  subject.keep.length = 0;
}

// (c) normalization + validation of a maximal request (4 questions x 64 options).
{
  const maximal = {
    questions: Array.from({ length: 4 }, (_, q) => ({
      question: `Which modules should migration ${q + 1} touch?`,
      header: `Step ${q + 1}`,
      allowMultiple: true,
      allowComment: true,
      options: Array.from({ length: 64 }, (_, o) => ({
        title: `module-${q}-${o}`,
        description: `Touches module ${o} of area ${q}, with its tests and fixtures.`,
      })),
    })),
  };
  const payload = JSON.stringify(maximal);
  const answers: AskUserQuestionAnswer[] = maximal.questions.map((question, q) => ({
    questionId: `q${q + 1}`,
    response: {
      kind: 'selection',
      selections: question.options.slice(0, 32).map((option) => option.title.toUpperCase()),
      comment: 'Keep the fixtures.',
    },
  }));
  await timeRatio(
    '(c) normalize + validate a 4x64 request vs JSON.parse of it',
    3,
    () => JSON.parse(payload),
    () => {
      const normalized = normalizeAskUserRequest(JSON.parse(payload));
      if (!normalized.ok) throw normalized.error;
      return validateAskUserAnswers(normalized.value.questions, answers);
    },
  );
}
