/**
 * Version drift in the pipeline: a CLI found to be newer than its verified versions is read as
 * unrecognised and recorded as an anomaly naming the tool and version; frames of no known shape
 * are counted into anomaly records, at most one a minute while they go on.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/kernel/virtual-time.js';
import { getProfile, verifiedVersionsOf } from '../../src/profiles/index.js';
import type { JournalRecord } from '../../src/schemas/record.js';
import { TerminalPipeline } from '../../src/terminal/pipeline.js';

function idleClaudeFrame(): string {
  return readFileSync('test/fixtures/claude_code/startup.jsonl', 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { type: string; text?: string })
    .filter((l) => l.type === 'frame')
    .at(-1)!.text!;
}

const UP = { transport: 'tmux_up', process: 'tui_up' } as const;
const UNKNOWN_SCREEN = 'Welcome to Agent 9.0\n\n> _\n';

function pipeline() {
  const clock = new VirtualClock();
  const p = new TerminalPipeline({
    terminalId: 't',
    profile: getProfile('claude_code'),
    scheduler: clock.scheduler,
  });
  const frame = (t: number, text: string) => {
    clock.advanceTo(t * 1000);
    p.frame(t, { text }, UP);
  };
  const anomalies = async () => {
    await p.journal.flush();
    return p.journal
      .read()
      .filter((r): r is Extract<JournalRecord, { kind: 'anomaly' }> => r.kind === 'anomaly');
  };
  return { p, frame, anomalies };
}

describe('version drift in the pipeline', () => {
  it('a newer Claude Code found in the pane: read with the newest vocabulary, marked unverified, and the anomaly names it', async () => {
    const { p, frame, anomalies } = pipeline();
    frame(0, idleClaudeFrame());
    expect(p.state.readiness.status).toBe('ready');
    expect(p.state.toolVersionVerified).toBeNull();
    const changed = p.useVersion(1, '2.2.0', getProfile('claude_code', '2.2.0'), 'process');
    expect(changed).toBe(true);
    expect(p.state.toolVersion).toBe('2.2.0');
    for (let t = 2; t < 40; t++) frame(t, idleClaudeFrame());
    expect(p.state.readiness.status).toBe('ready');
    expect(p.state.toolVersionVerified).toBe(false);
    const found = await anomalies();
    expect(found[0]).toMatchObject({
      anomaly: 'version_unverified',
      tool: 'claude_code',
      toolVersion: '2.2.0',
      verifiedVersions: [...verifiedVersionsOf('claude_code')],
      newer: true,
      screensRead: 'nearest_vocabulary',
      source: 'process',
    });
    expect(found.filter((a) => a.anomaly === 'unrecognised_screen')).toHaveLength(0);
  });

  it('under the strict gate (verifiedOnly) its screens are not read, and the anomaly says so', async () => {
    const { p, frame, anomalies } = pipeline();
    frame(0, idleClaudeFrame());
    const gated = getProfile('claude_code', '2.2.0', { verifiedOnly: true });
    expect(p.useVersion(1, '2.2.0', gated, 'process')).toBe(true);
    for (let t = 2; t < 40; t++) frame(t, idleClaudeFrame());
    expect(p.state.readiness.status).not.toBe('ready');
    expect(p.state.surface.uiContext).toBe('unrecognised');
    expect(p.state.lastTurn.result).toBe('none');
    const found = await anomalies();
    expect(found[0]).toMatchObject({ anomaly: 'version_unverified', screensRead: 'unrecognised' });
    expect(found.filter((a) => a.anomaly === 'unrecognised_screen')).toHaveLength(1);
  });

  it('the verified version changes nothing and records no anomaly; the same version twice is no news', async () => {
    const { p, frame, anomalies } = pipeline();
    frame(0, idleClaudeFrame());
    expect(p.useVersion(1, '2.1.330', getProfile('claude_code', '2.1.330'), 'process')).toBe(true);
    expect(p.useVersion(2, '2.1.330', getProfile('claude_code', '2.1.330'), 'process')).toBe(false);
    frame(3, idleClaudeFrame());
    expect(p.state.readiness.status).toBe('ready');
    expect(p.state.toolVersion).toBe('2.1.330');
    expect(await anomalies()).toEqual([]);
  });

  it('an older version is read with the nearest vocabulary, and still recorded as unverified', async () => {
    const { p, frame, anomalies } = pipeline();
    p.useVersion(0, '2.1.100', getProfile('claude_code', '2.1.100'), 'attach');
    frame(1, idleClaudeFrame());
    expect(p.state.readiness.status).toBe('ready');
    expect((await anomalies())[0]).toMatchObject({
      anomaly: 'version_unverified',
      newer: false,
      screensRead: 'nearest_vocabulary',
      source: 'attach',
    });
  });

  it('counts unrecognised frames: the first at once, then one record a minute with the count', async () => {
    const { p, frame, anomalies } = pipeline();
    // 150 unrecognised frames, one a second, then a recognised one.
    for (let t = 0; t < 150; t++) frame(t, UNKNOWN_SCREEN);
    frame(150, idleClaudeFrame());
    const runs = (await anomalies()).filter((a) => a.anomaly === 'unrecognised_screen');
    expect(runs.map((r) => [r.t, r.frames, r.firstT])).toEqual([
      [0, 1, 0],
      [60, 60, 1],
      [120, 60, 61],
      [150, 29, 121],
    ]);
    expect(runs.reduce((n, r) => n + r.frames, 0)).toBe(150);
    expect(p.state.readiness.status).toBe('ready');
  });

  it('keeps nothing back at the end: frames not yet recorded are written when the terminal stops', async () => {
    const { p, frame } = pipeline();
    for (let t = 0; t < 5; t++) frame(t, UNKNOWN_SCREEN);
    const journal = p.journal;
    p.dispose();
    await journal.flush();
    const frames = journal
      .read()
      .flatMap((r) =>
        r.kind === 'anomaly' && r.anomaly === 'unrecognised_screen' ? [r.frames] : [],
      );
    expect(frames).toEqual([1, 4]);
  });
});
