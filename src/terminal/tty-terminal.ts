/** A pi-tui `Terminal` over any pair of TTY streams (the process's, or `/dev/tty`). */
import type { ReadStream, WriteStream } from 'node:tty';
import { StdinBuffer, type Terminal } from '@mariozechner/pi-tui';

/**
 * pi-tui's own `ProcessTerminal` is bound to `process.stdin`/`process.stdout`; the CLI needs the
 * UI on the controlling terminal while stdin carries JSON and stdout carries the result.
 * Keys are split into single sequences by pi-tui's `StdinBuffer`, as pi-tui expects.
 * Node refreshes the size and emits `resize` only for `process.stdout` and `process.stderr`; a
 * stream opened on `/dev/tty` (stdout redirected) would keep its first size forever. So on
 * SIGWINCH such a stream is told to read its size again, which emits its `resize`.
 *
 * @example
 * const terminal = new TtyTerminal(process.stdin, process.stdout);
 */
export class TtyTerminal implements Terminal {
  readonly #input: ReadStream;
  readonly #output: WriteStream;
  #wasRaw = false;
  #buffer: StdinBuffer | undefined;
  #onData: ((data: Buffer | string) => void) | undefined;
  #onResize: (() => void) | undefined;

  constructor(input: ReadStream, output: WriteStream) {
    this.#input = input;
    this.#output = output;
  }

  get kittyProtocolActive(): boolean {
    return false;
  }

  get columns(): number {
    return this.#output.columns || 80;
  }

  get rows(): number {
    return this.#output.rows || 24;
  }

  /** SIGWINCH for a stream Node does not watch itself. */
  readonly #onWindowChange = (): void => {
    // Node's own (undocumented, long-standing) size refresh: reads the size, emits `resize`.
    const refresh = (this.#output as { _refreshSize?: () => void })._refreshSize;
    if (typeof refresh === 'function') refresh.call(this.#output);
    else this.#onResize?.();
  };

  start(onInput: (data: string) => void, onResize: () => void): void {
    this.#wasRaw = this.#input.isRaw;
    this.#input.setRawMode(true);
    this.#input.setEncoding('utf8');
    // How long a lone ESC waits for the rest of a sequence (alt+o is ESC then o). A busy machine
    // or a remote terminal can split them by more than pi-tui's 10 ms, turning alt+o into esc;
    // 50 ms is vim's usual ttimeoutlen, and esc alone still feels immediate.
    const buffer = new StdinBuffer({ timeout: 50 });
    buffer.on('data', onInput);
    buffer.on('paste', (content) => onInput(`\x1b[200~${content}\x1b[201~`));
    this.#buffer = buffer;
    this.#onData = (data) => buffer.process(data);
    this.#input.on('data', this.#onData);
    this.#input.resume();
    this.#onResize = onResize;
    this.#output.on('resize', onResize);
    if (this.#watchesOwnSize()) process.on('SIGWINCH', this.#onWindowChange);
    this.write('\x1b[?2004h'); // bracketed paste, so a pasted newline does not submit
  }

  stop(): void {
    this.write('\x1b[?2004l');
    if (this.#onData !== undefined) this.#input.off('data', this.#onData);
    if (this.#onResize !== undefined) {
      this.#output.off('resize', this.#onResize);
      process.off('SIGWINCH', this.#onWindowChange);
    }
    this.#buffer?.destroy();
    this.#buffer = undefined;
    this.#onData = undefined;
    this.#onResize = undefined;
    // Paused so keys typed after the ask are left for whoever reads the terminal next.
    this.#input.pause();
    this.#input.setRawMode(this.#wasRaw);
  }

  #watchesOwnSize(): boolean {
    return (
      process.platform !== 'win32' &&
      this.#output !== (process.stdout as unknown) &&
      this.#output !== (process.stderr as unknown)
    );
  }

  async drainInput(): Promise<void> {}

  write(data: string): void {
    this.#output.write(data);
  }

  moveBy(lines: number): void {
    if (lines > 0) this.write(`\x1b[${lines}B`);
    else if (lines < 0) this.write(`\x1b[${-lines}A`);
  }

  hideCursor(): void {
    this.write('\x1b[?25l');
  }

  showCursor(): void {
    this.write('\x1b[?25h');
  }

  clearLine(): void {
    this.write('\x1b[K');
  }

  clearFromCursor(): void {
    this.write('\x1b[J');
  }

  clearScreen(): void {
    this.write('\x1b[2J\x1b[H');
  }

  setTitle(): void {
    // A question must not rename the person's terminal window.
  }

  setProgress(): void {}
}
