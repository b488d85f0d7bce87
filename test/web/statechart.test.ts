/** The diagram must show the machine as it is: any state or transition added, removed or renamed fails here. */
import { toDirectedGraph } from '@xstate/graph';
import { askMachine } from 'ask-engine';
import { describe, expect, it } from 'vitest';
import { layoutStatechart, renderStatechartSvg } from '../../src/web/statechart-svg.js';

/** States and transitions read back from the SVG markup. */
export function readSvg(svg: string) {
  const states = [...svg.matchAll(/<g class="state[^"]*" data-state="([^"]+)">/g)].map(
    (m) => m[1]!,
  );
  const transitions = [
    ...svg.matchAll(
      /<g class="edge[^"]*" data-source="([^"]+)" data-target="([^"]+)" data-events="([^"]+)">/g,
    ),
  ].flatMap((m) => m[3]!.split('|').map((label) => `${m[1]} -> ${m[2]}: ${label.split(' [')[0]}`));
  return { states: states.sort(), transitions: transitions.sort() };
}

/** The same, from @xstate/graph's reading of the machine. */
export function readMachine() {
  const graph = toDirectedGraph(askMachine);
  return {
    states: graph.children.map((node) => node.stateNode.key).sort(),
    transitions: graph.children
      .flatMap((node) =>
        node.edges.map((edge) => `${edge.source.key} -> ${edge.target.key}: ${edge.label.text}`),
      )
      .sort(),
  };
}

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
