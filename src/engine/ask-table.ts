/**
 * The ask machine compiled to a transition table, for the hot path: built once, when this
 * module loads, from `askMachine` itself (its states, transitions, named guards, named `assign`
 * actions, exit and entry actions, tags and output), never written by hand. A step reads and
 * writes the persisted snapshot (plain data, as the store keeps it) directly, so no XState
 * snapshot is restored or built per event. XState stays the model, the inspector's view and
 * the oracle: test/machines/ask-table.test.ts walks the model-based paths through both and
 * requires the same state, context and output.
 *
 * What the table cannot express (an inline or combined guard, an action other than a named
 * `assign`, several targets, eventless or delayed transitions) fails at load, naming it, so a
 * change to the machine can never run differently here than in XState.
 */
import {
  type AskMachineContext,
  type AskMachineEvent,
  type AskMachineInput,
  askMachine,
  createAskContext,
} from '../../machines/ask.machine.js';
import type { PersistedAskSnapshot } from '../stores/ask-store.js';
import type { AskState } from './audit.js';

/** A persisted snapshot, typed: what an ask keeps between events (as the store has it). */
export type PersistedAskState = PersistedAskSnapshot & {
  status: 'active' | 'done';
  value: AskState;
  context: AskMachineContext;
  output?: unknown;
};

interface Args {
  context: AskMachineContext;
  event: AskMachineEvent;
}
type Params = ((args: Args) => unknown) | unknown;

interface CompiledGuard {
  name: string;
  check: (args: Args, params: unknown) => boolean;
  params: Params;
}

interface CompiledAction {
  name: string;
  assign: (args: Args, params: unknown) => Partial<AskMachineContext>;
  params: Params;
}

interface CompiledTransition {
  guard: CompiledGuard | undefined;
  /** In XState's order: the source's exit actions (when it is left), the transition's, the target's entry actions. */
  actions: CompiledAction[];
  /** The state after the transition (the source itself for a targetless one). */
  target: AskState;
  final: boolean;
}

interface StateNodeLike {
  key: string;
  type: string;
  states: Record<string, unknown>;
  tags: string[];
  entry: unknown[];
  exit: unknown[];
  always?: unknown[];
  after?: unknown[];
  invoke?: unknown[];
  transitions: Map<string, TransitionLike[]>;
}

interface TransitionLike {
  guard?: unknown;
  actions: unknown[];
  target?: StateNodeLike[];
  reenter: boolean;
}

interface Implementations {
  guards: Record<string, (args: Args, params: unknown) => boolean>;
  actions: Record<string, { type?: string; assignment?: unknown }>;
}

/** What `compileAskTable` reads of a machine: XState's own `StateMachine` fits. */
export interface CompilableMachine {
  implementations: unknown;
  root: { states: unknown; transitions: Map<string, unknown> };
  config: { initial?: unknown; output?: unknown };
}

/** The compiled machine: each state's transitions by event, its tag, the initial state, the output. */
export interface CompiledAskTable {
  transitions: Record<string, Record<string, CompiledTransition[]>>;
  delivering: Record<string, boolean>;
  initial: AskState;
  output: (args: Args) => unknown;
}

const EMPTY = Object.freeze({});

function compileGuard(
  implementations: Implementations,
  guard: unknown,
  where: string,
): CompiledGuard | undefined {
  if (guard === undefined) return undefined;
  const { type, params } = (typeof guard === 'string' ? { type: guard } : guard) as {
    type?: unknown;
    params?: Params;
  };
  const check = typeof type === 'string' ? implementations.guards[type] : undefined;
  if (typeof type !== 'string' || typeof check !== 'function') {
    throw new Error(`The ask table compiles named guards only; ${where} has another kind.`);
  }
  return { name: type, check, params };
}

function compileAction(
  implementations: Implementations,
  action: unknown,
  where: string,
): CompiledAction {
  const { type, params } = (typeof action === 'string' ? { type: action } : action) as {
    type?: unknown;
    params?: Params;
  };
  const implementation = typeof type === 'string' ? implementations.actions[type] : undefined;
  const assignment = implementation?.assignment;
  if (typeof type !== 'string' || implementation?.type !== 'xstate.assign' || !assignment) {
    throw new Error(
      `The ask table compiles named assign actions only; ${where} runs ${String(type)}.`,
    );
  }
  const assign =
    typeof assignment === 'function'
      ? (assignment as CompiledAction['assign'])
      : assignProperties(assignment as Record<string, unknown>);
  return { name: type, assign, params };
}

/** An `assign({ key: value or (args, params) => value })`: its entries read once, at load. */
function assignProperties(assignment: Record<string, unknown>): CompiledAction['assign'] {
  const entries = Object.entries(assignment);
  return (args, actionParams) => {
    const partial: Record<string, unknown> = {};
    for (const [key, value] of entries) {
      partial[key] =
        typeof value === 'function'
          ? (value as (args: Args, params: unknown) => unknown)(args, actionParams)
          : value;
    }
    return partial as Partial<AskMachineContext>;
  };
}

