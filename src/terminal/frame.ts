/** The two display modes' frames: inline separators and the overlay's four-edge box. */
import { type Component, truncateToWidth, visibleWidth } from '@mariozechner/pi-tui';
import { style } from './style.js';

/** A labelled frame around one body component; the display modes differ only in drawing. */
abstract class Frame implements Component {
  protected readonly body: Component;
  protected readonly label: string;

  constructor(body: Component, label: string) {
    this.body = body;
    this.label = label;
  }

  invalidate(): void {
    this.body.invalidate();
  }

  abstract render(width: number): string[];
}

/**
 * `inline`: the body between two full-width horizontal separators, the top one labelled.
 *
 * @example
 * new InlineFrame(view, 'ask_user').render(40)[0] // => '── ask_user ───────…'
 */
export class InlineFrame extends Frame {
  render(width: number): string[] {
    const label = truncateToWidth(`── ${this.label} `, width, '');
    const top = style.dim(label + '─'.repeat(Math.max(0, width - visibleWidth(label))));
    return [top, ...this.body.render(width), style.dim('─'.repeat(width))];
  }
}

/**
 * `overlay`: the body inside a complete box (corners, both sides), the top edge labelled.
 *
 * @example
 * new OverlayFrame(view, 'ask_user').render(40).at(-1) // => '└──────…┘'
 */
export class OverlayFrame extends Frame {
  render(width: number): string[] {
    const inner = Math.max(1, width - 4);
    const label = truncateToWidth(`─ ${this.label} `, Math.max(0, width - 2), '');
    const top = style.accent(
      `┌${label}${'─'.repeat(Math.max(0, width - 2 - visibleWidth(label)))}┐`,
    );
    const side = style.accent('│');
    const body = this.body.render(inner).map((line) => {
      const fitted = truncateToWidth(line, inner);
      return `${side} ${fitted}${' '.repeat(Math.max(0, inner - visibleWidth(fitted)))} ${side}`;
    });
    return [top, ...body, style.accent(`└${'─'.repeat(Math.max(0, width - 2))}┘`)];
  }
}

/** Lines that replace the UI in place: the hidden-overlay notice, the closing summary. */
export class StaticLines implements Component {
  lines: string[] = [];

  invalidate(): void {}

  render(width: number): string[] {
    return this.lines.map((line) => truncateToWidth(line, width));
  }
}
