/**
 * The pipeline's own anomaly records and its end: a CLI version its profile was not verified
 * against, frames of no known shape (counted, the first at once, then at most one record a
 * minute while they go on, the rest when they stop or the terminal does), and what stopping a
 * terminal releases.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { VirtualClock } from '../../src/kernel/virtual-time.js';
import { KernelConfig } from '../../src/schemas/kernel.js';
import type { JournalRecord } from '../../src/schemas/record.js';
import { standaloneSite } from '../../src/kernel/charts.js';
import { TerminalPipeline } from '../../src/terminal/pipeline.js';
import { lineProfile, linePipeline } from './internal/line-profile.js';

const hash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

function payload(r: JournalRecord): Record<string, unknown> {
  const { v: _v, seq: _seq, at: _at, ...rest } = r;
  return rest;
}

describe('version_unverified', () => {
  it('a version newer than every verified one, read as unrecognised: the record says so', async () => {
    const { p, ofKind } = linePipeline();
    const profile = lineProfile({ id: 'lines2', unverifiedUnread: true });
    expect(p.useVersion(3, '2.0.0', profile, 'process')).toBe(true);
    expect((await ofKind('anomaly')).map(payload)).toEqual([
      {
        kind: 'anomaly',
        terminalId: 't1',
        anomaly: 'version_unverified',
        t: 3,
        tool: 'lines2',
        toolVersion: '2.0.0',
        verifiedVersions: ['1.0.0'],
        newer: true,
        screensRead: 'unrecognised',
        source: 'process',
      },
    ]);
    expect(p.state).toMatchObject({ t: 3, tool: 'lines2', toolVersion: '2.0.0' });
    const last = (await ofKind('state')).at(-1)!;
    expect(payload(last)).toEqual({
      kind: 'state',
      terminalId: 't1',
      t: 3,
      // The terminal's first published state also says since when readiness and phase hold.
      changed: { tool: 'lines2', toolVersion: '2.0.0', 'turn.since': 3, 'readiness.since': 3 },
      transitions: [],
      evidence: null,
    });
  });

  it('an older version, read with the nearest vocabulary', async () => {
    const { p, ofKind } = linePipeline();
    p.useVersion(0, '0.9.0', lineProfile(), 'attach');
    expect((await ofKind('anomaly'))[0]).toMatchObject({
      toolVersion: '0.9.0',
      newer: false,
      screensRead: 'nearest_vocabulary',
      source: 'attach',
    });
  });

  it('a profile verified against nothing: every version is unverified, none newer', async () => {
    const { p, ofKind } = linePipeline();
    p.useVersion(0, '5.0.0', lineProfile({ verified: undefined }), 'attach');
    expect((await ofKind('anomaly'))[0]).toMatchObject({ verifiedVersions: [], newer: false });
  });

  it('a verified version records no anomaly; the screens are read with the new profile', async () => {
    const { p, frame, ofKind } = linePipeline({ toolVersion: undefined });
    p.useVersion(0, '1.0.0', lineProfile({ id: 'lines-b' }), 'attach');
    frame(1, 'ready');
    expect(await ofKind('anomaly')).toEqual([]);
    expect(p.state).toMatchObject({ tool: 'lines-b', toolVersion: '1.0.0' });
    expect((await ofKind('state')).at(-1)!.evidence).toMatchObject({
      profile: 'lines-b',
      profileVersion: '1.0.0',
    });
  });

  it('the running CLI reporting the version already known is no news; an attach always is', async () => {
    const { p, ofKind } = linePipeline();
    expect(p.useVersion(1, '1.0.0', lineProfile(), 'process')).toBe(false);
    expect(p.useVersion(2, '1.0.0', lineProfile({ id: 'other' }), 'attach')).toBe(true);
    expect(p.state.tool).toBe('other');
    expect(p.useVersion(3, '1.0.1', lineProfile(), 'process')).toBe(true);
    expect(p.state.toolVersion).toBe('1.0.1');
    expect((await ofKind('anomaly')).map((a) => a.t)).toEqual([3]);
  });
});

/** The unrecognised_screen records (stall anomalies of the same frames are not these). */
const unrecognised = (records: JournalRecord[]) =>
  records.filter(
    (r): r is Extract<JournalRecord, { anomaly: 'unrecognised_screen' }> =>
      r.kind === 'anomaly' && r.anomaly === 'unrecognised_screen',
  );

