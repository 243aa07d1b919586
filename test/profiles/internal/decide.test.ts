import { describe, expect, it } from 'vitest';
import { decide, type ScreenReading } from '../../../src/profiles/internal/decide.js';
import { ProfileResult } from '../../../src/schemas/signals.js';

const failure = { kind: 'server_error', message: 'HTTP 500', status: 500 } as const;
const cli = (over: Partial<Extract<ScreenReading, { shape: 'cli' }>> = {}): ScreenReading => ({
  shape: 'cli',
  dialog: null,
  prompt: { mode: 'freeform', editing: false },
  active: [],
  outcome: null,
  projection: 'transcript',
  live: [],
  ...over,
});
const run = (r: ScreenReading) => ProfileResult.parse(decide(r, 'x@1'));

describe('the shared decision sequence', () => {
  it('reads a screen of no known shape as unknown and unrecognised, never ready', () => {
    const r = run({ shape: 'unrecognised' });
    expect(r.recognised).toBe(false);
    expect(r.surface).toMatchObject({ availability: 'unknown', businessState: 'unknown' });
    expect(r.signals.readyPosture).toBe('unknown');
    expect(r.signals.successCandidate).toBe(false);
    expect(run(cli()).recognised).toBe(true);
    expect(run({ shape: 'blank' }).recognised).toBe(true);
  });

  it('reads an exited CLI as disconnected', () => {
    const r = run({ shape: 'exited', why: 'goodbye' });
    expect(r.surface).toMatchObject({ availability: 'disconnected', inputMode: 'closed' });
    expect(r.evidence).toEqual({ detector: 'x@1', rule: 'exited:goodbye' });
  });

  it('puts a dialog before everything else, and names what blocks', () => {
    const r = run(
      cli({ dialog: 'permission_prompt', prompt: null, outcome: { kind: 'finished' } }),
    );
    expect(r.surface).toMatchObject({
      businessState: 'awaiting_operator',
      uiContext: 'permission_prompt',
    });
    expect(r.signals).toMatchObject({ blockedPrompt: 'tool_permission', successCandidate: false });
    expect(run(cli({ dialog: 'retry_prompt' })).signals.blockedPrompt).toBe('other');
  });

  it('reports an error or an interrupt only while nothing runs', () => {
    const failed = run(cli({ outcome: { kind: 'failed', failure } }));
    expect(failed.signals.knownFailure).toEqual(failure);
    expect(failed.surface.uiContext).toBe('error');
    expect(failed.evidence.rule).toBe('error:server_error');
    const retrying = run(cli({ outcome: { kind: 'failed', failure }, active: ['retrying'] }));
    expect(retrying.signals.knownFailure).toBeNull();
    expect(retrying.surface.businessState).toBe('working');
    expect(run(cli({ outcome: { kind: 'interrupted' } })).signals.interrupted).toBe(true);
    expect(
      run(cli({ outcome: { kind: 'interrupted' }, active: ['spinner'] })).signals.interrupted,
    ).toBe(false);
  });

  it('reads working, then finished, then the idle prompt', () => {
    const working = run(cli({ active: ['spinner'], outcome: { kind: 'finished' } }));
    expect(working.surface.businessState).toBe('working');
    expect(working.signals).toMatchObject({ readyPosture: 'no', successCandidate: false });
    expect(working.signals.activeReasons).toEqual(['spinner']);
    const finished = run(cli({ outcome: { kind: 'finished' } }));
    expect(finished.signals).toMatchObject({ readyPosture: 'yes', successCandidate: true });
    expect(finished.evidence.rule).toBe('finished');
    const draft = run(cli({ prompt: { mode: 'freeform', editing: true } }));
    expect(draft.signals).toMatchObject({ editingInput: 'yes', readyPosture: 'yes' });
    expect(draft.evidence.rule).toBe('draft');
  });

  it('is not ready while the box takes no input yet or a menu has the keys', () => {
    const starting = run(cli({ prompt: { mode: 'unknown', editing: false, context: 'startup' } }));
    expect(starting.signals).toMatchObject({ acceptingInput: 'unknown', readyPosture: 'no' });
    expect(starting.surface.inputMode).toBe('unknown');
    const menu = run(cli({ prompt: { mode: 'modal', editing: true, context: 'slash_command' } }));
    expect(menu.surface).toMatchObject({ inputMode: 'modal', uiContext: 'slash_command' });
    expect(menu.signals.readyPosture).toBe('no');
  });

  it('tells a known overlay from a screen it cannot place', () => {
    const overlay = run(cli({ prompt: null, panel: 'overlay' }));
    expect(overlay.surface).toMatchObject({ businessState: 'idle', inputMode: 'modal' });
    expect(overlay.signals.ambiguous).toBe(false);
    const unplaced = run(cli({ prompt: null }));
    expect(unplaced.surface.businessState).toBe('unknown');
    expect(unplaced.signals.ambiguous).toBe(true);
  });

  it('never hands out a shared activeReasons array', () => {
    const a = run(cli());
    a.signals.activeReasons.push('mutated');
    expect(run(cli()).signals.activeReasons).toEqual([]);
  });
});

describe('the chat context', () => {
  it('a degraded context is read only on a supported surface, and carries its reason', () => {
    const r = run(cli({ degraded: 'codex_remote_compact_server_error' }));
    expect(r.signals.chatContext).toBe('degraded');
    expect(r.signals.degradedErrorType).toBe('codex_remote_compact_server_error');
    expect(run(cli()).signals).toMatchObject({ chatContext: 'current' });
    expect(run(cli()).signals.degradedErrorType).toBeUndefined();
    expect(run({ shape: 'blank' }).signals.chatContext).toBe('unknown');
    expect(run({ shape: 'exited', why: 'goodbye' }).signals.chatContext).toBe('unknown');
  });

  it('is never an outcome by itself: the idle prompt stays ready, no failure, no success', () => {
    const plain = run(cli());
    const degraded = run(cli({ degraded: 'unknown' }));
    expect(degraded.evidence.rule).toBe('ready');
    expect(degraded.surface).toEqual(plain.surface);
    expect({ ...degraded.signals, chatContext: 'current', degradedErrorType: undefined }).toEqual({
      ...plain.signals,
      degradedErrorType: undefined,
    });
    expect(degraded.signals.knownFailure).toBeNull();
    expect(degraded.signals.successCandidate).toBe(false);
    expect(degraded.signals.interrupted).toBe(false);
    // With the agent working it is still working.
    const working = run(cli({ degraded: 'unknown', active: ['spinner'] }));
    expect(working.surface.businessState).toBe('working');
    expect(working.signals.chatContext).toBe('degraded');
  });
});
