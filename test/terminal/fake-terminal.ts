/** An in-memory pi-tui `Terminal`: records what is written, lets a test type keys. */
import type { Terminal } from '@mariozechner/pi-tui';

export class FakeTerminal implements Terminal {
  written = '';
  writes: string[] = [];
  started = false;
  stopped = false;
  #onInput: ((data: string) => void) | undefined;
  #onResize: (() => void) | undefined;

  constructor(
    public columns = 100,
    public rows = 30,
  ) {}

  get kittyProtocolActive(): boolean {
    return false;
  }

  start(onInput: (data: string) => void, onResize: () => void): void {
    this.started = true;
    this.#onInput = onInput;
    this.#onResize = onResize;
  }

  stop(): void {
    this.stopped = true;
    this.#onInput = undefined;
    this.#onResize = undefined;
  }

  /** Changes the size and tells the UI, as a terminal's SIGWINCH would. */
  resize(columns: number, rows: number): void {
    this.columns = columns;
    this.rows = rows;
    this.#onResize?.();
  }

  /** Sends keys as a terminal would, one sequence per call. */
  press(...keys: string[]): void {
    for (const key of keys) this.#onInput?.(key);
  }

  async drainInput(): Promise<void> {}

  /** Called with every write; set `record` false to keep nothing (benchmarks). */
  onWrite: ((data: string) => void) | undefined;
  record = true;

  write(data: string): void {
    this.onWrite?.(data);
    if (!this.record) return;
    this.written += data;
    this.writes.push(data);
  }

  moveBy(): void {}
  hideCursor(): void {}
  showCursor(): void {}
  clearLine(): void {}
  clearFromCursor(): void {}
  clearScreen(): void {}
  setTitle(): void {}
  setProgress(): void {}
}

export const KEY = {
  enter: '\r',
  escape: '\x1b',
  up: '\x1b[A',
  down: '\x1b[B',
  tab: '\t',
  shiftTab: '\x1b[Z',
  space: ' ',
  backspace: '\x7f',
  ctrlC: '\x03',
  ctrlE: '\x05',
  ctrlG: '\x07',
  altO: '\x1bo',
  altEnter: '\x1b\r',
} as const;

/** Strips SGR and other CSI sequences, for asserting on what a person would read. */
export function plain(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing escape sequences is the point.
  return text.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b_[^\x07]*\x07/g, '');
}