describe('unrecognised_screen', () => {
  it('the first such frame is recorded at once with the tool, the version and the screen', async () => {
    const { frame, ofKind, p } = linePipeline();
    frame(5, 'a banner\nsomething new');
    expect((await ofKind('anomaly')).map(payload)).toEqual([
      {
        kind: 'anomaly',
        terminalId: 't1',
        anomaly: 'unrecognised_screen',
        t: 5,
        tool: 'lines',
        toolVersion: '1.0.0',
        frames: 1,
        firstT: 5,
        screenHash: hash('a banner\nsomething new'),
      },
    ]);
    // The frame itself is still read: the surface the profile gives is public.
    expect(p.state.surface.uiContext).toBe('unrecognised');
  });

  it('while they go on, one record a minute exactly, counting the frames and naming the latest', async () => {
    const { frame, records } = linePipeline();
    frame(0, 'x');
    frame(30, 'y');
    frame(59.5, 'z');
    expect(unrecognised(await records()).map((a) => a.t)).toEqual([0]);
    frame(60, 'w');
    const runs = unrecognised(await records()).map(payload);
    expect(runs[1]).toMatchObject({ t: 60, frames: 3, firstT: 30, screenHash: hash('w') });
    frame(90, 'v');
    frame(119.5, 'u');
    frame(120, 't');
    expect(unrecognised(await records()).map((a) => [a.t, a.frames])).toEqual([
      [0, 1],
      [60, 3],
      [120, 3],
    ]);
  });

  it('frames not yet recorded are recorded when a readable frame follows, and only then', async () => {
    const { frame, ofKind } = linePipeline();
    frame(0, 'x');
    frame(10, 'ready');
    frame(20, 'ready');
    expect(await ofKind('anomaly')).toHaveLength(1);
    frame(30, 'y');
    frame(31, 'z');
    expect(await ofKind('anomaly')).toHaveLength(1);
    frame(40, 'ready');
    frame(41, 'ready');
    expect((await ofKind('anomaly')).map(payload)).toEqual([
      expect.objectContaining({ t: 0, frames: 1 }),
      expect.objectContaining({ t: 40, frames: 2, firstT: 30, screenHash: hash('z') }),
    ]);
  });

  it('a poll whose screen is not read ends a run too', async () => {
    const { frame, ofKind } = linePipeline();
    frame(0, 'x');
    frame(1, 'y');
    frame(2, 'y', { transport: 'tmux_up', process: 'tui_down' });
    expect((await ofKind('anomaly')).map((a) => a.t)).toEqual([0, 2]);
  });

  it('a screen the profile does not call unrecognised counts as recognised', async () => {
    const base = lineProfile();
    const profile = lineProfile({
      parse: (screen) => {
        const { recognised: _r, ...rest } = base.parse(screen);
        return rest;
      },
    });
    const { frame, ofKind } = linePipeline({ profile });
    frame(0, 'x');
    expect(await ofKind('anomaly')).toEqual([]);
  });

  it('an unsupported tool reads nothing it could fail to recognise', async () => {
    const { frame, ofKind } = linePipeline();
    frame(0, 'x', { transport: 'tmux_up', process: 'unsupported_tool' });
    expect(await ofKind('anomaly')).toEqual([]);
  });

  it('a terminal with no version records none', async () => {
    const { frame, ofKind } = linePipeline({ toolVersion: undefined });
    frame(0, 'x');
    expect((await ofKind('anomaly'))[0]).toMatchObject({ toolVersion: null });
  });

  it('stopping the terminal records what is left, once, at the latest time', async () => {
    const { frame, p } = linePipeline();
    const journal = p.journal;
    frame(0, 'x');
    frame(1, 'y');
    p.advance(4);
    p.dispose();
    p.dispose();
    await journal.flush();
    expect(
      journal
        .read()
        .filter((r) => r.kind === 'anomaly')
        .map((r) => [r.t, 'frames' in r && r.frames]),
    ).toEqual([
      [0, 1],
      [4, 1],
    ]);
  });
});

