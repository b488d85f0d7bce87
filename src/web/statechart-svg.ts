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
  // Final states share the bottom row, so the diagram reads top (start) to bottom (outcomes).
  const bottom = Math.max(...layers.values());
  const rows = new Map<number, string[]>();
  for (const key of Object.keys(states)) {
    const layer = states[key]!.type === 'final' ? bottom : (layers.get(key) ?? 0);
    rows.set(layer, [...(rows.get(layer) ?? []), key]);
  }
  const widest = Math.max(...[...rows.values()].map((row) => row.length));
  const width = MARGIN * 2 + widest * SLOT_W;
  const slot = (index: number) => MARGIN + SLOT_W * (index + 0.5);
  const nodes: StatechartNode[] = [];
  for (const [layer, row] of rows) {
    row.forEach((key, index) => {
      nodes.push({
        key,
        final: states[key]!.type === 'final',
        initial: key === initial,
        layer,
        // The first row is centred; narrower rows below take the leftmost slots, so that
        // edges from the top to the bottom row pass beside their states, not through them.
        x: layer === 0 ? width / 2 + (index - (row.length - 1) / 2) * SLOT_W : slot(index),
        y: MARGIN + 20 + layer * ROW_H,
      });
    });
  }
  const height = MARGIN * 2 + 20 + bottom * ROW_H + NODE_H;
  return { nodes, edges: [...edges.values()], width, height };
}

/**
 * The statechart as an SVG element (classes only: the page's CSP allows no inline style).
 * `current`: the states to highlight (an ask's state, or every state some ask is in). Each edge
 * is labelled with its events, once each; its transitions with their guards are in its tooltip
 * (`<title>`) and `data-transitions`. No label covers a state or another label.
 */
