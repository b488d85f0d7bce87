/** Fits variable-height rows into a bounded number of screen lines around the active row. */

export interface ViewportWindow {
  /** First row shown. */
  top: number;
  /** One past the last row shown. */
  end: number;
  /** Rows hidden above and below, for the "↑ n more" / "↓ n more" indicators. */
  above: number;
  below: number;
}

/**
 * Chooses which rows to show in `budget` lines so the active row is fully visible, moving the
 * previous `top` as little as possible (no jumping while the person scrolls). When not every
 * row fits, two lines of the budget are kept for the indicators.
 *
 * @example
 * fitViewport([1, 1, 1, 1, 1], 3, 0, 4) // => { top: 2, end: 4, above: 2, below: 1 }
 */
export function fitViewport(
  heights: readonly number[],
  active: number,
  previousTop: number,
  budget: number,
): ViewportWindow {
  const count = heights.length;
  const total = heights.reduce((sum, height) => sum + height, 0);
  if (total <= budget) return { top: 0, end: count, above: 0, below: 0 };
  const room = Math.max(1, budget - 2);
  const target = Math.min(Math.max(active, 0), count - 1);
  let top = Math.min(Math.max(previousTop, 0), target);
  // Scroll down until the active row ends inside the room.
  while (top < target && sum(heights, top, target + 1) > room) top++;
  let end = top;
  let used = 0;
  while (end < count && (end === top || used + heights[end]! <= room)) {
    used += heights[end]!;
    end++;
  }
  // Fill space left at the bottom by scrolling back up, so the list never shows a gap.
  while (top > 0 && used + heights[top - 1]! <= room && end === count) {
    top--;
    used += heights[top]!;
  }
  return { top, end, above: top, below: count - end };
}

function sum(heights: readonly number[], from: number, to: number): number {
  let total = 0;
  for (let index = from; index < to; index++) total += heights[index]!;
  return total;
}
