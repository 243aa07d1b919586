import type { AnyMachineSnapshot, AnyStateMachine, EventObject, InspectionEvent } from 'xstate';

type Microstep = Extract<InspectionEvent, { type: '@xstate.microstep' }>;

type Handler = (event: EventObject) => void;

/** Who is told each microstep of a cell's chart (its runner). */
export interface MicrostepWatcher {
  microstep(ev: Microstep): void;
}

/** What XState's `transition` reads of the actor it runs for (an actor scope). */
interface Scope {
  self: unknown;
  id: string;
  sessionId: string;
  logger: (...args: unknown[]) => void;
  defer: (fn: () => void) => void;
  system: unknown;
  stopChild: () => void;
  emit: (event: EventObject) => void;
  actionExecutor: (action: {
    exec?: (info: unknown, params: unknown) => void;
    info: unknown;
    params: unknown;
  }) => void;
}

const STOP: EventObject = { type: 'xstate.stop' };

/**
 * XState gives every snapshot a new tag set, and the initial one new `children` and
 * `historyValue` objects, all empty for the charts a cell runs. A cell's snapshots share one
 * of each (frozen: a step that wrote to one would throw, not reach another cell); XState
 * copies them before it changes them (a spawn, a history state).
 */
const NO_TAGS: ReadonlySet<string> = Object.freeze(new Set<string>());
const NOTHING: Readonly<Record<string, never>> = Object.freeze({});

function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}

/** The snapshot, its empty collections the shared ones. */
function slim(s: AnyMachineSnapshot): AnyMachineSnapshot {
  const w = s as { tags: ReadonlySet<string>; children: object; historyValue: object };
  if (w.tags !== NO_TAGS && w.tags.size === 0) w.tags = NO_TAGS;
  if (w.children !== NOTHING && isEmpty(w.children)) w.children = NOTHING;
  if (w.historyValue !== NOTHING && isEmpty(w.historyValue)) w.historyValue = NOTHING;
  return s;
}

/** The cell whose chart is taking a step now (steps are synchronous and never interleave). */
let current: ChartCell | null = null;

/** Makes `cell` the one taking a step; returns the one that was. */
function enter(cell: ChartCell | null): ChartCell | null {
  const outer = current;
  current = cell;
  return outer;
}

/**
 * One scope for every cell: it hands what the step does (deferred effects, emitted events,
 * microsteps) to the cell taking the step.
 */
const scope: Scope = {
  self: null,
  id: '',
  sessionId: '',
  logger: () => {},
  // A list made with its first entry: one grown from empty by a push holds room for 17.
  defer: (fn) => {
    const cell = current!;
    if (cell.deferred) cell.deferred.push(fn);
    else cell.deferred = [fn];
  },
  system: {
    _sendInspectionEvent: (ev: InspectionEvent) => current!.inspected(ev),
    _logger: () => {},
  },
  stopChild: () => {},
  emit: (event) => current!.emitted(event),
  // As a running actor does: each action is executed as it is resolved (an emit defers itself).
  actionExecutor: (action) => action.exec?.(action.info, action.params),
};

/** One listener of a cell's emitted events; it is its own subscription. */
class Listener {
  constructor(
    private readonly cell: ChartCell,
    readonly type: string,
    readonly handler: Handler,
  ) {}

  unsubscribe(): void {
    this.cell.off(this);
  }
}

/**
 * A chart run as a pure state machine: its snapshot, and XState's own `transition` of its
 * machine (the same definition, guards and actions an actor of it runs), without an actor. It
 * answers what the chart runners and drivers ask of a chart actor (`getSnapshot`, `send`,
 * `on`, `stop`), in the same order an actor would: an event sent while a step is under way is
 * taken after it, emitted events are handed out once the step's snapshot is in place, and its
 * microsteps go to the one runner that watches it (`watch`). A terminal keeps five charts; as actors they took about
 * 2.5 KB each (mailbox, scope, closures, system entries), as cells about a snapshot's worth.
 * Used while nobody inspects the charts (an inspector sees child actors instead).
 */
export class ChartCell {
  private snapshot: AnyMachineSnapshot;
  /** Who listens to which emitted event (`*`: every one), in the order they subscribed. */
  private listeners: Listener[] | null = null;
  /** Effects of the step under way, run once its snapshot is in place (null: none yet). */
  deferred: Array<() => void> | null = null;
  private queue: EventObject[] | null = null;
  private stopped = false;
  private watcher: MicrostepWatcher | null = null;
  /** Events the chart emitted so far. */
  emits = 0;

  constructor(
    private readonly machine: AnyStateMachine,
    readonly id: string,
    input?: unknown,
  ) {
    this.snapshot = this.step(() => machine.getInitialSnapshot(scope as never, input as never));
    // An actor runs its initial effects when started, before anyone can listen: so do these.
    this.flush();
  }

  getSnapshot(): AnyMachineSnapshot {
    return this.snapshot;
  }

  send(event: EventObject): void {
    if (this.stopped || this.snapshot.status !== 'active') return;
    if (this.queue) {
      this.queue.push(event);
      return;
    }
    this.queue = [event];
    try {
      for (let e = this.queue.shift(); e; e = this.queue.shift()) {
        if (this.snapshot.status !== 'active') break;
        const s = this.snapshot;
        this.snapshot = this.step(() => this.machine.transition(s, e, scope as never));
        this.flush();
      }
    } finally {
      this.queue = null;
    }
  }

  on(type: string, handler: Handler): { unsubscribe(): void } {
    const listener = new Listener(this, type, handler);
    if (this.listeners) this.listeners.push(listener);
    else this.listeners = [listener];
    return listener;
  }

  /** Takes a listener out (its `unsubscribe`). */
  off(listener: Listener): void {
    const i = this.listeners?.indexOf(listener) ?? -1;
    if (i >= 0) this.listeners!.splice(i, 1);
  }

  /** Stops the chart: an active one reads `stopped` (as a stopped actor does) and takes no event. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.listeners = null;
    const s = this.snapshot;
    if (s.status === 'active') {
      this.snapshot = this.step(() => this.machine.transition(s, STOP, scope as never));
    }
  }

  /** Hands each microstep to `watcher` (the chart's runner) until `unwatch`. */
  watch(watcher: MicrostepWatcher): void {
    this.watcher = watcher;
  }

  unwatch(watcher: MicrostepWatcher): void {
    if (this.watcher === watcher) this.watcher = null;
  }

  /** What XState tells an inspector of this chart: its microsteps go to the runner watching. */
  inspected(ev: InspectionEvent): void {
    if (ev.type === '@xstate.microstep') this.watcher?.microstep(ev);
  }

  /** An event the chart emitted: to its listeners, those of its type first, then those of `*`. */
  emitted(event: EventObject): void {
    this.emits++;
    if (!this.listeners) return;
    const listeners = this.listeners.slice();
    for (const l of listeners) if (l.type === event.type) l.handler(event);
    for (const l of listeners) if (l.type === '*') l.handler(event);
  }

  private step(run: () => AnyMachineSnapshot): AnyMachineSnapshot {
    const outer = enter(this);
    try {
      return slim(run());
    } finally {
      enter(outer);
    }
  }

  /** Runs the step's deferred effects (its emits reach this cell's listeners). */
  private flush(): void {
    const deferred = this.deferred;
    if (!deferred) return;
    this.deferred = null;
    const outer = enter(this);
    try {
      for (const fn of deferred) fn();
    } finally {
      enter(outer);
    }
  }
}