export function renderStatechartSvg(chart: Statechart, current: readonly string[] = []): string {
  const at = new Map(chart.nodes.map((node) => [node.key, node]));
  // Labels avoid the states and each other: each takes the first free spot near its edge.
  const taken: Box[] = chart.nodes.map((node) => ({
    x: node.x - NODE_W / 2 - 4,
    y: node.y - 4,
    w: NODE_W + 8,
    h: NODE_H + 8,
  }));
  const bounds = { w: chart.width, h: chart.height };
  const ports = edgePorts(chart, at);
  // A loop's label has one natural spot, beside it: loops take theirs first.
  const edges = [...chart.edges]
    .sort((a, b) => Number(b.source === b.target) - Number(a.source === a.target))
    .map((edge) =>
      renderEdge(edge, at.get(edge.source)!, at.get(edge.target)!, ports.get(edge)!, taken, bounds),
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
  return `<svg class="statechart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${bounds.w} ${Math.ceil(bounds.h)}" role="img" aria-label="Statechart of the ask lifecycle: ${chart.nodes.length} states, ${chart.edges.length} transitions between them"><title>The ask lifecycle</title>${entry}${edges.join('')}${nodes.join('')}</svg>`;
}

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

interface Ports {
  /** Horizontal offsets from the source's and the target's centre. */
  out: number;
  in: number;
}

/** Edge labels are set in an 11 px monospace face (page-style.ts): every character this wide. */
const CHAR_W = 6.8;
const LINE_H = 13;
/** Space inside a label's box around its text, and kept between boxes. */
const PAD = 5;
const GAP = 3;

/** Spreads the edges leaving (and entering) one state along its side, ordered by where they go. */
function edgePorts(chart: Statechart, at: Map<string, StatechartNode>): Map<StatechartEdge, Ports> {
  const ports = new Map<StatechartEdge, Ports>();
  const between = chart.edges.filter((edge) => edge.source !== edge.target);
  const spread = (list: StatechartEdge[], key: (edge: StatechartEdge) => number) => {
    const sorted = [...list].sort((a, b) => key(a) - key(b));
    const step = Math.min(14, (NODE_W - 20) / Math.max(1, sorted.length - 1));
    return new Map(sorted.map((edge, i) => [edge, (i - (sorted.length - 1) / 2) * step]));
  };
  const outs = new Map<string, Map<StatechartEdge, number>>();
  const ins = new Map<string, Map<StatechartEdge, number>>();
  for (const node of chart.nodes) {
    outs.set(
      node.key,
      spread(
        between.filter((e) => e.source === node.key),
        (e) => at.get(e.target)!.x,
      ),
    );
    ins.set(
      node.key,
      spread(
        between.filter((e) => e.target === node.key),
        (e) => at.get(e.source)!.x,
      ),
    );
  }
  for (const edge of chart.edges) {
    ports.set(edge, {
      out: outs.get(edge.source)?.get(edge) ?? 0,
      in: ins.get(edge.target)?.get(edge) ?? 0,
    });
  }
  return ports;
}

function renderEdge(
  edge: StatechartEdge,
  from: StatechartNode,
  to: StatechartNode,
  ports: Ports,
  taken: Box[],
  bounds: { w: number; h: number },
): string {
  const data = `data-source="${escapeHtml(edge.source)}" data-target="${escapeHtml(edge.target)}" data-transitions="${escapeHtml(edge.labels.join('|'))}"`;
  const tooltip = `<title>${escapeHtml(edge.labels.join('\n'))}</title>`;
  // Each event once: the guards that tell its transitions apart are in the tooltip.
  const lines = [...new Set(edge.labels.map((label) => label.split(' [')[0]!))];
  const w = Math.max(...lines.map((line) => line.length)) * CHAR_W + 2 * PAD;
  const h = lines.length * LINE_H + 2 * PAD;
  const label = (anchors: readonly { x: number; y: number }[]) => {
    const box = freeSpot(anchors, w, h, taken, bounds);
    taken.push(box);
    bounds.h = Math.max(bounds.h, box.y + box.h + GAP);
    const cx = box.x + box.w / 2;
    // The first baseline sits an ascent (about 0.93 em) below the padding.
    return `<rect class="label-bg" x="${box.x.toFixed(1)}" y="${box.y.toFixed(1)}" width="${box.w.toFixed(1)}" height="${box.h}" rx="3"/><text x="${cx.toFixed(1)}" y="${(box.y + PAD + 10.5).toFixed(1)}" text-anchor="middle">${lines
      .map(
        (text, i) =>
          `<tspan x="${cx.toFixed(1)}" dy="${i === 0 ? 0 : LINE_H}">${escapeHtml(text)}</tspan>`,
      )
      .join('')}</text>`;
  };
  if (from === to) {
    // A loop on the state's right side, its label beside it.
    const x = from.x + NODE_W / 2;
    const y = from.y + NODE_H / 2;
    return `<g class="edge self" ${data}>${tooltip}<path d="M ${x} ${y - 10} C ${x + 40} ${y - 34}, ${x + 40} ${y + 34}, ${x} ${y + 10}"/>${arrowHead(x, y + 10, Math.PI)}${label([{ x: x + 36 + w / 2, y }])}</g>`;
  }
  const down = to.y > from.y;
  const x1 = from.x + ports.out;
  const y1 = down ? from.y + NODE_H : from.y;
  const x2 = to.x + ports.in;
  const y2 = down ? to.y : to.y + NODE_H;
  const bend = (y2 - y1) / 2;
  const path = `M ${x1} ${y1} C ${x1} ${y1 + bend}, ${x2} ${y2 - bend}, ${x2} ${y2}`;
  const anchors = [0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78, 0.15, 0.85].map((t) => ({
    x: cubic(x1, x1, x2, x2, t),
    y: cubic(y1, y1 + bend, y2 - bend, y2, t),
  }));
  return `<g class="edge" ${data}>${tooltip}<path d="${path}"/>${arrowHead(x2, y2, down ? Math.PI / 2 : -Math.PI / 2)}${label(anchors)}</g>`;
}

/**
 * A `w` by `h` box that overlaps nothing in `taken` and stays inside the drawing's width: centred
 * on an anchor, or beside it, the anchors in the order given; else the nearest free spot around
 * the first anchor, searched outwards (below the drawing at the latest, which then grows).
 */
function freeSpot(
  anchors: readonly { x: number; y: number }[],
  w: number,
  h: number,
  taken: readonly Box[],
  bounds: { w: number; h: number },
): Box {
  const free = (box: Box) =>
    box.x >= 0 &&
    box.y >= 0 &&
    box.x + box.w <= bounds.w &&
    !taken.some((other) => overlaps(box, other));
  for (const { x, y } of anchors) {
    for (const left of [x - w / 2, x + 6, x - w - 6]) {
      const box = { x: left, y: y - h / 2, w, h };
      if (free(box)) return box;
    }
  }
  const { x, y } = anchors[0]!;
  for (let radius = 8; radius <= bounds.w + bounds.h; radius += 8) {
    for (let step = 0; step < 24; step++) {
      const angle = (step / 24) * 2 * Math.PI;
      const box = {
        x: x + Math.cos(angle) * radius - w / 2,
        y: y + Math.sin(angle) * radius - h / 2,
        w,
        h,
      };
      if (free(box)) return box;
    }
  }
  const bottom = Math.max(bounds.h, ...taken.map((box) => box.y + box.h + GAP));
  return { x: Math.max(0, Math.min(x - w / 2, bounds.w - w)), y: bottom, w, h };
}

/** Whether two boxes come closer than `GAP`. */
function overlaps(a: Box, b: Box): boolean {
  return (
    a.x < b.x + b.w + GAP && b.x < a.x + a.w + GAP && a.y < b.y + b.h + GAP && b.y < a.y + a.h + GAP
  );
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
