import { Subscriber } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { FlowState } from '../../../src/observe/control/context.js';
import { healthSnapshot, type HealthInput } from '../../../src/observe/control/health.js';
import { routeNotification } from '../../../src/observe/control/routing.js';
import { newWatch, WatchIndex, type Watch } from '../../../src/observe/control/watches.js';
import type { PaneProbe } from '../../../src/observe/types.js';

const flowState = (watches: WatchIndex): FlowState => ({
  watches,
  paused: new Set(),
  off: new Set(),
  bytes: new Map(),
  activity: new Map(),
  attachedSession: '$1',
  outputOff: true,
  pauses: 0,
});
const watch = (target: string): Watch =>
  newWatch({ target, processNames: ['claude'] }, new Subscriber<PaneProbe>());

describe('routeNotification', () => {
  it('marks the watched pane dirty on output and counts its bytes, without an urgent capture', () => {
    const index = new WatchIndex();
    const w = watch('%1');
    w.urgent = false;
    index.add(w);
    const s = flowState(index);
    const routed = routeNotification({ type: 'output', paneId: '%1', bytes: 10 }, 7, s);
    expect(routed).toEqual({ turnOff: null, urgent: false });
    expect([w.dirty, w.cause, w.dirtySeq]).toEqual([true, 'output', 7]);
    routeNotification({ type: 'output', paneId: '%1', bytes: 5 }, 8, s);
    expect(s.bytes.get('%1')).toBe(15);
    expect([w.cause, w.dirtySeq]).toEqual(['output', 8]);
  });

  it('turns an unwatched pane off once, only where tmux can, and only when every target is known', () => {
    const index = new WatchIndex();
    index.add(watch('%1'));
    const s = flowState(index);
    expect(routeNotification({ type: 'output', paneId: '%9', bytes: 1 }, 1, s).turnOff).toBe('%9');
    expect(routeNotification({ type: 'output', paneId: '%9', bytes: 1 }, 2, s).turnOff).toBeNull();
    const old = flowState(index);
    old.outputOff = false;
    expect(
      routeNotification({ type: 'output', paneId: '%8', bytes: 1 }, 1, old).turnOff,
    ).toBeNull();
    index.add(watch('work:0.0'));
    expect(routeNotification({ type: 'output', paneId: '%7', bytes: 1 }, 3, s).turnOff).toBeNull();
  });

  it('makes the panes of a closed window urgent and counts a pause', () => {
    const index = new WatchIndex();
    const w = watch('%1');
    w.urgent = false;
    index.add(w);
    index.locate(w, { paneId: '%1', windowId: '@3', sessionId: '$1' });
    const s = flowState(index);
    s.activity.set('@3', '1 layout');
    const routed = routeNotification({ type: 'window-close', windowId: '@3' }, 4, s);
    expect(routed.urgent).toBe(true);
    expect([w.urgent, w.cause]).toEqual([true, 'lifecycle']);
    expect(s.activity.has('@3')).toBe(false);
    routeNotification({ type: 'pause', paneId: '%1' }, 5, s);
    expect([s.paused.has('%1'), s.pauses, w.dirty]).toEqual([true, 1, true]);
    routeNotification({ type: 'continue', paneId: '%1' }, 6, s);
    expect(s.paused.has('%1')).toBe(false);
  });
});

describe('healthSnapshot', () => {
  const input = (over: Partial<HealthInput> = {}): HealthInput => ({
    now: 10_000,
    at: 1,
    intervalMs: 500,
    tickMs: 125,
    recaptureMs: 60_000,
    connection: 'connected',
    ticking: false,
    tickStartedAt: 0,
    lastLateAt: -Infinity,
    lateMs: 0,
    lastSkipAt: -Infinity,
    budget: Infinity,
    pausedPanes: 0,
    pauses: 0,
    flowControl: true,
    skippedTicks: 0,
    restarts: 0,
    samples: 0,
    ...over,
  });
  const pane = (
    over: Partial<{ dirty: boolean; urgent: boolean; dirtySince: number; lastCaptureAt: number }>,
  ) => ({
    dirty: false,
    urgent: false,
    dirtySince: 0,
    lastCaptureAt: 9_900,
    ...over,
  });

  it('is on time while changed panes wait less than an interval past due', () => {
    const h = healthSnapshot([pane({ dirty: true, dirtySince: 9_500 }), pane({})], input());
    expect(h).toMatchObject({ lagging: false, lagMs: 0, backlog: 1, panes: 2, degraded: false });
  });

  it('lags when a changed pane waits more than an interval past its due time', () => {
    const h = healthSnapshot(
      [pane({ dirty: true, dirtySince: 8_000, lastCaptureAt: 7_000 })],
      input(),
    );
    expect(h.lagMs).toBe(10_000 - 8_000 - 125);
    expect(h.lagging).toBe(true);
  });

  it('lags while a tick waits on tmux for more than an interval, and after a skipped tick', () => {
    expect(healthSnapshot([], input({ ticking: true, tickStartedAt: 8_000 })).lagMs).toBe(1_500);
    expect(healthSnapshot([], input({ lastSkipAt: 9_500 })).lagging).toBe(true);
    expect(healthSnapshot([], input({ lastSkipAt: 8_999 })).lagging).toBe(false);
  });

  it('is degraded while the budget is limited or quiet panes are not re-captured in time', () => {
    expect(healthSnapshot([], input({ budget: 20 })).degraded).toBe(true);
    expect(healthSnapshot([pane({ lastCaptureAt: -200_000 })], input()).degraded).toBe(true);
  });
});
