import type { TerminalState } from '../../../src/schemas/terminal-state.js';

export interface Seen {
  /** Wall-clock epoch ms when state$ emitted this state. */
  at: number;
  s: TerminalState;
}

/** Every state a terminal published, with wall time; waiters are woken on each one. */
export class Timeline {
  readonly seen: Seen[] = [];
  private readonly waiters = new Set<() => void>();

  /**
   * @param screen the pane's screen now; a wait that times out prints it under the states, since
   * a state the profile could not name says nothing of what the pane showed.
   */
  constructor(private readonly screen?: () => Promise<string>) {}

  push(s: TerminalState): void {
    this.seen.push({ at: Date.now(), s });
    this.waiters.forEach((w) => w());
  }

  /** Resolves with the first state at or after index `from` that matches. */
  waitFor(
    what: string,
    pred: (s: TerminalState) => boolean,
    opts: { from?: number; timeoutMs?: number } = {},
  ): Promise<Seen> {
    const from = opts.from ?? 0;
    const timeoutMs = opts.timeoutMs ?? 30_000;
    return new Promise((resolvePromise, reject) => {
      const check = () => {
        const hit = this.seen.slice(from).find((e) => pred(e.s));
        if (!hit) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolvePromise(hit);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        const message = `${what}: not seen within ${timeoutMs} ms\n${this.describe(from)}`;
        if (!this.screen) return reject(new Error(message));
        this.screen().then(
          (screen) => reject(new Error(`${message}\nthe pane shows:\n${screen}`)),
          (err: unknown) =>
            reject(new Error(`${message}\n(the pane could not be read: ${String(err)})`)),
        );
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  /** The public fields that matter here, one line per change (for failure messages). */
  describe(from = 0): string {
    const t0 = this.seen[0]?.at ?? 0;
    return this.seen
      .slice(from)
      .map(
        ({ at, s }) =>
          `+${((at - t0) / 1000).toFixed(2)}s diag=${s.diagnostics.availability} ` +
          `ready=${s.readiness.status} phase=${s.turn.phase} cur=${s.turn.current?.id ?? '-'} ` +
          `completion=${s.completion ? `${s.completion.turnId}:${s.completion.status}` : '-'} ` +
          `last=${s.lastTurn.result}/${s.lastTurn.turnId ?? '-'} ui=${s.surface.uiContext} ` +
          `stable=${s.stability.stable}`,
      )
      .join('\n');
  }
}
