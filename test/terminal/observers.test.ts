/**
 * Completion observers without a pane (src/terminal/observers.ts): which observers a supervisor
 * takes, which endings count, and each turn's subscription, from its first frame to its end.
 * test/supervisor/completion-observer.test.ts runs them on a real pane.
 */
import { BehaviorSubject, Observable, of, Subject, throwError } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { PanewardError } from '../../src/errors.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import {
  checkCompletionObservers,
  endingProblem,
  TurnObservers,
  type CompletionObserver,
  type CompletionObserverContext,
  type ObservedEnding,
  type ObservedFrame,
} from '../../src/terminal/observers.js';
import type { ObserverEnding } from '../../src/terminal/witness.js';

type Current = NonNullable<TerminalState['turn']['current']>;

/** A public state with only what the observers read: the open turn. */
function stateWith(current: Partial<Current> | null): TerminalState {
  return { turn: { current } } as unknown as TerminalState;
}

const TURN_1 = { id: 'turn-1', source: 'explicit_input', startedAt: 1000 } as const;
const TURN_2 = { id: 'turn-2', source: 'surface_inference', startedAt: 2000 } as const;

function errorOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  return 'no error';
}

describe('checkCompletionObservers', () => {
  const ok = { name: 'ok', observe: () => null };

  it('takes none, or a list of named observers as given', () => {
    expect(checkCompletionObservers(undefined)).toEqual([]);
    const list = [ok, { name: 'b.2_x:y-z', observe: () => null }];
    expect(checkCompletionObservers(list)).toBe(list);
    expect(checkCompletionObservers([{ name: 'n'.repeat(64), observe: () => null }])).toHaveLength(
      1,
    );
  });

  it('refuses as invalid input, before any observer runs', () => {
    let code: unknown = null;
    try {
      checkCompletionObservers('no');
    } catch (error) {
      code = (error as PanewardError).code;
    }
    expect(code).toBe('invalid_input');
  });

  it('refuses what is not a list, naming the field', () => {
    for (const bad of [null, {}, 'ok', ok]) {
      const message = errorOf(() => checkCompletionObservers(bad));
      expect(message).toContain('field `completionObservers`: must be an array');
    }
  });

  it('refuses an entry that is not an object, naming its index', () => {
    for (const bad of [null, 'x', 3]) {
      expect(errorOf(() => checkCompletionObservers([ok, bad]))).toContain(
        'field `completionObservers[1]`: must be an object',
      );
    }
  });

  it('refuses a bad name: a letter first, then letters, digits or _.:-, at most 64', () => {
    for (const name of [undefined, 7, '', '1st', '-x', 'has space', 'a/b', 'n'.repeat(65), 'é']) {
      expect(errorOf(() => checkCompletionObservers([{ name, observe: () => null }]))).toContain(
        'field `completionObservers[0].name`: must be a letter',
      );
    }
  });

  it('refuses a name given twice, and an observe that is not a function', () => {
    expect(errorOf(() => checkCompletionObservers([ok, { ...ok }]))).toContain(
      'field `completionObservers[1].name`: "ok" is given twice',
    );
    expect(errorOf(() => checkCompletionObservers([{ name: 'x', observe: 'no' }]))).toContain(
      'field `completionObservers[0].observe`: must be a function',
    );
    expect(errorOf(() => checkCompletionObservers([{ name: 'x' }]))).toContain(
      'completionObservers[0].observe',
    );
  });
});

describe('endingProblem', () => {
  it('takes a success, an interruption, and a known failure that names its kind', () => {
    expect(endingProblem({ reason: 'success' })).toBeNull();
    expect(endingProblem({ reason: 'interrupted' })).toBeNull();
    expect(endingProblem({ reason: 'known_failure', kind: 'rate_limit' })).toBeNull();
    expect(endingProblem({ reason: 'known_failure', kind: 'k'.repeat(64) })).toBeNull();
    expect(endingProblem({ reason: 'known_failure', kind: 'A-z.0:9_' })).toBeNull();
  });

  it('names what is wrong with anything else', () => {
    for (const bad of [null, undefined, 'success', 1]) {
      expect(endingProblem(bad)).toBe('an ending must be an object');
    }
    for (const reason of [undefined, 'done', 'SUCCESS', 'failed']) {
      expect(endingProblem({ reason })).toBe(
        'field `reason`: must be success, interrupted or known_failure',
      );
    }
    for (const kind of [undefined, '', 'has space', 'k'.repeat(65), 5, 'a/b']) {
      expect(endingProblem({ reason: 'known_failure', kind })).toMatch(/^field `kind`: /);
    }
  });
});

