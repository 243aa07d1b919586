import { createActor, type AnyStateMachine, type AnyStateNode, type EventObject } from 'xstate';

/** One transition of a flat machine: `event` is the event type, or `[guard]` for an eventless one. */
export interface Edge {
  from: string;
  event: string;
  to: string;
}

export function edgeKey(e: Edge): string {
  return `${e.from} --${e.event}--> ${e.to}`;
}

function guardName(guard: unknown): string {
  if (typeof guard === 'string') return guard;
  if (guard && typeof guard === 'object' && 'type' in guard) return String(guard.type);
  return 'always';
}

function targetKey(source: AnyStateNode, target: readonly AnyStateNode[] | undefined): string {
  return target?.[0]?.key ?? source.key;
}

/**
 * Every transition of a flat machine, read from its definition: each top-level state's `on`
 * and `always`, plus the root's `on` expanded once per non-final child it applies to.
 */
export function machineEdges(machine: AnyStateMachine): Edge[] {
  const out = new Map<string, Edge>();
  const add = (e: Edge) => out.set(edgeKey(e), e);
  const children = Object.values(machine.root.states);
  for (const child of children) {
    for (const [type, defs] of child.transitions) {
      for (const def of defs)
        add({ from: child.key, event: type, to: targetKey(child, def.target) });
    }
    for (const def of child.always ?? []) {
      add({
        from: child.key,
        event: `[${guardName(def.guard)}]`,
        to: targetKey(child, def.target),
      });
    }
  }
  for (const [type, defs] of machine.root.transitions) {
    for (const child of children) {
      if (child.type === 'final') continue;
      // A child's own unguarded transition for the event shadows the root's.
      if (child.transitions.get(type)?.some((d) => !d.guard)) continue;
      for (const def of defs)
        add({ from: child.key, event: type, to: targetKey(child, def.target) });
    }
  }
  return [...out.values()];
}

/**
 * The microsteps the model machine itself takes for a sequence of events, one list per event
 * (eventless follow-ups included, self-transitions included). Used only to account for which
 * transitions a generated path traverses; the system under test is never this machine.
 */
export function traceMicrosteps(
  machine: AnyStateMachine,
  input: unknown,
  events: readonly EventObject[],
): Edge[][] {
  let current = '';
  let steps: Edge[] = [];
  const actor = createActor(machine, {
    input,
    inspect: (ev) => {
      if (ev.type !== '@xstate.microstep' || ev.actorRef !== actor) return;
      const to = String((ev.snapshot as unknown as { value: unknown }).value);
      for (const tr of ev._transitions) {
        const event = tr.eventType || `[${guardName(tr.guard)}]`;
        steps.push({ from: current, event, to });
      }
      current = to;
    },
  });
  actor.start();
  current = String(actor.getSnapshot().value);
  const out: Edge[][] = [];
  for (const event of events) {
    steps = [];
    actor.send(event);
    out.push(steps);
  }
  actor.stop();
  return out;
}
