import type {
  AnyActorRef,
  AnyMachineSnapshot,
  AnyTransitionDefinition,
  EventObject,
  InspectionEvent,
} from 'xstate';
import { sameData } from '../internal/same-data.js';

/** One transition of one chart, with the name of what caused it. */
export interface Step {
  from: string;
  to: string;
  /** The event type, or for an eventless transition the name of its guard. */
  event: string;
  /**
   * The guard by which the chart classified the event that was sent (`otherwise` for the
   * unguarded last of several branches), when the step followed from one; e.g. `submit_ready`.
   */
  rule?: string;
}

type MicrostepEvent = Extract<InspectionEvent, { type: '@xstate.microstep' }>;

/**
 * Routes XState's inspection events to the chart runners of one actor system, so each runner
 * sees its own actor's microsteps (an eventless follow-up such as
 * `stalled --[stalled_is_terminal]--> failed` is its own step), and passes every event on to
 * an outside observer (the Stately inspector, a test) unchanged.
 */
export class InspectionHub {
  private readonly listeners = new Map<unknown, (ev: MicrostepEvent) => void>();
  /**
   * Every event is sent to the charts, also one that would change nothing (see
   * `RepeatOptions.skipRepeats`): the tests that prove skipping changes nothing compare runs
   * with and without it. Whether an inspector watches does not change what is sent.
   */
  readonly everyEvent: boolean;

  constructor(
    private readonly observer?: (ev: InspectionEvent) => void,
    options: { everyEvent?: boolean } = {},
  ) {
    this.everyEvent = options.everyEvent ?? false;
  }

  /** Give this to `createActor(..., { inspect })` of the system's root. */
  readonly inspect = (ev: InspectionEvent): void => {
    if (ev.type === '@xstate.microstep') this.listeners.get(ev.actorRef)?.(ev);
    this.observer?.(ev);
  };

  watch(actor: AnyActorRef, listener: (ev: MicrostepEvent) => void): () => void {
    this.listeners.set(actor, listener);
    return () => {
      if (this.listeners.get(actor) === listener) this.listeners.delete(actor);
    };
  }
}

/** A referenced guard's name (written as a string or as `{ type, params }`); an inline one has none. */
function guardName(guard: unknown): string | undefined {
  return typeof guard === 'string' ? guard : (guard as { type?: string } | undefined)?.type;
}

/** The rule a transition names: its `meta.rule` when the chart gives one, else its guard's name. */
function ruleOf(t: AnyTransitionDefinition): string | undefined {
  const meta = t.meta as { rule?: unknown } | undefined;
  return typeof meta?.rule === 'string' ? meta.rule : guardName(t.guard);
}

/**
 * The branch a transition of the sent event is: its rule (`meta.rule`) or guard, or `otherwise`
 * for the last of several.
 */
function ruleFor(t: AnyTransitionDefinition): string | undefined {
  const branches = t.source.transitions.get(t.eventType)?.length ?? 0;
  return ruleOf(t) ?? (branches > 1 ? 'otherwise' : undefined);
}

const targets = (t: AnyTransitionDefinition, to: string): boolean =>
  t.target?.some((node) => node.key === to) ?? false;

/**
 * The transition one microstep took from `before`, read from the chart's own definition: the
 * one XState selects for `event` (`getTransitionData`), unless the step went where only one of
 * the left state's eventless (`always`) transitions leads (those carry the macrostep's event).
 */
function taken(
  before: AnyMachineSnapshot,
  event: EventObject,
  to: string,
): AnyTransitionDefinition | undefined {
  const regular = before.machine.getTransitionData(before, event)[0];
  if (regular && (to === valueOf(before) || targets(regular, to))) return regular;
  const left = before.machine.root.states[valueOf(before)];
  return left?.always?.find((t) => targets(t, to)) ?? regular;
}

const valueOf = (snapshot: unknown): string =>
  // Stryker disable next-line StringLiteral: every chart is a state machine, whose snapshots always have a value
  String((snapshot as { value?: unknown }).value ?? '');

/** Whether a runner skips events that would change nothing (see each field). */
export interface RepeatOptions {
  /**
   * An event equal to the last one sent, which left the chart's state and context as they
   * were and emitted nothing, is not sent again: it would do the same. Only for a chart whose
   * guards and actions are pure (`raise`, `emit`, `assign`). Skipped whether or not an
   * inspector watches: the chart never takes the repeat, so there is nothing to see.
   */
  skipRepeats?: boolean;
  /**
   * With `skipRepeats`: what of an event the chart's guards and actions read. Two events
   * with the same key count as equal (by default, equal events are).
   */
  repeatKey?: (event: EventObject) => string;
  /**
   * With `skipRepeats`: a context that an action rebuilt with the same values counts as
   * unchanged (a chart that notes every observation in its context).
   */
  contextByValue?: boolean;
}

/** What a send left as it found it: the event, and the chart's state and context. */
interface Unchanged {
  /** The event, or its key (`repeatKey`). */
  event: unknown;
  value: string;
  context: unknown;
}

/**
 * Drives one chart actor (a child in the terminal's actor tree, or a root in a standalone
 * kernel) and reports the state changes each event causes, in order.
 */
