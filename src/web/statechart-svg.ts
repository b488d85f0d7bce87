/**
 * The ask machine's statechart as SVG, drawn from the machine's own state nodes (no network,
 * no diagram service): states in rows by their longest distance from the initial state,
 * transitions as curves labelled with their events and guards.
 */
import type { AnyStateMachine } from 'xstate';
import { escapeHtml } from './html.js';

export interface StatechartNode {
  /** The state's key, e.g. `pending`. */
  key: string;
  final: boolean;
  initial: boolean;
  layer: number;
  x: number;
  y: number;
}

export interface StatechartEdge {
  source: string;
  target: string;
  /** Each transition between the two: event type, with ` [guard]` when guarded. */
  labels: string[];
}

export interface Statechart {
  nodes: StatechartNode[];
  edges: StatechartEdge[];
  width: number;
  height: number;
}

const NODE_W = 116;
const NODE_H = 40;
const ROW_H = 170;
const SLOT_W = 190;
const MARGIN = 40;

/** Reads the top-level states and transitions of `machine` and lays them out. */
export function layoutStatechart(machine: AnyStateMachine): Statechart {
  const states = machine.root.states as Record<string, AnyStateMachine['root']>;
  const initial = machine.root.initial?.target?.[0]?.key;
  const edges = new Map<string, StatechartEdge>();
  for (const [key, node] of Object.entries(states)) {
    for (const [eventType, transitions] of node.transitions) {
      for (const transition of transitions) {
        // A transition without a target stays in its state (it only runs actions).
        const targets = transition.target?.map((target) => target.key) ?? [key];
        for (const target of targets) {
          const id = `${key}\u0000${target}`;
          const edge = edges.get(id) ?? { source: key, target, labels: [] };
          const guard = transition.guard;
          const guardName =
            typeof guard === 'object' && guard !== null && 'type' in guard
              ? guard.type
              : typeof guard === 'string'
                ? guard
                : undefined;
          edge.labels.push(guardName === undefined ? eventType : `${eventType} [${guardName}]`);
          edges.set(id, edge);
        }
      }
    }
  }
  const layers = longestPathLayers(Object.keys(states), initial, [...edges.values()]);
  const rows = new Map<number, string[]>();
  for (const key of Object.keys(states)) {
    const layer = layers.get(key) ?? 0;
    rows.set(layer, [...(rows.get(layer) ?? []), key]);
  }
  const widest = Math.max(...[...rows.values()].map((row) => row.length));
  const width = MARGIN * 2 + widest * SLOT_W;
  const nodes: StatechartNode[] = [];
  for (const [layer, row] of rows) {
    row.forEach((key, index) => {
      nodes.push({
        key,
        final: states[key]!.type === 'final',
        initial: key === initial,
        layer,
        x: MARGIN + (width - 2 * MARGIN) * ((index + 0.5) / row.length),
        y: MARGIN + 20 + layer * ROW_H,
      });
    });
  }
  const height = MARGIN * 2 + 20 + (rows.size - 1) * ROW_H + NODE_H;
  return { nodes, edges: [...edges.values()], width, height };
}

/** The statechart as an SVG element (classes only: the page's CSP allows no inline style). */
/** `current`: the states to highlight (an ask's state, or every state some ask is in). */
export function renderStatechartSvg(chart: Statechart, current: readonly string[] = []): string {
  const at = new Map(chart.nodes.map((node) => [node.key, node]));
  const edges = chart.edges.map((edge) =>
    renderEdge(edge, at.get(edge.source)!, at.get(edge.target)!),
  );
  const nodes = chart.nodes.map((node) => {
    const classes = [
      'state',
      node.final ? 'final' : '',
      current.includes(node.key) ? 'current' : '',
    ]
      .filter(Boolean)
      .join(' ');
    return `<g class="${classes}" data-state="${escapeHtml(node.key)}"><rect x="${node.x - NODE_W / 2}" y="${node.y}" width="${NODE_W}" height="${NODE_H}" rx="${node.final ? 4 : 14}"/><text x="${node.x}" y="${node.y + NODE_H / 2 + 5}" text-anchor="middle">${escapeHtml(node.key)}</text></g>`;
  });
  const start = chart.nodes.find((node) => node.initial);
  const entry =
    start === undefined
      ? ''
      : `<g class="edge initial"><path d="M ${start.x} ${start.y - 28} L ${start.x} ${start.y - 6}"/><polygon class="arrow" points="${start.x - 5},${start.y - 8} ${start.x + 5},${start.y - 8} ${start.x},${start.y}"/></g>`;
  return `<svg class="statechart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${chart.width} ${chart.height}" role="img" aria-label="Statechart of the ask lifecycle: ${chart.nodes.length} states, ${chart.edges.length} transitions between them"><title>The ask lifecycle</title>${entry}${edges.join('')}${nodes.join('')}</svg>`;
}

