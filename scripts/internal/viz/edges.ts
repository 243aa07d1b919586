import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from 'xstate';
import type { Chart, SeedEdge } from '../../../test/model/seed-diagrams.js';

/** One state change a machine can make, as read from its definition. */
export interface MachineEdge {
  /** Source state path (dot-joined, relative to the root), always a leaf state. */
  readonly from: string;
  /** Event type, or `null` for an eventless (`always`) transition. */
  readonly event: string | null;
  /** Target state path (dot-joined, relative to the root). */
  readonly to: string;
  /** Guard name when the transition is guarded. */
  readonly guard?: string;
  /** True for a targetless transition: it runs actions and stays in `from` (= `to`). */
  readonly internal?: boolean;
}

/** A machine edge classified against its chart. */
export interface ClassifiedEdge extends MachineEdge {
  /** The guards whose branch raises this edge's event from its state (classification rules). */
  readonly via?: readonly string[];
  /** True when the edge is not part of the chart's seed diagram. */
  readonly extension: boolean;
}

/** States, initial state, edges and event names of a machine, for drawing and checking. */
export interface MachineGraph {
  readonly id: string;
  /** State paths in document order (leaf and compound states; the root excluded). */
  readonly states: readonly string[];
  readonly initial: string;
  /** Top-level final states: reaching one stops the machine. */
  readonly finals: readonly string[];
  readonly edges: readonly MachineEdge[];
  /** Every event type any state node has a transition for, sorted. */
  readonly events: readonly string[];
  /** The machine's raw inputs (`observation`, `frame`, ...) and how each state classifies them. */
  readonly rules: readonly InputRule[];
}

/** One branch of a raw input's classification, first match wins, as the machine defines it. */
export interface RuleBranch {
  /** Guard name, or null for the unguarded last branch. */
  readonly guard: string | null;
  /** The chart event the branch raises, when it raises a fixed one. */
  readonly raises: string | null;
  /** Every action of the branch, by name (`raise evt_x` for a raise). */
  readonly actions: readonly string[];
}

/** How one state node (or the root, for every state without its own) handles a raw input. */
export interface InputRule {
  /** State path, or `*` for the root. */
  readonly scope: string;
  readonly input: string;
  readonly branches: readonly RuleBranch[];
}

function actionName(action: unknown): { name: string; raises: string | null } {
  if (typeof action === 'string') return { name: action, raises: null };
  const a = action as { type?: unknown; event?: unknown; params?: unknown };
  if (a.type === 'xstate.raise' && a.event && typeof a.event === 'object' && 'type' in a.event) {
    const ev = String((a.event as { type: unknown }).type);
    return { name: `raise ${ev}`, raises: ev };
  }
  if (typeof a.type === 'string') {
    const params =
      a.params && typeof a.params === 'object' ? Object.values(a.params).join(',') : '';
    return { name: params ? `${a.type}(${params})` : a.type, raises: null };
  }
  return { name: 'inline', raises: null };
}

function readRules(nodes: readonly AnyStateNode[], inputs: readonly string[]): InputRule[] {
  const out: InputRule[] = [];
  for (const node of nodes) {
    for (const input of inputs) {
      const defs = node.transitions.get(input);
      if (!defs?.length) continue;
      out.push({
        scope: node.parent ? statePath(node) : '*',
        input,
        branches: defs.map((d) => {
          const actions = (d.actions ?? []).map(actionName);
          return {
            guard: guardName(d.guard) ?? null,
            raises: actions.find((a) => a.raises)?.raises ?? null,
            actions: actions.map((a) => a.name),
          };
        }),
      });
    }
  }
  return out;
}

const statePath = (node: AnyStateNode): string => node.path.join('.');

function descendants(node: AnyStateNode): AnyStateNode[] {
  return Object.values(node.states as Record<string, AnyStateNode>).flatMap((child) => [
    child,
    ...descendants(child),
  ]);
}

function guardName(guard: unknown): string | undefined {
  if (guard === undefined || guard === null) return undefined;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') return guard.name || 'inline';
  if (typeof guard === 'object' && 'type' in guard && typeof guard.type === 'string') {
    return guard.type;
  }
  return 'inline';
}

/** The transitions a node has for one event key (`null` = eventless). */
function transitionsOf(node: AnyStateNode, event: string | null): AnyTransitionDefinition[] {
  if (event === null) return node.always ?? [];
  return node.transitions.get(event) ?? [];
}

/**
 * The candidates a leaf state uses for one event: its own, then each ancestor's, stopping after
 * the first node that has an unguarded candidate (XState only falls back to an ancestor when
 * no candidate of a deeper node is enabled).
 */
function candidatesFor(leaf: AnyStateNode, event: string | null): AnyTransitionDefinition[] {
  const out: AnyTransitionDefinition[] = [];
  for (let node: AnyStateNode | undefined = leaf; node; node = node.parent) {
    const own = transitionsOf(node, event);
    out.push(...own);
    if (own.some((t) => t.guard === undefined)) break;
  }
  return out;
}