function compileState(
  implementations: Implementations,
  node: StateNodeLike,
): Record<string, CompiledTransition[]> {
  if (Object.keys(node.states).length > 0 || (node.type !== 'atomic' && node.type !== 'final')) {
    throw new Error(
      `The ask table compiles flat machines only; state ${node.key} is a ${node.type} state with child states.`,
    );
  }
  if ((node.always?.length ?? 0) > 0 || (node.after?.length ?? 0) > 0) {
    throw new Error(
      `The ask table has no eventless or delayed transitions; state ${node.key} has.`,
    );
  }
  if ((node.invoke?.length ?? 0) > 0) {
    throw new Error(`The ask table has no invoked actors; state ${node.key} invokes one.`);
  }
  const byEvent: Record<string, CompiledTransition[]> = Object.create(null);
  for (const [eventType, definitions] of node.transitions) {
    if (eventType === '*' || eventType.endsWith('.*')) {
      throw new Error(
        `The ask table takes named events only; state ${node.key} has the wildcard ${JSON.stringify(eventType)}.`,
      );
    }
    byEvent[eventType] = definitions.map((definition, index) => {
      const where = `state ${node.key}, event ${eventType}, transition ${index + 1}`;
      if ((definition.target?.length ?? 0) > 1) {
        throw new Error(`The ask table takes one target per transition; ${where} has several.`);
      }
      const targetNode = definition.target?.[0];
      const leaves = targetNode !== undefined && (targetNode !== node || definition.reenter);
      const actions = [
        ...(leaves ? node.exit : []),
        ...definition.actions,
        ...(leaves ? targetNode.entry : []),
      ].map((action) => compileAction(implementations, action, where));
      const target = (targetNode?.key ?? node.key) as AskState;
      return {
        guard: compileGuard(implementations, definition.guard, where),
        actions,
        target,
        final: (targetNode ?? node).type === 'final',
      };
    });
  }
  return byEvent;
}

/**
 * Compiles `machine` (the ask machine, or in tests a variant of it) to a table, or throws an
 * error naming the first construct the table cannot run as XState would: child states, a
 * wildcard event, a transition on the machine's root, entry actions on the initial state (a new
 * ask's snapshot is built without running them), and the kinds `compileState` refuses.
 */
export function compileAskTable(machine: CompilableMachine): CompiledAskTable {
  const implementations = machine.implementations as Implementations;
  const states = machine.root.states as Record<string, StateNodeLike>;
  if (machine.root.transitions.size > 0) {
    const events = [...machine.root.transitions.keys()].join(', ');
    throw new Error(
      `The ask table takes transitions on states only; the machine's root has some (${events}).`,
    );
  }
  const initial = machine.config.initial as AskState;
  if ((states[initial]?.entry.length ?? 0) > 0) {
    throw new Error(
      `The ask table builds a new ask without running entry actions; the initial state ${initial} has some.`,
    );
  }
  const transitions: CompiledAskTable['transitions'] = Object.create(null);
  const delivering: CompiledAskTable['delivering'] = Object.create(null);
  for (const [key, node] of Object.entries(states)) {
    transitions[key] = compileState(implementations, node);
    delivering[key] = node.tags.includes('delivering');
  }
  return {
    transitions,
    delivering,
    initial,
    output: machine.config.output as (args: Args) => unknown,
  };
}

const COMPILED = compileAskTable(askMachine as unknown as CompilableMachine);
const TABLE = COMPILED.transitions;
const DELIVERING = COMPILED.delivering;
const INITIAL = COMPILED.initial;
const output = COMPILED.output;

function paramsOf(params: Params, args: Args): unknown {
  return typeof params === 'function' ? (params as (args: Args) => unknown)(args) : params;
}

/** The persisted form of a state: the fields XState's `getPersistedSnapshot` gives this machine. */
function persisted(
  status: 'active' | 'done',
  value: AskState,
  context: AskMachineContext,
  result: unknown,
): PersistedAskState {
  const state: Record<string, unknown> = {
    status,
    value,
    historyValue: EMPTY,
    context,
    children: EMPTY,
  };
  // Only present when set, as JSON would have it.
  if (result !== undefined) state.output = result;
  return state as PersistedAskState;
}

/** A new ask's persisted snapshot: the machine's initial state with the context of `input`. */
export function initialAskState(input: AskMachineInput): PersistedAskState {
  return persisted('active', INITIAL, createAskContext(input), undefined);
}

/**
 * The persisted snapshot after `event`, or `undefined` when the machine does not take it in
 * this state (no transition, every guard false, or the ask is final): as XState's
 * `transition` would give it, without building an XState snapshot.
 */
export function stepAsk(
  from: PersistedAskState,
  event: AskMachineEvent,
): PersistedAskState | undefined {
  if (from.status !== 'active') return undefined;
  const candidates = TABLE[from.value]?.[event.type];
  if (candidates === undefined) return undefined;
  const args: Args = { context: from.context, event };
  for (const transition of candidates) {
    const { guard } = transition;
    if (guard !== undefined && !guard.check(args, paramsOf(guard.params, args))) continue;
    let context = from.context;
    if (transition.actions.length > 0) {
      // One copy per step; each action sees what the ones before it assigned, as in XState.
      const next = { ...context };
      const actionArgs: Args = { context: next, event };
      for (const action of transition.actions) {
        Object.assign(next, action.assign(actionArgs, paramsOf(action.params, actionArgs)));
      }
      context = next;
    }
    return transition.final
      ? persisted('done', transition.target, context, output({ context, event }))
      : persisted('active', transition.target, context, undefined);
  }
  return undefined;
}

/** Whether the provider holds the question in this state (the machine's `delivering` tag). */
export function deliversIn(state: AskState): boolean {
  return DELIVERING[state] === true;
}
