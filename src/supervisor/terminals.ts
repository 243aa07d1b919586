import {
  defer,
  distinctUntilChanged,
  from,
  map,
  Observable,
  startWith,
  type SchedulerLike,
} from 'rxjs';
import type { Actor } from 'xstate';
import type { supervisorMachine } from '../../machines/supervisor.js';
import type {
  TerminalActorRef,
  TerminalContext,
  TerminalInput,
  TerminalRequest,
} from '../../machines/terminal.js';
import { PanewardError } from '../errors.js';
import { clampBudgetSeconds } from '../internal/bounds.js';
import type { Journal } from '../journal/journal.js';
import type { KernelConfig } from '../schemas/kernel.js';
import type { RestoreFacts } from '../schemas/record.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import { initialState, sameState } from '../terminal/state.js';
import type { RestartRecord } from './options.js';
import { watchRestarts } from './restarts.js';

export interface TerminalActorsOptions {
  journal: Journal;
  scheduler: SchedulerLike;
  config: KernelConfig;
  /** Restart backoff of each terminal's runtime: first delay and cap, in seconds. */
  backoff: { initialSeconds: number; maxSeconds: number };
  /** Told about each restart of a terminal's runtime (already journaled). */
  onRestart(record: RestartRecord): void;
}

/**
 * The public state a terminal shows: the one its runtime last published, or the one it was
 * attached with (a terminal is always attached with one).
 */
function stateOf(snapshot: { context: TerminalContext }): TerminalState {
  const { state, terminalId } = snapshot.context;
  if (!state) throw new PanewardError('internal', `terminal ${terminalId} has no state`);
  return state;
}

/**
 * The terminal actors of a supervisor actor: the one way a terminal is attached (a request
 * checked by `attach` or discovery, or one re-adopted from the journal), and finding each
 * attached terminal, its request and its public state.
 */
export class TerminalActors {
  constructor(
    private readonly actor: Actor<typeof supervisorMachine>,
    private readonly o: TerminalActorsOptions,
  ) {}

  /** Ids of attached terminals. */
  ids(): string[] {
    return Object.keys(this.actor.getSnapshot().children).filter((id) => this.ref(id));
  }

  /** Ids of attached terminals, as they change. */
  ids$(): Observable<string[]> {
    return defer(() => from(this.actor).pipe(startWith(null))).pipe(
      map(() => this.ids()),
      distinctUntilChanged((a, b) => a.join('\0') === b.join('\0')),
    );
  }

  /**
   * The attached terminal's actor, if any: a child of the supervisor that is a running terminal
   * of that id (the supervisor's other child, its flush at stop, is none).
   */
  ref(id: string): TerminalActorRef | undefined {
    const ref = this.actor.getSnapshot().children[id];
    const snap = ref?.getSnapshot() as
      { status?: string; context?: { terminalId?: unknown } } | undefined;
    return snap?.status === 'active' && snap.context?.terminalId === id
      ? (ref as TerminalActorRef)
      : undefined;
  }

  /** The attached terminal's actor; `unknown_terminal` when there is none. */
  get(id: string): TerminalActorRef {
    const ref = this.ref(id);
    if (!ref) throw new PanewardError('unknown_terminal', `no terminal with id ${id}`);
    return ref;
  }

  context(id: string): TerminalContext {
    return this.get(id).getSnapshot().context;
  }

  request(id: string): TerminalRequest {
    return this.context(id).request;
  }

  /** The id of the terminal's pane, when known: resolved at attach, or the target itself. */
  paneOf(id: string): string | undefined {
    const { paneId, target } = this.request(id);
    return paneId ?? (target.startsWith('%') ? target : undefined);
  }

  state(id: string): TerminalState {
    return stateOf(this.get(id).getSnapshot());
  }

  /**
   * The terminal's public state, now and on every change (survives runtime restarts). One
   * subscription to the actor per subscriber, no operator chain: a dashboard or `watch`
   * follows every terminal, and a chain of three operators took about 2.5 KB a terminal.
   */
  state$(id: string): Observable<TerminalState> {
    const ref = this.get(id);
    return new Observable<TerminalState>((subscriber) => {
      // An actor tells its subscribers about changes only: start with where it is now.
      let last = stateOf(ref.getSnapshot());
      subscriber.next(last);
      const sub = ref.subscribe({
        next: (snapshot) => {
          const state = stateOf(snapshot);
          if (sameState(last, state)) return;
          last = state;
          subscriber.next(state);
        },
        error: (e: unknown) => subscriber.error(e),
        complete: () => subscriber.complete(),
      });
      return () => sub.unsubscribe();
    });
  }

  /** Ids in use, or kept by the journal for a terminal it will re-attach. */
  takenIds(): Set<string> {
    return new Set([...this.ids(), ...this.o.journal.index.attached().map(([id]) => id)]);
  }

  /** The first `t<n>` neither attached nor remembered by the journal. */
  nextId(): string {
    const used = this.takenIds();
    let n = 1;
    while (used.has(`t${n}`)) n += 1;
    return `t${n}`;
  }

  /** Attaches a terminal (recorded first): its actor starts attaching, showing `initialState`. */
  spawn(id: string, request: TerminalRequest, readopted: boolean): void {
    const { initialSeconds, maxSeconds } = this.o.backoff;
    this.record({
      kind: 'terminal.attached',
      terminalId: id,
      target: request.target,
      tool: request.tool,
      toolVersion: request.toolVersion ?? null,
      watchdogBudgetSeconds: request.watchdogBudgetSeconds ?? 0,
      ...(request.paneId === undefined ? {} : { paneId: request.paneId }),
      ...(request.config ? { config: request.config } : {}),
      readopted,
    });
    const input: TerminalInput = {
      terminalId: id,
      request,
      config: { ...this.o.config, ...request.config },
      backoff: { initialSeconds, maxSeconds },
      openTurn: null,
      state: initialState({
        t: this.o.scheduler.now() / 1000,
        terminalId: id,
        target: request.target,
        tool: request.tool,
        toolVersion: request.toolVersion ?? null,
        budgetSeconds: request.watchdogBudgetSeconds ?? 0,
        restore: readopted ? this.o.journal.index.facts(id) : null,
      }),
    };
    this.actor.send({ type: 'evt_attach', terminal: input });
    // The actor keeps its input for good; the state shown until the first publish is in its
    // context now, and is not kept a second time once a newer one replaces it.
    delete input.state;
    const ref = this.ref(id);
    if (ref) {
      watchRestarts(ref, id, this.o.scheduler, (rec) => {
        this.o.onRestart(rec);
        this.record({
          kind: 'terminal.restarted',
          terminalId: id,
          attempt: rec.attempt,
          delaySeconds: rec.delaySeconds,
          error: rec.error,
        });
      });
    }
  }

  private record(draft: Parameters<Journal['append']>[0]): void {
    void this.o.journal.append(draft).catch(() => null);
  }
}

/**
 * The request of a terminal re-adopted from the journal. An older version took any budget:
 * one out of range is clamped (the re-adoption's terminal.attached record says which), never
 * armed as given.
 */
export function readoptedRequest(facts: RestoreFacts): TerminalRequest {
  const r = facts.request;
  return {
    target: r.target,
    tool: r.tool,
    ...(r.toolVersion ? { toolVersion: r.toolVersion } : {}),
    watchdogBudgetSeconds: clampBudgetSeconds(r.watchdogBudgetSeconds),
    ...(r.paneId === undefined ? {} : { paneId: r.paneId }),
    ...(r.config ? { config: r.config } : {}),
  };
}
