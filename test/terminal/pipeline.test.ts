import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/kernel/virtual-time.js';
import { getProfile } from '../../src/profiles/index.js';
import { TerminalPipeline } from '../../src/terminal/pipeline.js';

/** The idle prompt of a real Claude Code recording (the last frame of its start-up). */
function idleClaudeFrame(): string {
  const frames = readFileSync('test/fixtures/claude_code/startup.jsonl', 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { type: string; text?: string })
    .filter((l) => l.type === 'frame');
  return frames.at(-1)!.text!;
}

function pipeline(config = {}) {
  const clock = new VirtualClock();
  const p = new TerminalPipeline({
    terminalId: 't',
    profile: getProfile('claude_code', '2.1.330'),
    config: { stallTimeoutSeconds: 2, ...config },
    scheduler: clock.scheduler,
  });
  const at = (t: number) => {
    clock.advanceTo(t);
    p.advance(t);
  };
  return { p, clock, at };
}

const UP = { transport: 'tmux_up', process: 'tui_up' } as const;

describe('TerminalPipeline', () => {
  it('reads a real idle screen as ready; the record names the changed fields, the rules and the screen', async () => {
    const { p } = pipeline();
    const text = idleClaudeFrame();
    p.frame(0, { text }, UP);
    expect(p.state.readiness.status).toBe('ready');
    expect(p.state.diagnostics).toMatchObject({ availability: 'available', parse: 'parsed' });
    await p.journal.flush();
    const rec = p.journal.read().find((r) => r.kind === 'state' && r.changed['readiness.status']);
    expect(rec).toMatchObject({
      v: 1,
      seq: expect.any(Number),
      terminalId: 't',
      kind: 'state',
      changed: { 'readiness.status': 'ready', 'diagnostics.availability': 'available' },
      transitions: expect.arrayContaining([
        {
          machine: 'readiness',
          from: 'waiting',
          to: 'ready',
          event: 'evt_submit_ready',
          rule: 'submit_ready',
        },
        {
          machine: 'diagnostics',
          from: 'unknown',
          to: 'available',
          event: 'evt_probe_available',
          rule: 'parsed',
        },
      ]),
      evidence: {
        profile: 'claude_code',
        detector: expect.stringMatching(/^claude_code/),
        screenHash: createHash('sha256').update(text).digest('hex').slice(0, 16),
      },
    });
  });

  it('stalls when probes keep failing, even with no further poll, and records the parser family', async () => {
    const { p, at } = pipeline();
    p.frame(0, { text: idleClaudeFrame() }, UP);
    p.probe(1, {
      transport: 'probe_error',
      process: 'unknown',
      error: { kind: 'tmux_timeout', message: 'hung' },
    });
    expect(p.state.diagnostics.availability).toBe('error');
    expect(p.state.readiness.status).toBe('unknown');
    expect(p.state.turn.phase).toBe('unknown');
    at(3); // no poll at all after t=1: a hung probe must still stall
    expect(p.state.readiness.status).toBe('stalled');
    await p.journal.flush();
    expect(p.journal.read()).toContainEqual(
      expect.objectContaining({
        kind: 'anomaly',
        anomaly: 'stalled_entered',
        phase: 'readiness',
        t: 3,
        elapsedUnknownSeconds: 2,
        parserFamily: 'claude_code',
      }),
    );
    p.frame(4.5, { text: idleClaudeFrame() }, UP);
    expect(p.state.readiness.status).toBe('ready');
    await p.journal.flush();
    expect(p.journal.read()).toContainEqual(
      expect.objectContaining({ anomaly: 'stalled_recovered', elapsedStalledSeconds: 1.5 }),
    );
  });

  it('trusts the process over the screen: a dead TUI leaves its last screen behind', () => {
    const { p } = pipeline();
    p.frame(0, { text: idleClaudeFrame() }, UP);
    p.frame(0.5, { text: idleClaudeFrame() }, { transport: 'tmux_up', process: 'tui_down' });
    expect(p.state.diagnostics).toMatchObject({
      availability: 'tui_down',
      parse: 'skipped_tui_down',
    });
    expect(p.state.readiness.status).toBe('failed');
    p.probe(1, { transport: 'tmux_missing', process: 'unknown' });
    expect(p.state.diagnostics.availability).toBe('unavailable');
  });

  it('publishes no new state when only the clock moves', () => {
    const { p } = pipeline();
    const seen: number[] = [];
    p.state$.subscribe((s) => seen.push(s.t));
    p.frame(0, { text: idleClaudeFrame() }, UP);
    const before = seen.length;
    p.frame(0.5, { text: idleClaudeFrame() }, UP);
    p.frame(1.0, { text: idleClaudeFrame() }, UP);
    // stability.stable turns true once the surface held still for stabilitySeconds (1 s).
    expect(seen.length - before).toBe(1);
    expect(p.state.stability).toEqual({ stable: true, stableForSeconds: 1 });
  });
});

describe('surface stability on its own clock', () => {
  it('turns stable when the window ends, with no frame after the last change (control mode samples on change)', () => {
    const { p, clock } = pipeline({ stabilitySeconds: 1 });
    const seen: Array<[number, boolean]> = [];
    p.state$.subscribe((s) => seen.push([s.t, s.stability.stable]));
    clock.advanceTo(0);
    p.frame(0, { text: idleClaudeFrame() }, UP);
    expect(p.state.stability.stable).toBe(false);
    clock.advanceTo(0.999);
    expect(p.state.stability.stable).toBe(false);
    clock.advanceTo(1.5);
    expect(p.state.stability.stable).toBe(true);
    expect(seen.find(([, stable]) => stable)?.[0]).toBeCloseTo(1, 6);
  });
});