/** A terminal's observers on a state stream of its own, with what they delivered and said. */
function harness(
  observers: CompletionObserver[],
  panePid: () => number | null = () => 4242,
  afterDeliver: (state$: BehaviorSubject<TerminalState>) => void = () => undefined,
) {
  const state$ = new BehaviorSubject<TerminalState>(stateWith(null));
  const delivered: ObserverEnding[] = [];
  const problems: Array<[string, string, string]> = [];
  const runner = new TurnObservers({
    terminalId: 'term-a',
    tool: 'claude_code',
    observers,
    state$,
    panePid,
    deliver: (e) => {
      delivered.push(e);
      afterDeliver(state$);
    },
    onProblem: (observer, turnId, why) => problems.push([observer, turnId, why]),
  });
  return { state$, delivered, problems, runner };
}

/** An observer that records each context it is given and hands back `endings(ctx)`. */
function recording(name: string, endings: (ctx: CompletionObserverContext) => unknown) {
  const contexts: CompletionObserverContext[] = [];
  const observer: CompletionObserver = {
    name,
    observe: (ctx) => {
      contexts.push(ctx);
      return endings(ctx) as ReturnType<CompletionObserver['observe']>;
    },
  };
  return { observer, contexts };
}

/** Whether a turn's frames have completed (its observers' subscription ended), asked later. */
function ended(frames: CompletionObserverContext['frames']): () => boolean {
  let done = false;
  frames.subscribe({ complete: () => (done = true) });
  return () => done;
}