/** Compare edges by state document order, then event (eventless first), then target, guard. */
function edgeOrder(order: ReadonlyMap<string, number>) {
  // Code-unit order, not localeCompare: output must not depend on the machine's locale.
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  const pos = (state: string): number => order.get(state) ?? Number.MAX_SAFE_INTEGER;
  return (a: MachineEdge, b: MachineEdge): number =>
    pos(a.from) - pos(b.from) ||
    cmp(a.event ?? '', b.event ?? '') ||
    pos(a.to) - pos(b.to) ||
    cmp(a.guard ?? '', b.guard ?? '');
}

/** Stable identity of an edge (guard included: a guarded copy of a seed edge is not that edge). */
export function edgeKey(edge: SeedEdge | MachineEdge): string {
  return `${edge.from} --${edge.event ?? '(always)'}${edge.guard ? `[${edge.guard}]` : ''}--> ${edge.to}`;
}

/**
 * Reads a machine's definition into a graph: every transition of every state node, with
 * transitions declared on an ancestor (root-level `on`, a compound state's `on`) expanded to
 * each leaf state below it that does not handle the event itself. A targetless transition
 * (actions only) is read as an `internal` edge from the state to itself. A top-level final
 * state has no outgoing edges because the machine is done. Output is sorted deterministically.
 */
export function readMachine(
  machine: AnyStateMachine,
  inputs: readonly string[] = [],
): MachineGraph {
  const root = machine.root;
  const nodes = descendants(root).filter((n) => n.type !== 'history');
  const order = new Map(nodes.map((n) => [statePath(n), n.order] as const));
  const leaves = nodes.filter((n) => n.type === 'atomic' || n.type === 'final');

  const eventKeys = new Set<string>();
  let hasAlways = false;
  for (const node of [root, ...nodes]) {
    for (const key of node.transitions.keys()) eventKeys.add(key);
    if (node.always?.length) hasAlways = true;
  }
  const inputSet = new Set(inputs);
  const keys: (string | null)[] = [...eventKeys].filter((k) => !inputSet.has(k));
  if (hasAlways) keys.push(null);

  const seen = new Map<string, MachineEdge>();
  for (const leaf of leaves) {
    if (leaf.type === 'final' && leaf.parent === root) continue;
    for (const event of keys) {
      for (const t of candidatesFor(leaf, event)) {
        const guard = guardName(t.guard);
        const targets = t.target?.map(statePath) ?? [];
        for (const to of targets.length > 0 ? targets : [statePath(leaf)]) {
          const edge: MachineEdge = {
            from: statePath(leaf),
            event,
            to,
            ...(guard === undefined ? {} : { guard }),
            ...(targets.length === 0 ? { internal: true } : {}),
          };
          seen.set(edgeKey(edge), edge);
        }
      }
    }
  }

  return {
    id: machine.id,
    states: nodes.map(statePath),
    initial: (root.initial.target ?? []).map(statePath).join(','),
    finals: nodes.filter((n) => n.type === 'final' && n.parent === root).map(statePath),
    edges: [...seen.values()].sort(edgeOrder(order)),
    events: [...eventKeys].sort(), // default sort compares code units
    rules: readRules([root, ...nodes], inputs),
  };
}

/**
 * Marks each edge that is not in the chart's seed diagram as an extension. A chart without a
 * seed diagram (prose only) or no chart at all has nothing to extend, so nothing is marked.
 */
export function classifyEdges(
  edges: readonly MachineEdge[],
  chart: Chart | undefined,
  rules: readonly InputRule[] = [],
): ClassifiedEdge[] {
  const seed = chart?.kind === 'seed' ? new Set(chart.seed.map(edgeKey)) : null;
  return edges.map((e) => {
    const via = raisedBy(rules, e.from, e.event);
    return {
      ...e,
      extension: seed !== null && !seed.has(edgeKey(e)),
      ...(via.length > 0 ? { via } : {}),
    };
  });
}

/** The guards whose branch raises `event` in `state` (its own rules first, then the root's). */
function raisedBy(rules: readonly InputRule[], state: string, event: string | null): string[] {
  if (event === null) return [];
  const out: string[] = [];
  const inputs = new Set(rules.map((r) => r.input));
  for (const input of inputs) {
    const own = rules.find((r) => r.scope === state && r.input === input);
    const root = rules.find((r) => r.scope === '*' && r.input === input);
    // The root's branches apply only when the state's own have no unguarded branch.
    const branches = [
      ...(own?.branches ?? []),
      ...(own?.branches.some((b) => b.guard === null) ? [] : (root?.branches ?? [])),
    ];
    for (const b of branches) if (b.raises === event) out.push(b.guard ?? 'otherwise');
  }
  return [...new Set(out)];
}
