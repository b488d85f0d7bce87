/** The memory store's deadline heap: earliest deadline first, ties in arrival order. */
import { describe, expect, it } from 'vitest';
import { DeadlineHeap, type HeapSlot } from '../../src/engine/deadline-heap.js';

interface Item extends HeapSlot {
  name: string;
}

const item = (name: string): Item => ({ name, heapDeadline: 0, heapOrder: 0, heapIndex: -1 });

function drain(heap: DeadlineHeap<Item>, now: number): string[] {
  const names: string[] = [];
  for (let next = heap.popDue(now); next !== undefined; next = heap.popDue(now)) {
    names.push(next.name);
  }
  return names;
}

describe('DeadlineHeap', () => {
  it('hands out due items earliest first, ties in arrival order, and nothing early', () => {
    const heap = new DeadlineHeap<Item>();
    const deadlines = [50, 10, 30, 10, 70, 20, 30, 60];
    deadlines.forEach((deadline, n) => {
      heap.set(item(`i${n}-${deadline}`), deadline);
    });
    expect(heap.popDue(9)).toBeUndefined();
    expect(drain(heap, 30)).toEqual(['i1-10', 'i3-10', 'i5-20', 'i2-30', 'i6-30']);
    expect(heap.size).toBe(3);
    expect(drain(heap, 1_000)).toEqual(['i0-50', 'i7-60', 'i4-70']);
  });

  it('pops only what is strictly before a bound with popBefore (what purge deletes)', () => {
    const heap = new DeadlineHeap<Item>();
    for (const [name, key] of [
      ['b', 20],
      ['a', 10],
      ['c', 30],
    ] as const)
      heap.set(item(name), key);
    expect(heap.popBefore(10)).toBeUndefined();
    expect(heap.popBefore(21)?.name).toBe('a');
    expect(heap.popBefore(21)?.name).toBe('b');
    expect(heap.popBefore(30)).toBeUndefined();
    expect(heap.size).toBe(1);
  });

  it('moves and removes items anywhere in the heap, and restores a popped one in its place', () => {
    const heap = new DeadlineHeap<Item>();
    const items = Array.from({ length: 200 }, (_, n) => item(`i${n}`));
    // A fixed shuffle of deadlines, so the test sees the same heap each run.
    items.forEach((each, n) => {
      heap.set(each, (n * 7919) % 200);
    });
    for (const each of items.filter((_, n) => n % 3 === 0)) heap.delete(each);
    heap.set(items[1] as Item, -5);
    heap.set(items[2] as Item, 1_000);
    const first = heap.popDue(Number.POSITIVE_INFINITY) as Item;
    expect(first.name).toBe('i1');
    heap.restore(first);
    const order = drain(heap, Number.POSITIVE_INFINITY);
    const expected = items
      .filter((_, n) => n % 3 !== 0)
      .map((each) => ({ each, deadline: each.heapDeadline, order: each.heapOrder }))
      .sort((a, b) => a.deadline - b.deadline || a.order - b.order)
      .map(({ each }) => each.name);
    expect(order).toEqual(expected);
    expect(order[0]).toBe('i1');
    expect(order.at(-1)).toBe('i2');
    expect(heap.size).toBe(0);
  });
});
