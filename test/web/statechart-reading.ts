/** Reads states and transitions back from a drawn statechart and from the machine, to compare them. */
import { toDirectedGraph } from '@xstate/graph';
import { askMachine } from 'ask-engine';

/** States and transitions read back from the SVG markup. */
export function readSvg(svg: string) {
  const states = [...svg.matchAll(/<g class="state[^"]*" data-state="([^"]+)">/g)].map(
    (m) => m[1]!,
  );
  const transitions = [
    ...svg.matchAll(
      /<g class="edge[^"]*" data-source="([^"]+)" data-target="([^"]+)" data-transitions="([^"]+)">/g,
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