function renderEdge(edge: StatechartEdge, from: StatechartNode, to: StatechartNode): string {
  const data = `data-source="${escapeHtml(edge.source)}" data-target="${escapeHtml(edge.target)}" data-events="${escapeHtml(edge.labels.join('|'))}"`;
  const lines = (x: number, y: number, anchor: string) =>
    `<text x="${x}" y="${y}" text-anchor="${anchor}">${edge.labels
      .map((label, i) => `<tspan x="${x}" dy="${i === 0 ? 0 : 13}">${escapeHtml(label)}</tspan>`)
      .join('')}</text>`;
  if (from === to) {
    // A loop on the node's right side.
    const x = from.x + NODE_W / 2;
    const y = from.y + NODE_H / 2;
    return `<g class="edge self" ${data}><path d="M ${x} ${y - 10} C ${x + 40} ${y - 34}, ${x + 40} ${y + 34}, ${x} ${y + 10}"/>${arrowHead(x, y + 10, Math.PI)}${lines(x + 38, y + 4, 'start')}</g>`;
  }
  const down = to.y > from.y;
  const x1 = from.x;
  const y1 = down ? from.y + NODE_H : from.y;
  const x2 = to.x;
  const y2 = down ? to.y : to.y + NODE_H;
  const bend = (y2 - y1) / 2;
  const path = `M ${x1} ${y1} C ${x1} ${y1 + bend}, ${x2} ${y2 - bend}, ${x2} ${y2}`;
  // Label a third of the way down, where edges leaving one node have already fanned out.
  const t = 0.62;
  const lx = cubic(x1, x1, x2, x2, t);
  const ly = cubic(y1, y1 + bend, y2 - bend, y2, t);
  const anchor = Math.abs(x2 - x1) < 4 ? 'start' : x2 < x1 ? 'end' : 'start';
  const offset = anchor === 'start' ? 6 : -6;
  return `<g class="edge" ${data}><path d="${path}"/>${arrowHead(x2, y2, down ? Math.PI / 2 : -Math.PI / 2)}${lines(lx + offset, ly - (edge.labels.length - 1) * 6, anchor)}</g>`;
}

function arrowHead(x: number, y: number, angle: number): string {
  const point = (a: number, r: number) =>
    `${(x - Math.cos(angle + a) * r).toFixed(1)},${(y - Math.sin(angle + a) * r).toFixed(1)}`;
  return `<polygon class="arrow" points="${x},${y} ${point(0.4, 9)} ${point(-0.4, 9)}"/>`;
}

function cubic(a: number, b: number, c: number, d: number, t: number): number {
  const u = 1 - t;
  return u * u * u * a + 3 * u * u * t * b + 3 * u * t * t * c + t * t * t * d;
}

/** Each state's longest distance from the initial state, ignoring edges that close a cycle. */
function longestPathLayers(
  keys: string[],
  initial: string | undefined,
  edges: StatechartEdge[],
): Map<string, number> {
  const layers = new Map<string, number>();
  const visit = (key: string, depth: number, path: Set<string>) => {
    if ((layers.get(key) ?? -1) >= depth) return;
    layers.set(key, depth);
    path.add(key);
    for (const edge of edges) {
      if (edge.source === key && !path.has(edge.target)) visit(edge.target, depth + 1, path);
    }
    path.delete(key);
  };
  if (initial !== undefined) visit(initial, 0, new Set());
  for (const key of keys) if (!layers.has(key)) visit(key, 0, new Set());
  return layers;
}
