import type { Observable } from 'rxjs';
import { describe, expectTypeOf, it } from 'vitest';
import * as paneward from '../src/index.js';
import type { TerminalState, TurnResult } from '../src/index.js';

// Checked by `npm run typecheck` (tsc reads test/): the public surface keeps these shapes.
describe('public API types', () => {
  it('supervisor methods', () => {
    const sup = paneward.createSupervisor({ socketName: 'x', dataDir: null });
    expectTypeOf(sup.attach).parameter(0).toMatchTypeOf<{ target: string; tool?: string }>();
    expectTypeOf(sup.attach).returns.toEqualTypeOf<Promise<string>>();
    expectTypeOf(sup.attachPane).returns.toEqualTypeOf<Promise<string>>();
    expectTypeOf(sup.state$).returns.toEqualTypeOf<Observable<TerminalState>>();
    expectTypeOf(sup.get).returns.toEqualTypeOf<TerminalState>();
    expectTypeOf(sup.submit).returns.toEqualTypeOf<Promise<string>>();
    expectTypeOf(sup.runTurn).returns.toEqualTypeOf<Promise<TurnResult>>();
    expectTypeOf(sup.waitForTurn)
      .parameter(2)
      .toEqualTypeOf<{ timeoutMs?: number; signal?: AbortSignal } | undefined>();
    expectTypeOf(sup.stop).returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf(sup.resume).returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf(sup.records$).returns.toEqualTypeOf<Observable<paneward.JournalRecord>>();
    expectTypeOf(sup.history).returns.toEqualTypeOf<paneward.JournalRecord[]>();
    void sup.stop();
  });

  it('state fields are literal unions, not strings', () => {
    expectTypeOf<TerminalState['readiness']['status']>().toEqualTypeOf<
      'waiting' | 'unknown' | 'stalled' | 'ready' | 'blocked' | 'failed'
    >();
    expectTypeOf<TerminalState['lastTurn']['result']>().toEqualTypeOf<
      'none' | 'success' | 'interrupted' | 'known_failure'
    >();
    expectTypeOf<TurnResult['result']>().toEqualTypeOf<'completed' | 'failed'>();
    expectTypeOf<paneward.PanewardError['code']>().toEqualTypeOf<paneward.PanewardErrorCode>();
  });
});