export class ChartRunner<TActor extends AnyActorRef> {
  private current: string;
  private collected: Step[] | null = null;
  /** Type of the event being sent, and the rule (guard) its transition was taken by. */
  private sending: string | null = null;
  private rule: string | undefined;
  /** The chart's snapshot before the microstep being reported. */
  private last: AnyMachineSnapshot;
  private readonly skipRepeats: boolean = false;
  private readonly repeatKey: ((event: EventObject) => string) | null = null;
  private readonly contextByValue: boolean = false;
  private readonly offEmitted: { unsubscribe(): void } | null = null;
  /** Events the chart actor emitted (counted only while repeats are skipped). */
  private emitted = 0;
  /** The last event sent, when it changed nothing. */
  private unchanged: Unchanged | null = null;
  /** Microsteps of the event being sent that left the chart's state as it was, oldest first. */
  private unread: Array<[AnyMachineSnapshot, EventObject]> | null = null;
  private readonly unwatchActor: () => void;

  constructor(
    readonly actor: TActor,
    hub: InspectionHub,
    /**
     * Told about every state change, also those no `send` of this runner caused, with the
     * chart's context as the step leaves it (the actor's snapshot is updated only after).
     */
    private readonly onStep?: (step: Step, context: unknown) => void,
    options: RepeatOptions = {},
  ) {
    this.last = actor.getSnapshot() as AnyMachineSnapshot;
    if (options.skipRepeats && !hub.everyEvent) {
      this.skipRepeats = true;
      this.repeatKey = options.repeatKey ?? null;
      this.contextByValue = options.contextByValue ?? false;
      this.offEmitted = actor.on('*' as never, () => void this.emitted++);
    }
    this.current = valueOf(this.last);
    this.unwatchActor = hub.watch(actor, (ev) => this.microstep(ev));
  }

  /** A microstep the chart took (told by the inspection hub). */
  microstep(ev: MicrostepEvent): void {
    const before = this.last;
    this.last = ev.snapshot as AnyMachineSnapshot;
    const to = valueOf(ev.snapshot);
    if (to === this.current) {
      // No step: its transition only matters as the rule of a step later in this send, so
      // it is looked up then (most events leave every chart where it was).
      if (this.sending !== null) (this.unread ??= []).push([before, ev.event]);
      return;
    }
    const t = taken(before, ev.event, to);
    if (t && t.eventType === this.sending) this.rule = ruleFor(t);
    else {
      // The latest microstep of the sent event before this one that names a rule.
      const unread = this.unread ?? [];
      for (let i = unread.length - 1; i >= 0; i--) {
        const [b, e] = unread[i]!;
        const u = taken(b, e, valueOf(b));
        if (u && u.eventType === this.sending) {
          this.rule = ruleFor(u);
          break;
        }
      }
    }
    this.unread = null;
    const step: Step = {
      from: this.current,
      to,
      event: t?.eventType || (t && ruleOf(t)) || ev.event.type,
      ...(this.rule === undefined ? {} : { rule: this.rule }),
    };
    this.current = to;
    this.collected?.push(step);
    this.onStep?.(step, (ev.snapshot as { context?: unknown }).context);
  }

  get state(): string {
    return valueOf(this.actor.getSnapshot());
  }

  get done(): boolean {
    return (this.actor.getSnapshot() as { status: string }).status === 'done';
  }

  get context(): TActor extends { getSnapshot(): { context: infer C } } ? C : unknown {
    return (this.actor.getSnapshot() as { context: unknown }).context as never;
  }

  /** Sends one event and returns the state changes it caused. */
  send<E extends { type: string }>(event: E): Step[] {
    if (!this.skipRepeats) return this.sendNow(event);
    const before = this.actor.getSnapshot() as AnyMachineSnapshot;
    const value = valueOf(before);
    const u = this.unchanged;
    const seen = this.repeatKey ? this.repeatKey(event) : event;
    if (u && u.value === value && this.sameContext(u.context, before.context)) {
      if (sameData(u.event, seen)) return [];
    }
    const emitted = this.emitted;
    const steps = this.sendNow(event);
    const after = this.actor.getSnapshot() as AnyMachineSnapshot;
    this.unchanged =
      steps.length === 0 &&
      this.emitted === emitted &&
      after.status === 'active' &&
      valueOf(after) === value &&
      this.sameContext(after.context, before.context)
        ? { event: seen, value, context: after.context }
        : null;
    return steps;
  }

  private sameContext(a: unknown, b: unknown): boolean {
    return a === b || (this.contextByValue && sameData(a, b));
  }

  private sendNow<E extends { type: string }>(event: E): Step[] {
    const outer = {
      collected: this.collected,
      sending: this.sending,
      rule: this.rule,
      unread: this.unread,
    };
    const steps: Step[] = [];
    this.collected = steps;
    this.sending = event.type;
    this.rule = undefined;
    this.unread = null;
    try {
      this.actor.send(event as EventObject);
    } finally {
      this.collected = outer.collected;
      this.sending = outer.sending;
      this.rule = outer.rule;
      this.unread = outer.unread;
      outer.collected?.push(...steps);
    }
    return steps;
  }

  dispose(): void {
    this.offEmitted?.unsubscribe();
    this.unwatchActor();
  }
}
