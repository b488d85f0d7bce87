/** The few SGR styles the terminal provider uses, applied to already-escaped text only. */

// NO_COLOR (no-color.org) turns colours off; bold, dim and inverse stay because they carry
// meaning (the active row, secondary text) on monochrome terminals too.
const colour = process.env.NO_COLOR === undefined || process.env.NO_COLOR === '';

function sgr(open: string, close: string, enabled = true): (text: string) => string {
  return enabled ? (text) => `\x1b[${open}m${text}\x1b[${close}m` : (text) => text;
}

export const style = {
  bold: sgr('1', '22'),
  dim: sgr('2', '22'),
  inverse: sgr('7', '27'),
  accent: sgr('36', '39', colour),
  good: sgr('32', '39', colour),
  warn: sgr('33', '39', colour),
  bad: sgr('31', '39', colour),
};