describe('TurnObservers', () => {
  it('starts each observer when a turn opens, with the turn and the pane, and once per turn', () => {
    const a = recording('a', () => null);
    const h = harness([a.observer], () => 77);
    expect(a.contexts).toHaveLength(0);
    h.state$.next(stateWith(TURN_1));
    h.state$.next(stateWith(TURN_1));
    expect(a.contexts).toHaveLength(1);
    const ctx = a.contexts[0]!;
    expect(ctx.terminalId).toBe('term-a');
    expect(ctx.tool).toBe('claude_code');
    expect(ctx.panePid).toBe(77);
    expect(ctx.turn).toEqual({ id: 'turn-1', source: 'explicit_input', startedAt: 1000 });
    h.state$.next(stateWith(TURN_2));
    expect(a.contexts.map((c) => c.turn.id)).toEqual(['turn-1', 'turn-2']);
    expect(a.contexts[1]!.turn.source).toBe('surface_inference');
  });

  it('feeds the open turn every frame, and completes its frames when it ends', () => {
    const a = recording('a', () => null);
    const h = harness([a.observer]);
    h.runner.frame(1, 'before any turn', false);
    h.state$.next(stateWith(TURN_1));
    const seen: ObservedFrame[] = [];
    let completed = false;
    a.contexts[0]!.frames.subscribe({
      next: (f) => seen.push(f),
      complete: () => (completed = true),
    });
    h.runner.frame(2, 'first', false);
    h.runner.frame(3, 'second', true);
    expect(seen).toEqual([
      { t: 2, text: 'first', activity: false },
      { t: 3, text: 'second', activity: true },
    ]);
    expect(completed).toBe(false);
    h.state$.next(stateWith(null));
    expect(completed).toBe(true);
    h.runner.frame(4, 'after', true);
    expect(seen).toHaveLength(2);
  });

  it('a turn followed at once by another ends the first before the second begins', () => {
    const a = recording('a', () => null);
    const h = harness([a.observer]);
    h.state$.next(stateWith(TURN_1));
    const firstDone = ended(a.contexts[0]!.frames);
    h.state$.next(stateWith(TURN_2));
    expect(firstDone()).toBe(true);
    const seen: string[] = [];
    a.contexts[1]!.frames.subscribe((f) => seen.push(f.text));
    h.runner.frame(5, 'second turn', true);
    expect(seen).toEqual(['second turn']);
  });

  it('hands over an ending with the turn and the observer named, and only its reason (and kind)', () => {
    const a = recording('a', () => of({ reason: 'success', kind: 'ignored' } as ObservedEnding));
    const b = recording('b', () => of({ reason: 'known_failure', kind: 'rate_limit' } as const));
    const c = recording('c', () => of({ reason: 'interrupted' } as const));
    const h = harness([a.observer, b.observer, c.observer]);
    h.state$.next(stateWith(TURN_1));
    expect(h.delivered).toEqual([
      { turnId: 'turn-1', observer: 'a', ending: { reason: 'success' } },
      { turnId: 'turn-1', observer: 'b', ending: { reason: 'known_failure', kind: 'rate_limit' } },
      { turnId: 'turn-1', observer: 'c', ending: { reason: 'interrupted' } },
    ]);
    expect(h.problems).toEqual([]);
  });

  it('an ending told later, as a promise, is handed over for its own turn', async () => {
    let resolve: (e: ObservedEnding) => void = () => undefined;
    const a = recording('a', () => new Promise<ObservedEnding>((r) => (resolve = r)));
    const h = harness([a.observer]);
    h.state$.next(stateWith(TURN_1));
    expect(h.delivered).toEqual([]);
    resolve({ reason: 'success' });
    await Promise.resolve();
    await Promise.resolve();
    expect(h.delivered).toEqual([
      { turnId: 'turn-1', observer: 'a', ending: { reason: 'success' } },
    ]);
  });

  it('names what an observer got wrong, hands over nothing for it, and runs the others', () => {
    const threw = recording('threw', () => {
      throw new Error('boom');
    });
    const notObservable = recording('not_observable', () => 42 as never);
    const failed = recording('failed', () => throwError(() => new Error('lost')));
    const badEnding = recording('bad_ending', () => of({ reason: 'done' } as never));
    const fine = recording('fine', () => of({ reason: 'success' } as const));
    const h = harness([
      threw.observer,
      notObservable.observer,
      failed.observer,
      badEnding.observer,
      fine.observer,
    ]);
    h.state$.next(stateWith(TURN_1));
    expect(h.problems).toEqual([
      ['threw', 'turn-1', 'observe threw: Error: boom'],
      [
        'not_observable',
        'turn-1',
        expect.stringMatching(/^observe returned what is not observable: /),
      ],
      ['failed', 'turn-1', 'its endings failed: Error: lost'],
      ['bad_ending', 'turn-1', 'field `reason`: must be success, interrupted or known_failure'],
    ]);
    expect(h.delivered).toEqual([
      { turnId: 'turn-1', observer: 'fine', ending: { reason: 'success' } },
    ]);
  });

  it('an observer that leaves a turn alone (null or undefined) is not subscribed to', () => {
    const none = recording('none', () => null);
    const undef = recording('undef', () => undefined);
    const h = harness([none.observer, undef.observer]);
    h.state$.next(stateWith(TURN_1));
    h.state$.next(stateWith(null));
    expect(none.contexts).toHaveLength(1);
    expect(undef.contexts).toHaveLength(1);
    expect(h.problems).toEqual([]);
    expect(h.delivered).toEqual([]);
  });

  it('ends each subscription with its turn: what comes after is not handed over', () => {
    let subscribed = 0;
    let unsubscribed = 0;
    const endings = new Subject<ObservedEnding>();
    const a = recording(
      'a',
      () =>
        new Observable<ObservedEnding>((sub) => {
          subscribed++;
          const s = endings.subscribe(sub);
          return () => {
            unsubscribed++;
            s.unsubscribe();
          };
        }),
    );
    const h = harness([a.observer]);
    h.state$.next(stateWith(TURN_1));
    expect([subscribed, unsubscribed]).toEqual([1, 0]);
    h.state$.next(stateWith(null));
    expect(unsubscribed).toBe(1);
    endings.next({ reason: 'success' });
    expect(h.delivered).toEqual([]);
  });

  it('a turn that ends while its endings are handed over takes no second one, and lets go', () => {
    let unsubscribed = 0;
    const a = recording(
      'a',
      () =>
        new Observable<ObservedEnding>((sub) => {
          sub.next({ reason: 'success' });
          sub.next({ reason: 'interrupted' });
          return () => void unsubscribed++;
        }),
    );
    // The terminal ends the turn as soon as the first ending is delivered.
    const h = harness(
      [a.observer],
      () => 1,
      (state$) => state$.next(stateWith(null)),
    );
    h.state$.next(stateWith(TURN_1));
    expect(h.delivered).toEqual([
      { turnId: 'turn-1', observer: 'a', ending: { reason: 'success' } },
    ]);
    expect(unsubscribed).toBe(1);
  });

  it('stop() ends the open turn and follows the state no more', () => {
    const a = recording('a', () => null);
    const h = harness([a.observer]);
    h.state$.next(stateWith(TURN_1));
    const done = ended(a.contexts[0]!.frames);
    h.runner.stop();
    expect(done()).toBe(true);
    h.state$.next(stateWith(TURN_2));
    expect(a.contexts).toHaveLength(1);
    // A second stop (a runtime disposed twice) is harmless.
    h.runner.stop();
  });

  it('the pane is asked for when each turn begins, not once', () => {
    let pid: number | null = null;
    const a = recording('a', () => null);
    const h = harness([a.observer], () => pid);
    h.state$.next(stateWith(TURN_1));
    pid = 99;
    h.state$.next(stateWith(TURN_2));
    expect(a.contexts.map((c) => c.panePid)).toEqual([null, 99]);
  });
});
