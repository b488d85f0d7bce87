/** Draws one ask below the cursor and only ever rewrites its own lines, never the screen or scrollback. */
import {
  type Component,
  CURSOR_MARKER,
  type Terminal,
  TUI,
  truncateToWidth,
} from '@mariozechner/pi-tui';

const SYNC_START = '\x1b[?2026h';
const SYNC_END = '\x1b[?2026l';
/** Closes any style a line left open, so it cannot bleed into the next one. */
const LINE_END = '\x1b[0m';

/**
 * pi-tui's `TUI` redraws everything on a resize with `\x1b[2J\x1b[H\x1b[3J`, which wipes the
 * person's scrollback: the agent's whole history above an inline ask. This screen keeps the
 * hardware cursor at the first column of the ask's first line between frames, so:
 * - a keystroke rewrites only the lines that changed, relative to that line;
 * - a resize (when the terminal may have re-wrapped the old lines into any number of rows)
 *   clears from that line to the end of the screen and draws again: whatever the terminal did
 *   to the rows below the cursor, they were the ask's own;
 * - closing replaces the ask with its summary and leaves the cursor on the line after it.
 * Nothing above the first line is ever touched.
 *
 * @example
 * const screen = new InlineScreen(terminal, frame);
 * screen.start((key) => { view.handleInput(key); screen.requestRender(); });
 * screen.close((width) => ['✔ answered']);
 */
export class InlineScreen {
  readonly #terminal: Terminal;
  #root: Component;
  /** The lines on screen, first line = the row the cursor rests on. */
  #lines: string[] = [];
  #width = 0;
  #height = 0;
  #scheduled = false;
  #running = false;

  constructor(terminal: Terminal, root: Component) {
    this.#terminal = terminal;
    this.#root = root;
  }

  /** Shows another component in the same place (the hidden-overlay notice, say). */
  set root(component: Component) {
    this.#root = component;
    this.requestRender();
  }

  /** A pi-tui `TUI` for components that need one (the `Editor`), rendering through this screen. */
  createHost(): TUI {
    return new ScreenHost(this.#terminal, this);
  }

  /** Takes the terminal (raw mode, keys to `onInput`) and draws the first frame at once. */
  start(onInput: (data: string) => void): void {
    this.#running = true;
    this.#terminal.start(onInput, () => this.requestRender());
    this.#terminal.hideCursor();
    this.#draw();
  }

  /** Draws once the current burst of keys is handled (a paste arrives as many keys at once). */
  requestRender(): void {
    if (this.#scheduled || !this.#running) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      if (this.#running) this.#draw();
    });
  }

  /**
   * Replaces the ask with `summary`, leaves the cursor below it and gives the terminal back,
   * synchronously: nothing is drawn after this returns.
   */
  close(summary: (width: number) => readonly string[]): void {
    if (!this.#running) return;
    this.#running = false;
    try {
      const width = this.#terminal.columns;
      const lines = fitWidth(summary(width), width);
      this.#terminal.write(
        `${SYNC_START}\r\x1b[J${lines.map((line) => `${line}\r\n`).join('')}${SYNC_END}`,
      );
    } finally {
      // Whatever happened to the summary, the terminal is given back (raw mode off).
      this.#lines = [];
      this.#terminal.showCursor();
      this.#terminal.stop();
    }
  }

  #draw(): void {
    const width = this.#terminal.columns;
    const height = this.#terminal.rows;
    const lines = fitHeight(fitWidth(this.#root.render(width), width), height);
    const resized = width !== this.#width || height !== this.#height;
    const output = resized ? redraw(lines) : update(this.#lines, lines);
    this.#lines = lines;
    this.#width = width;
    this.#height = height;
    if (output !== '') this.#terminal.write(`${SYNC_START}${output}${SYNC_END}`);
  }
}

/** Lines no wider than `width`, one screen row each, styles closed, cursor markers removed. */
function fitWidth(lines: readonly string[], width: number): string[] {
  const rows: string[] = [];
  for (const line of lines) {
    for (const row of line.split('\n')) {
      const fitted = truncateToWidth(row.replaceAll(CURSOR_MARKER, ''), width, '…');
      rows.push(fitted.includes('\x1b[') ? fitted + LINE_END : fitted);
    }
  }
  return rows;
}

/**
 * Views keep themselves within the height they are given; if a frame is still taller than the
 * terminal, its end is shown as cut, visibly, because the cursor cannot come back up past the
 * top of the screen.
 */
function fitHeight(lines: string[], height: number): string[] {
  if (lines.length <= height || height < 2) return lines;
  const hidden = lines.length - (height - 1);
  return [
    ...lines.slice(0, height - 1),
    `\x1b[2m… ${hidden} more line${hidden === 1 ? '' : 's'}: make the terminal taller${LINE_END}`,
  ];
}

/** Everything again from the first line: after a resize, or for the first frame. */
function redraw(lines: readonly string[]): string {
  return `\r\x1b[J${lines.join('\r\n')}${up(lines.length - 1)}\r`;
}

/** Only the lines that changed; the cursor starts and ends at the first line. */
function update(previous: readonly string[], lines: readonly string[]): string {
  let first = 0;
  while (first < lines.length && first < previous.length && lines[first] === previous[first]) {
    first++;
  }
  if (first === lines.length && first === previous.length) return '';
  // With the same number of lines, unchanged lines at the end need no rewrite either.
  let last = lines.length - 1;
  if (lines.length === previous.length) {
    while (last > first && lines[last] === previous[last]) last--;
  }
  let output = '';
  let row = 0;
  if (first < lines.length) {
    // Rows up to previous.length - 1 are on screen; one past them needs a new line.
    if (first < previous.length || first === 0) output += `${down(first)}\r`;
    else output += `${down(first - 1)}\r\n`;
    // Lines that did not change are stepped over, not written again.
    let skipped = 0;
    for (let index = first; index <= last; index++) {
      if (index > first && index < previous.length && lines[index] === previous[index]) {
        skipped++;
        continue;
      }
      if (index > first) output += skipped > 0 ? `${down(skipped)}\r\n` : '\r\n';
      skipped = 0;
      output += `\x1b[2K${lines[index]}`;
    }
    row = last - skipped;
  }
  if (previous.length > lines.length) {
    // Clear the rows the frame no longer uses, from the first of them down.
    const target = lines.length;
    output += target >= row ? down(target - row) : up(row - target);
    output += '\r\x1b[J';
    row = target;
  }
  return `${output}${up(row)}\r`;
}

function up(rows: number): string {
  return rows > 0 ? `\x1b[${rows}A` : '';
}

function down(rows: number): string {
  return rows > 0 ? `\x1b[${rows}B` : '';
}

/** What pi-tui's `Editor` needs from a TUI: the terminal's size, and a way to ask for a frame. */
class ScreenHost extends TUI {
  readonly #screen: InlineScreen;

  constructor(terminal: Terminal, screen: InlineScreen) {
    super(terminal, false);
    this.#screen = screen;
  }

  override requestRender(): void {
    this.#screen.requestRender();
  }
}
