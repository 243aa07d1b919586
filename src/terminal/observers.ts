import { from, Subject, type Observable, type ObservableInput, type Subscription } from 'rxjs';
import { PanewardError } from '../errors.js';
import type { RecordedEnding } from '../profiles/session-record.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import type { ObserverEnding } from './witness.js';

/** One capture of the pane while a turn is open, as a completion observer sees it. */
export interface ObservedFrame {
  /** Observation time, epoch seconds. */
  t: number;
  /** The pane's text as `capture-pane -p` prints it (no colours). */
  text: string;
  /**
   * The turn has shown evidence of its own by this frame: the CLI drew activity, or the
   * transcript changed since the turn began. Before it, the screen is still the one from before
   * the prompt (which may quote whatever the observer looks for).
   */
  activity: boolean;
}

/** What a completion observer is told about the turn it watches. */
export interface CompletionObserverContext {
  terminalId: string;
  /** The terminal's tool profile id (`claude_code`, ...). */
  tool: string;
  /** The pane's own process when the turn began, or null when not known yet. */
  panePid: number | null;
  turn: {
    id: string;
    /** `explicit_input`: submitted through paneward; `surface_inference`: seen on screen. */
    source: NonNullable<TerminalState['turn']['current']>['source'];
    /** When it began, epoch seconds. */
    startedAt: number;
  };
  /** Every capture of the pane from now until the turn ends (then it completes). */
  frames: Observable<ObservedFrame>;
}

/**
 * How an observer says a turn ended: the reasons of the session record's endings (a
 * `known_failure` names its kind: `rate_limit`, `http_500`, ... at most 64 letters, digits and
 * `_.:-`).
 */
export type ObservedEnding = RecordedEnding;

/**
 * A completion observer (docs/witness.md): code of the library's user that watches each turn
 * and may say how it ended, sooner or better than the screen can. `observe` is called when a
 * turn begins and returns the endings it tells (an Observable, a Promise, an async iterable,
 * anything rxjs `from` takes), or null/undefined to leave that turn alone. The first ending is
 * taken; the subscription ends when the turn does. It is a witness beside the screen under the
 * terminal's completion authority, as the session record is.
 */
export interface CompletionObserver {
  /** Names it in the state's evidence and the journal: a letter, then letters, digits, `_.:-`. */
  readonly name: string;
  observe(ctx: CompletionObserverContext): ObservableInput<ObservedEnding> | null | undefined;
}

const NAME = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;
const KIND = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Checks a supervisor's `completionObservers`; throws `invalid_input` naming the field. */
export function checkCompletionObservers(observers: unknown): readonly CompletionObserver[] {
  if (observers === undefined) return [];
  const bad = (field: string, why: string) =>
    new PanewardError('invalid_input', `supervisor options: field \`${field}\`: ${why}`);
  if (!Array.isArray(observers)) throw bad('completionObservers', 'must be an array');
  const seen = new Set<string>();
  observers.forEach((o: unknown, i) => {
    const at = `completionObservers[${i}]`;
    if (typeof o !== 'object' || o === null) throw bad(at, 'must be an object');
    const { name, observe } = o as { name?: unknown; observe?: unknown };
    if (typeof name !== 'string' || !NAME.test(name)) {
      throw bad(
        `${at}.name`,
        'must be a letter, then letters, digits or `_.:-`, at most 64 characters',
      );
    }
    if (seen.has(name)) throw bad(`${at}.name`, `${JSON.stringify(name)} is given twice`);
    seen.add(name);
    if (typeof observe !== 'function') throw bad(`${at}.observe`, 'must be a function');
  });
  return observers as CompletionObserver[];
}

/** Why an ending an observer handed over is not one (null when it is). */
export function endingProblem(ending: unknown): string | null {
  if (typeof ending !== 'object' || ending === null) return 'an ending must be an object';
  const { reason, kind } = ending as { reason?: unknown; kind?: unknown };
  if (reason !== 'success' && reason !== 'interrupted' && reason !== 'known_failure') {
    return 'field `reason`: must be success, interrupted or known_failure';
  }
  if (reason === 'known_failure' && (typeof kind !== 'string' || !KIND.test(kind))) {
    return 'field `kind`: a known_failure names its kind (letters, digits, `_.:-`, at most 64)';
  }
  return null;
}

/** What running the observers of one terminal needs. */
export interface TurnObserversOptions {
  terminalId: string;
  tool: string;
  observers: readonly CompletionObserver[];
  /** The terminal's public state: a new turn starts the observers, its end stops them. */
  state$: Observable<TerminalState>;
  panePid: () => number | null;
  /** Hands an ending to the terminal's witness. */
  deliver: (event: ObserverEnding) => void;
  /** An observer threw, failed or handed over something that is not an ending. */
  onProblem: (observer: string, turnId: string, why: string) => void;
}

/**
 * Runs a terminal's completion observers, one subscription each per turn: started when a turn
 * begins, fed every frame while it is open, ended when it ends. Returns what stops it.
 */
export class TurnObservers {
  private turn: {
    id: string;
    frames: Subject<ObservedFrame>;
    subs: Subscription[];
  } | null = null;
  private readonly sub: Subscription;

  constructor(private readonly o: TurnObserversOptions) {
    this.sub = o.state$.subscribe((s) => {
      const current = s.turn.current;
      if (current?.id === this.turn?.id) return;
      this.end();
      if (current) this.begin(current);
    });
  }

  /** One capture of the pane (after the pipeline read it). */
  frame(t: number, text: string, activity: boolean): void {
    this.turn?.frames.next({ t, text, activity });
  }

  stop(): void {
    this.sub.unsubscribe();
    this.end();
  }

  private begin(current: NonNullable<TerminalState['turn']['current']>): void {
    const frames = new Subject<ObservedFrame>();
    const turn = { id: current.id, frames, subs: [] as Subscription[] };
    this.turn = turn;
    const ctx: CompletionObserverContext = {
      terminalId: this.o.terminalId,
      tool: this.o.tool,
      panePid: this.o.panePid(),
      turn: { id: current.id, source: current.source, startedAt: current.startedAt },
      frames: frames.asObservable(),
    };
    for (const observer of this.o.observers) {
      const problem = (why: string) => this.o.onProblem(observer.name, current.id, why);
      let endings: ObservableInput<ObservedEnding> | null | undefined;
      try {
        endings = observer.observe(ctx);
      } catch (error) {
        problem(`observe threw: ${String(error)}`);
        continue;
      }
      if (endings === null || endings === undefined) continue;
      let source: Observable<ObservedEnding>;
      try {
        source = from(endings);
      } catch (error) {
        problem(`observe returned what is not observable: ${String(error)}`);
        continue;
      }
      const sub = source.subscribe({
        next: (ending) => {
          if (this.turn !== turn) return;
          const why = endingProblem(ending);
          if (why !== null) {
            problem(why);
            return;
          }
          const { reason } = ending;
          this.o.deliver({
            turnId: current.id,
            observer: observer.name,
            ending: reason === 'known_failure' ? { reason, kind: ending.kind } : { reason },
          });
        },
        error: (error: unknown) => problem(`its endings failed: ${String(error)}`),
      });
      // The turn may have ended while subscribing (an ending handed over at once).
      if (this.turn === turn) turn.subs.push(sub);
      else sub.unsubscribe();
    }
  }

  private end(): void {
    const turn = this.turn;
    if (!turn) return;
    this.turn = null;
    for (const s of turn.subs) s.unsubscribe();
    turn.frames.complete();
  }
}
