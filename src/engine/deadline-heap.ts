/**
 * Open asks by deadline: a binary min-heap ordered by deadline, then by when the ask entered it.
 * Each item remembers its own place, so an ask that settles or changes its deadline leaves or
 * moves in O(log n), and a look at what is due costs one comparison, however many asks are
 * pending. The one heap of the project: the memory store's sweep reads it, and the service's
 * deadline timer (`DeadlineScheduler`) arms for its first item.
 */

/** What the heap keeps of an item: its deadline and its place (-1 when not in the heap). */
export interface HeapSlot {
  heapDeadline: number;
  heapOrder: number;
  heapIndex: number;
}

export class DeadlineHeap<T extends HeapSlot> {
  readonly #items: T[] = [];
  #order = 0;

  get size(): number {
    return this.#items.length;
  }

  /** The earliest deadline in the heap, or `Infinity` when it is empty. */
  get firstDeadline(): number {
    return this.#items[0]?.heapDeadline ?? Number.POSITIVE_INFINITY;
  }

  /** Puts `item` in at `deadline`, or moves it there if it is in already. */
  set(item: T, deadline: number): void {
    if (item.heapIndex >= 0) {
      if (item.heapDeadline === deadline) return;
      this.delete(item);
    }
    item.heapDeadline = deadline;
    item.heapOrder = this.#order++;
    item.heapIndex = this.#items.length;
    this.#items.push(item);
    this.#up(item.heapIndex);
  }

  /** Puts back an item taken out by `popDue`, in its old place in the order. */
  restore(item: T): void {
    if (item.heapIndex >= 0) return;
    item.heapIndex = this.#items.length;
    this.#items.push(item);
    this.#up(item.heapIndex);
  }

  delete(item: T): void {
    const index = item.heapIndex;
    if (index < 0) return;
    const last = this.#items.pop() as T;
    item.heapIndex = -1;
    if (index === this.#items.length) return;
    this.#items[index] = last;
    last.heapIndex = index;
    this.#down(index);
    this.#up(last.heapIndex);
  }

  /** The item with the earliest key if it is before `bound`, taken out; else undefined. */
  popBefore(bound: number): T | undefined {
    const first = this.#items[0];
    if (first === undefined || first.heapDeadline >= bound) return undefined;
    this.delete(first);
    return first;
  }

  /** The item with the earliest deadline if it is at or before `now`, taken out; else undefined. */
  popDue(now: number): T | undefined {
    const first = this.#items[0];
    if (first === undefined || first.heapDeadline > now) return undefined;
    this.delete(first);
    return first;
  }

  #before(a: T, b: T): boolean {
    return (
      a.heapDeadline < b.heapDeadline ||
      (a.heapDeadline === b.heapDeadline && a.heapOrder < b.heapOrder)
    );
  }

  #up(index: number): void {
    const items = this.#items;
    const item = items[index] as T;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = items[parentIndex] as T;
      if (!this.#before(item, parent)) break;
      items[index] = parent;
      parent.heapIndex = index;
      index = parentIndex;
    }
    items[index] = item;
    item.heapIndex = index;
  }

  #down(index: number): void {
    const items = this.#items;
    const length = items.length;
    const item = items[index] as T;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= length) break;
      const right = left + 1;
      const child =
        right < length && this.#before(items[right] as T, items[left] as T) ? right : left;
      if (!this.#before(items[child] as T, item)) break;
      items[index] = items[child] as T;
      (items[index] as T).heapIndex = index;
      index = child;
    }
    items[index] = item;
    item.heapIndex = index;
  }
}
