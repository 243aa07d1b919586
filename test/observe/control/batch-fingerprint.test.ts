import { describe, expect, it } from 'vitest';
import { markRepeat, parseFacts, readAnswer } from '../../../src/observe/control/batch.js';
import { activityChanges, fingerprintChanges } from '../../../src/observe/control/fingerprint.js';
import { floodingPanes } from '../../../src/observe/control/flow.js';
import type { ControlReply } from '../../../src/observe/control-protocol.js';
import type { PaneProbe } from '../../../src/observe/types.js';

const base = { tookMs: 1, sampledAt: 1, cause: 'output' as const };
const reply = (ok: boolean, body: string): ControlReply => ({
  number: 1,
  time: 0,
  fromClient: true,
  ok,
  body,
  seq: 1,
});
const ok = (body: string) => reply(true, body);
const fail = (body: string) => reply(false, body);
const facts = '%3\t@2\t$1\t4242\t0\t80\t24\tnode';

describe('a batch reply read back into a sample', () => {
  it('parses pane facts and refuses what is not a pane', () => {
    expect(parseFacts(facts)).toEqual({
      pane: { id: '%3', pid: 4242, dead: false, currentCommand: 'node', width: 80, height: 24 },
      windowId: '@2',
      sessionId: '$1',
    });
    expect(parseFacts('')).toBeNull();
    expect(parseFacts('%3\t@2\t$1\tx\t0\t80\t24\tnode')).toBeNull();
  });

  it('lets capture-pane decide whether the pane exists', () => {
    const gone = readAnswer(ok(facts), fail("can't find pane: %9"), undefined, base);
    expect(gone.kind).toBe('gone');
    expect(gone.kind === 'gone' && gone.probe.transport).toBe('tmux_missing');
    const refused = readAnswer(ok(facts), fail('bad flag: -Z'), undefined, base);
    expect(refused.kind === 'gone' && refused.probe.error?.kind).toBe('tmux_failed');
    const unparsed = readAnswer(ok('garbage'), ok('screen'), undefined, base);
    expect(unparsed.kind === 'unparsed' && unparsed.probe.error?.kind).toBe('parse');
    const answered = readAnswer(
      ok(facts),
      ok('screen'),
      { status: 'fulfilled', value: ok('\x1b[1mscreen') },
      base,
    );
    expect(answered.kind === 'answered' && answered.capture).toEqual({
      text: 'screen',
      ansi: '\x1b[1mscreen',
    });
  });

  it('marks a repeat unchanged and hands out the strings it already holds', () => {
    const probe = (text: string): PaneProbe => ({
      transport: 'tmux_up',
      process: 'tui_up',
      capture: { text },
      pane: null,
      pids: [7],
      error: null,
      tookMs: 1,
    });
    const first = markRepeat(probe('a'.repeat(3)), null, null);
    expect(first.out.unchanged).toBe(false);
    const again = markRepeat(probe('aaa'), first.last, 'tmux_up');
    expect(again.out.unchanged).toBe(true);
    expect(again.last).toBe(first.last);
    expect(markRepeat(probe('aab'), first.last, 'tmux_up').out.unchanged).toBe(false);
    const missing: PaneProbe = { ...probe(''), transport: 'tmux_missing', capture: null };
    expect(markRepeat(missing, first.last, 'tmux_up').out.unchanged).toBe(false);
    expect(markRepeat(missing, null, 'tmux_missing')).toEqual({
      out: { ...missing, unchanged: true },
      last: null,
    });
  });
});

describe('changes found without output', () => {
  const watch = (paneId: string, lastCaptureAt = 0) => ({
    paneId,
    lastCaptureAt,
    lastTransport: 'tmux_up' as const,
    fingerprint: null as string | null,
  });
  const fp = (id: string, size: string, cursor: string) =>
    [id, '@1', '100', '0', size, '0', '0', cursor, '0'].join('\t');

  it('captures a pane whose fingerprint moved, on structure only if it was captured since', () => {
    const a = watch('%1');
    const b = watch('%2', 100);
    const gone = watch('%3');
    const all = [a, b, gone];
    const byPane = (id: string) => all.filter((w) => w.paneId === id);
    fingerprintChanges(
      `${fp('%1', '80x24', '0,0')}\n${fp('%2', '80x24', '0,0')}\n${fp('%3', '80x24', '0,0')}`,
      all,
      byPane,
      0,
    );
    const next = `${fp('%1', '80x24', '5,0')}\n${fp('%2', '80x24', '5,0')}`;
    const { changed, missing } = fingerprintChanges(next, all, byPane, 50);
    expect(changed).toEqual([a]);
    expect(missing).toEqual([gone]);
    const resized = fingerprintChanges(fp('%2', '100x30', '5,0'), [b], byPane, 50);
    expect(resized.changed).toEqual([b]);
  });

  it('reads off-session windows by activity and layout', () => {
    const off = { sessionId: '$2' };
    const on = { sessionId: '$1' };
    const seen = new Map<string, string>();
    const byWindow = (id: string) => (id === '@5' ? [off, on] : undefined);
    expect(activityChanges('@5\t100\tlayout', byWindow, seen, 0, '$1')).toEqual([off]);
    expect(activityChanges('@5\t100\tlayout', byWindow, seen, 101, '$1')).toEqual([]);
    expect(activityChanges('@5\t100\tlayout2', byWindow, seen, 101, '$1')).toEqual([off]);
  });

  it('pauses panes over the flood threshold that are not paused yet', () => {
    const bytes = new Map([
      ['%1', 70_000],
      ['%2', 10],
      ['%3', 90_000],
    ]);
    expect(floodingPanes(bytes, new Set(['%3']), 65_536)).toEqual(['%1']);
  });
});
