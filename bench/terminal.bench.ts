/**
 * Terminal provider, typing a search into a 64-option multi-select (80x24), in 21 rounds; in
 * each round the floor and the subject alternate key by key (a round takes ~20 ms):
 * (a) keystroke-to-frame time against a bare timer round trip (`setTimeout(0)`, the least a
 *     host's next step costs), median of the per-round ratios. Goal <= 2x.
 * (b) bytes written per keystroke, the keys right after a resize included, against a full
 *     redraw of the same screen after the same keystroke. Goal <= 0.15x.
 * A resize itself must redraw everything (the terminal may have re-wrapped the old lines); its
 * size is shown for scale.
 */
import type { AskUserQuestion } from '../src/contracts/question.js';
import { createTerminalProvider } from '../src/terminal/terminal-provider.js';
import { FakeTerminal } from '../test/terminal/fake-terminal.js';
import { report } from './ratio.js';

const ROUNDS = 21;
const TYPED = 'feature4';

const question: AskUserQuestion = {
  id: 'q1',
  header: 'Features',
  question: 'Which features should ship in the next release?',
  options: Array.from({ length: 64 }, (_, index) => ({
    title:
      index % 6 === 0
        ? `Feature ${index + 1}: a long title that wraps onto a second line at this terminal width`
        : `Feature ${index + 1}`,
    description: `What feature ${index + 1} does, in one line.`,
  })),
  allowMultiple: true,
  allowFreeform: false,
  allowComment: true,
};

/** One provider asking on an in-memory 80x24 terminal that keeps nothing but what we hook. */
function asking(name: string) {
  const terminal = new FakeTerminal(80, 24);
  terminal.record = false;
  const controller = new AbortController();
  const provider = createTerminalProvider({ settingsPath: false, terminal });
  const done = provider
    .ask({ questions: [question] }, { askId: name, signal: controller.signal, reportProgress() {} })
    .catch(() => {});
  return {
    terminal,
    /** Runs `act` and resolves with the time to and size of the frame it causes. */
    frame(act: () => void): Promise<{ ms: number; bytes: number }> {
      return new Promise((resolve) => {
        let bytes = 0;
        let ms = 0;
        terminal.onWrite = (data) => {
          if (bytes === 0) ms = performance.now() - started;
          bytes += Buffer.byteLength(data);
        };
        const started = performance.now();
        act();
        // A frame is one synchronous write in a microtask; a macrotask later it is all there.
        setImmediate(() => {
          terminal.onWrite = undefined;
          resolve({ ms, bytes });
        });
      });
    },
    async close() {
      controller.abort(new Error('bench done'));
      await done;
    },
  };
}

function timerHop(): Promise<number> {
  const started = performance.now();
  return new Promise((resolve) => setTimeout(() => resolve(performance.now() - started), 0));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: readonly number[]) => quantile(values, 0.5);
function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

const subject = asking('subject');
// The full-redraw floor: the same keys on a second provider whose terminal alternates between
// 80 and 81 columns, so every frame is drawn whole, as a UI without diffing would draw it.
const full = asking('full');
await sleep(50);

interface Round {
  latency: number[];
  floor: number[];
  keyBytes: number[];
  fullBytes: number[];
  resizeBytes: number;
}
const rounds: Round[] = [];
for (let index = 0; index < ROUNDS; index++) {
  const round: Round = { latency: [], floor: [], keyBytes: [], fullBytes: [], resizeBytes: 0 };
  // Each round starts with a resize of the subject, so the keys after it are measured too.
  const width = index % 2 === 0 ? 81 : 80;
  round.resizeBytes = (await subject.frame(() => subject.terminal.resize(width, 24))).bytes;
  const keys = index % 2 === 0 ? [...TYPED] : [...TYPED].map(() => '\x7f');
  for (const key of keys) {
    round.floor.push(await timerHop());
    const typed = await subject.frame(() => subject.terminal.press(key));
    round.latency.push(typed.ms);
    round.keyBytes.push(typed.bytes);
    const redraw = await full.frame(() => {
      full.terminal.columns = full.terminal.columns === 80 ? 81 : 80;
      full.terminal.press(key);
    });
    round.fullBytes.push(redraw.bytes);
  }
  rounds.push(round);
  await sleep(5);
}
await subject.close();
await full.close();

/** The round whose ratio is the median of the per-round ratios, and that ratio's parts. */
function medianRound(parts: (round: Round) => { subject: number; floor: number }) {
  const sorted = rounds.map(parts).sort((a, b) => a.subject / a.floor - b.subject / b.floor);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const allLatency = rounds.flatMap((round) => round.latency);
console.log(
  `keystroke-to-frame over ${allLatency.length} keys in ${ROUNDS} rounds: median ${median(allLatency).toFixed(3)} ms, p99 ${quantile(allLatency, 0.99).toFixed(3)} ms`,
);
const latency = medianRound((round) => ({
  subject: median(round.latency),
  floor: median(round.floor),
}));
report(
  {
    name: 'terminal keystroke-to-frame median vs setTimeout(0), median of per-round ratios',
    goal: 2,
    subjectNs: latency.subject * 1e6,
    floorNs: latency.floor * 1e6,
  },
  'ns',
);
report({
  name: 'terminal keystroke-to-frame p99 vs setTimeout(0) p99, all rounds',
  subjectNs: quantile(allLatency, 0.99) * 1e6,
  floorNs:
    quantile(
      rounds.flatMap((round) => round.floor),
      0.99,
    ) * 1e6,
});
const bytes = medianRound((round) => ({
  subject: sum(round.keyBytes) / round.keyBytes.length,
  floor: sum(round.fullBytes) / round.fullBytes.length,
}));
report(
  {
    name: 'terminal bytes per keystroke (keys after a resize included) vs full redraw',
    goal: 0.15,
    subjectNs: bytes.subject,
    floorNs: bytes.floor,
  },
  'bytes',
);
const resize = medianRound((round) => ({
  subject: round.resizeBytes,
  floor: sum(round.fullBytes) / round.fullBytes.length,
}));
report(
  {
    name: 'terminal bytes of a resize frame vs full redraw',
    subjectNs: resize.subject,
    floorNs: resize.floor,
  },
  'bytes',
);
