/**
 * Terminal provider, typing a search into a 64-option multi-select (80x24):
 * (a) keystroke-to-frame time, median and p99, against a bare timer round trip (pi-tui draws
 *     on a timer, so a `setTimeout(0)` hop is the least any frame can take). Goal <= 10x.
 * (b) bytes written per keystroke by pi-tui's differential rendering, against a full redraw of
 *     the same screen after the same keystroke. Goal <= 0.5x.
 * Keys are spaced 20 ms apart (faster than anyone types) so pi-tui's 16 ms frame throttle
 * never holds a frame back: the figure is the work per frame, not the throttle.
 */
import type { AskUserQuestion } from '../src/contracts/question.js';
import { createTerminalProvider } from '../src/terminal/terminal-provider.js';
import { FakeTerminal } from '../test/terminal/fake-terminal.js';
import { report } from './ratio.js';

/** The tests' in-memory terminal, 80x24, keeping nothing but what the benchmark hooks. */
function recordingTerminal(): FakeTerminal {
  const terminal = new FakeTerminal(80, 24);
  terminal.record = false;
  return terminal;
}

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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const terminal = recordingTerminal();
const provider = createTerminalProvider({ settingsPath: false, terminal });
const controller = new AbortController();
const pending = provider
  .ask(
    { questions: [question] },
    { askId: 'bench', signal: controller.signal, reportProgress() {} },
  )
  .catch(() => {});
await sleep(50);

/** Presses a key and resolves with the frame's latency and size once pi-tui has written it. */
function frameAfter(key: string): Promise<{ ms: number; bytes: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    let bytes = 0;
    terminal.onWrite = (data) => {
      bytes += Buffer.byteLength(data);
      // A frame ends with the synchronized-output close; cursor moves may follow in the same tick.
      if (data.includes('\x1b[?2026l')) {
        const ms = performance.now() - started;
        setImmediate(() => {
          terminal.onWrite = undefined;
          resolve({ ms, bytes });
        });
      }
    };
    terminal.press(key);
  });
}

const typed = 'feature4';
const keys: string[] = [];
for (let round = 0; round < 15; round++) {
  keys.push(...typed.split(''), ...typed.split('').map(() => '\x7f'));
}

const latencies: number[] = [];
const diffBytes: number[] = [];
for (const key of keys) {
  await sleep(20);
  const { ms, bytes } = await frameAfter(key);
  latencies.push(ms);
  diffBytes.push(bytes);
}

// Full redraw of the same screens: replay the keys on a second provider whose terminal
// alternates between 80 and 81 columns. The layout barely changes, but pi-tui can reuse
// nothing and redraws the whole screen: the baseline a UI without diffing pays per key.
const fullBytes: number[] = [];
{
  const full = recordingTerminal();
  const fullProvider = createTerminalProvider({ settingsPath: false, terminal: full });
  const fullController = new AbortController();
  const done = fullProvider
    .ask(
      { questions: [question] },
      { askId: 'full', signal: fullController.signal, reportProgress() {} },
    )
    .catch(() => {});
  await sleep(50);
  for (const key of keys) {
    await sleep(20);
    full.columns = full.columns === 80 ? 81 : 80;
    const frame = await new Promise<number>((resolve) => {
      let bytes = 0;
      full.onWrite = (data) => {
        bytes += Buffer.byteLength(data);
        if (data.includes('\x1b[?2026l')) {
          setImmediate(() => {
            full.onWrite = undefined;
            resolve(bytes);
          });
        }
      };
      full.press(key);
    });
    fullBytes.push(frame);
  }
  fullController.abort(new Error('bench done'));
  await done;
}

// Floor for latency: one timer round trip, measured the same way (20 ms apart).
const floor: number[] = [];
for (let index = 0; index < keys.length; index++) {
  await sleep(20);
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 0));
  floor.push(performance.now() - started);
}

controller.abort(new Error('bench done'));
await pending;

const median = (values: number[]) => quantile(values, 0.5);
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

console.log(
  `keystroke-to-frame over ${keys.length} keys: median ${median(latencies).toFixed(2)} ms, p99 ${quantile(latencies, 0.99).toFixed(2)} ms`,
);
report(
  {
    name: 'terminal keystroke-to-frame median vs setTimeout(0)',
    goal: 10,
    subjectNs: median(latencies) * 1e6,
    floorNs: median(floor) * 1e6,
  },
  'ns',
);
report(
  {
    name: 'terminal keystroke-to-frame p99 vs setTimeout(0) p99',
    goal: 20,
    subjectNs: quantile(latencies, 0.99) * 1e6,
    floorNs: quantile(floor, 0.99) * 1e6,
  },
  'ns',
);
report(
  {
    name: 'terminal bytes per keystroke vs full redraw',
    goal: 0.5,
    subjectNs: sum(diffBytes) / diffBytes.length,
    floorNs: sum(fullBytes) / fullBytes.length,
  },
  'bytes',
);
