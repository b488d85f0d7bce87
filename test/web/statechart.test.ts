/** The diagram must show the machine as it is: any state or transition added, removed or renamed fails here. */
import { askMachine } from 'ask-engine';
import { describe, expect, it } from 'vitest';
import { layoutStatechart, renderStatechartSvg } from '../../src/web/statechart-svg.js';
import { readMachine, readSvg } from './statechart-reading.js';

describe('the statechart diagram', () => {
  const svg = renderStatechartSvg(layoutStatechart(askMachine), ['deferred']);

  it('has exactly the states and transitions of machines/ask.machine.ts', () => {
    const drawn = readSvg(svg);
    const machine = readMachine();
    expect(machine.transitions.length).toBeGreaterThan(5);
    expect(drawn).toEqual(machine);
  });

  it('marks final states and the highlighted state', () => {
    expect(svg).toMatch(/<g class="state final" data-state="answered">/);
    expect(svg).toMatch(/<g class="state current" data-state="deferred">/);
    expect(svg).toMatch(/<g class="state" data-state="pending">/);
  });

  it('names guards on guarded transitions', () => {
    expect(svg).toContain('deadline [deadlineReached]');
  });

  it('places every state inside the drawing, none on top of another', () => {
    const chart = layoutStatechart(askMachine);
    const spots = new Set(chart.nodes.map((node) => `${Math.round(node.x)},${node.y}`));
    expect(spots.size).toBe(chart.nodes.length);
    for (const node of chart.nodes) {
      expect(node.x).toBeGreaterThan(0);
      expect(node.x).toBeLessThan(chart.width);
      expect(node.y).toBeLessThan(chart.height);
    }
  });
});