describe('stopping a terminal', () => {
  /** A terminal that saw one frame, on a journal it does not own, stopped; and what it had recorded. */
  async function stoppedAfterOneFrame() {
    const clock = new VirtualClock();
    const journal = new Journal({ dataDir: null, scheduler: clock.scheduler });
    const { frame, p } = linePipeline({ scheduler: clock.scheduler, journal });
    frame(0, 'ready');
    await journal.flush();
    const before = journal.read().length;
    p.dispose();
    return { journal, frame, before };
  }

  it('with nothing left to record, records nothing', async () => {
    const { journal, before } = await stoppedAfterOneFrame();
    await journal.flush();
    expect(journal.read()).toHaveLength(before);
  });

  it('a poll that arrives after the terminal stopped records nothing', async () => {
    const { journal, frame, before } = await stoppedAfterOneFrame();
    // The stopped charts say so on the console; that is not what is checked here.
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      frame(1, 'working');
    } finally {
      warn.mockRestore();
    }
    await journal.flush();
    expect(journal.read()).toHaveLength(before);
  });

  it('closes the journal it made itself, not one it was given', async () => {
    const own = linePipeline();
    own.p.dispose();
    await new Promise((r) => setImmediate(r));
    await expect(
      own.p.journal.append({ kind: 'terminal.detached', terminalId: 't1' }),
    ).rejects.toThrow(/closed/);

    const clock = new VirtualClock();
    const journal = new Journal({ dataDir: null, scheduler: clock.scheduler });
    const given = linePipeline({ scheduler: clock.scheduler, journal });
    given.p.dispose();
    await new Promise((r) => setImmediate(r));
    await expect(
      journal.append({ kind: 'terminal.detached', terminalId: 't1' }),
    ).resolves.toMatchObject({
      kind: 'terminal.detached',
    });
  });

  it('publishes nothing more and completes its state stream', () => {
    const { p, frame } = linePipeline({ watchdogBudgetSeconds: 5 });
    let completed = false;
    const seen: string[] = [];
    p.state$.subscribe({
      next: (s) => seen.push(s.readiness.status),
      complete: () => (completed = true),
    });
    p.startSession(0);
    frame(1, 'ready');
    p.dispose();
    expect(completed).toBe(true);
    const count = seen.length;
    p.advance(10);
    expect(seen).toHaveLength(count);
  });

  it('leaves the charts of a site it was given running, and stops the ones it made', () => {
    const clock = new VirtualClock();
    const config = KernelConfig.parse({});
    const site = standaloneSite({ config });
    const completions: Array<{ getSnapshot(): { status: string } }> = [];
    const p = new TerminalPipeline({
      terminalId: 't1',
      profile: lineProfile(),
      scheduler: clock.scheduler,
      site: {
        hub: site.hub,
        charts: site.charts,
        readiness: (input) => site.readiness(input),
        stopCompletion: (id) => site.stopCompletion(id),
        dispose: () => site.dispose(),
        completion: (id, input) => {
          const actor = site.completion(id, input);
          completions.push(actor);
          return actor;
        },
      },
    });
    p.frame(0, { text: 'ready' }, { transport: 'tmux_up', process: 'tui_up' });
    p.submit(1);
    p.submit(2);
    // The first turn's completion chart is stopped once the second takes its place.
    expect(completions.map((c) => c.getSnapshot().status)).toEqual(['stopped', 'active']);
    p.dispose();
    expect(site.charts.watchdog.getSnapshot().status).toBe('active');
    expect(site.charts.turnPhase.getSnapshot().status).toBe('active');
    site.dispose();
    expect(site.charts.watchdog.getSnapshot().status).toBe('stopped');
    expect(completions[1]!.getSnapshot().status).toBe('stopped');
  });

  it('a standalone site stops a turn without a completion chart as nothing', () => {
    const site = standaloneSite({ config: KernelConfig.parse({}) });
    expect(() => site.stopCompletion('turn-1')).not.toThrow();
    site.dispose();
  });

  it("wakes its timers on the scheduler's clock, observation time 0 at the origin", () => {
    const clock = new VirtualClock();
    const p = new TerminalPipeline({
      terminalId: 't1',
      profile: lineProfile(),
      scheduler: clock.scheduler,
      originMs: 5000,
      watchdogBudgetSeconds: 1,
    });
    p.startSession(0);
    // Only the clock moves: the deadline (observation 1) is scheduler time 6000 ms.
    clock.advanceTo(5.9);
    expect(p.state.watchdog.state).toBe('armed');
    clock.advanceTo(6.1);
    expect(p.state.watchdog.state).toBe('fired');
    p.dispose();
  });

  it('a standalone site starts each chart with its terminal settings', () => {
    const config = KernelConfig.parse({ settleSeconds: 3 });
    const site = standaloneSite({
      config,
      watchdogBudgetSeconds: 12,
      openTurn: {
        turn: { id: 'turn-5', source: 'explicit_input', startedAt: 2 },
        hadEvidence: false,
      },
    });
    expect(site.charts.watchdog.getSnapshot().context.budgetSeconds).toBe(12);
    expect(site.charts.turnPhase.getSnapshot().context).toMatchObject({
      settleSeconds: 3,
      current: { id: 'turn-5', source: 'explicit_input', startedAt: 2 },
    });
    const bare = standaloneSite({ config });
    expect(bare.charts.watchdog.getSnapshot().context.budgetSeconds).toBe(0);
    expect(bare.charts.turnPhase.getSnapshot().context.current).toBeNull();
    site.dispose();
    bare.dispose();
  });
});
