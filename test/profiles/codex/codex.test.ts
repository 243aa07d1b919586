import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCodexProfile } from '../../../src/profiles/codex/index.js';
import { ProfileResult } from '../../../src/schemas/signals.js';

interface Frame {
  t: number;
  text: string;
}

const FIXTURES = resolve('test/fixtures/codex');

function frames(scenario: string): Frame[] {
  return readFileSync(`${FIXTURES}/${scenario}.jsonl`, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; t: number; text: string })
    .filter((o) => o.type === 'frame');
}

/** The last frame recorded at or before `t`. */
function at(scenario: string, t: number): Frame {
  const found = frames(scenario).filter((f) => f.t <= t);
  if (found.length === 0) throw new Error(`no frame at ${t} in ${scenario}`);
  return found[found.length - 1]!;
}

const last = (scenario: string): Frame => frames(scenario).at(-1)!;
const profile = createCodexProfile('0.169.0');
const parse = (f: Frame) => ProfileResult.parse(profile.parse({ text: f.text }));

describe('codex profile: start-up', () => {
  it('reads a blank pane as unknown', () => {
    const r = parse(frames('startup')[0]!);
    expect(r.surface.availability).toBe('unknown');
    expect(r.evidence).toEqual({ detector: 'codex@0.169', rule: 'blank' });
  });

  it('does not call the box ready before the session footer is drawn', () => {
    const r = parse(at('startup', 1));
    expect(r.surface).toMatchObject({
      availability: 'supported',
      businessState: 'idle',
      inputMode: 'unknown',
    });
    expect(r.surface.uiContext).toBe('startup');
    expect(r.signals.readyPosture).toBe('no');
  });

  it('reads the idle prompt once the model footer is up', () => {
    const r = parse(last('startup'));
    expect(r.surface).toMatchObject({
      availability: 'supported',
      businessState: 'idle',
      inputMode: 'freeform',
      uiContext: 'normal_prompt',
      projectionText: '',
    });
    expect(r.signals).toMatchObject({
      readyPosture: 'yes',
      acceptingInput: 'yes',
      editingInput: 'no',
    });
    expect(r.signals.successCandidate).toBe(false);
    expect(r.signals.chatContext).toBe('current');
  });

  it('reads a prompt queued while the session starts as working', () => {
    const r = parse(at('normal-turn', 4.4));
    expect(r.surface.businessState).toBe('working');
    expect(r.signals.activeReasons).toEqual(['waiting_for_startup']);
  });
});

describe('codex profile: turns', () => {
  it('reads the status line as working', () => {
    const r = parse(at('hang', 10));
    expect(r.surface.businessState).toBe('working');
    expect(r.signals.activeReasons).toEqual(['status_line']);
    expect(r.signals.readyPosture).toBe('no');
  });

  it('reads a streaming reply (no status line is drawn) as working', () => {
    const r = parse(at('normal-turn', 6));
    expect(at('normal-turn', 6).text).not.toMatch(/esc to interrupt/);
    expect(r.surface.businessState).toBe('working');
    expect(r.signals.activeReasons).toEqual(['turn_in_progress']);
    expect(r.signals.successCandidate).toBe(false);
  });

  it('keeps a stream paused mid-reply working for the whole pause', () => {
    const paused = frames('long-turn-pause').filter((f) => f.t > 5 && f.t < 10);
    expect(paused.length).toBeGreaterThan(10);
    for (const f of paused) expect(parse(f).surface.businessState).toBe('working');
  });

  it('reads a finished turn as a ready success candidate', () => {
    const r = parse(last('normal-turn'));
    expect(r.surface).toMatchObject({ businessState: 'idle', inputMode: 'freeform' });
    expect(r.signals).toMatchObject({
      successCandidate: true,
      activeReasons: [],
      readyPosture: 'yes',
    });
    expect(r.surface.projectionText).toContain('› say hello');
    expect(r.surface.projectionText).toContain('while it\n  streams.');
    expect(r.surface.projectionText).not.toMatch(/Worked for|Ask Codex|gpt-fake-1/);
  });

  it('changes the projection while the reply streams but not while idle', () => {
    const streaming = parse(at('normal-turn', 5.5)).surface.projectionText;
    const done = parse(last('normal-turn')).surface.projectionText;
    expect(streaming).not.toBe(done);
    const idle = frames('normal-turn').filter((f) => f.t > 8);
    expect(new Set(idle.map((f) => parse(f).surface.projectionText)).size).toBe(1);
  });

  it('reads a draft for the second turn, and scopes outcomes to the latest turn', () => {
    const draft = parse(at('two-turns', 14.2));
    expect(draft.signals.editingInput).toBe('yes');
    const second = parse(at('two-turns', 15));
    expect(second.surface.businessState).toBe('working');
    // The first turn's end-of-turn line is still on screen: it must not count.
    expect(at('two-turns', 15).text).toMatch(/Worked for/);
    expect(second.signals.successCandidate).toBe(false);
    expect(parse(last('two-turns')).signals.successCandidate).toBe(true);
  });

  it('reads an interrupt', () => {
    const r = parse(last('interrupted'));
    expect(r.signals).toMatchObject({
      interrupted: true,
      successCandidate: false,
      activeReasons: [],
    });
    expect(r.surface.businessState).toBe('idle');
    expect(r.evidence.rule).toBe('interrupted');
  });

  it('reads an interrupted hang', () => {
    expect(parse(last('hang')).signals.interrupted).toBe(true);
  });
});

describe('codex profile: errors', () => {
  it.each([
    ['error-500', 'server_error', 'We’re currently experiencing high demand'],
    ['error-529-overloaded', 'overloaded', 'Selected model is at capacity'],
    ['error-429-rate-limit', 'rate_limited', '429 Too Many Requests'],
  ])('%s is a known failure (%s)', (scenario, kind, message) => {
    const r = parse(last(scenario));
    expect(r.signals.knownFailure?.kind).toBe(kind);
    expect(r.signals.knownFailure?.message).toContain(message);
    expect(r.signals).toMatchObject({
      successCandidate: false,
      interrupted: false,
      readyPosture: 'yes',
    });
    expect(r.surface.uiContext).toBe('error');
  });
});

describe('codex profile: permission prompt', () => {
  it('reads the approval dialog as blocked on the operator', () => {
    const r = parse(at('permission-prompt', 10));
    expect(r.surface).toMatchObject({
      businessState: 'awaiting_operator',
      inputMode: 'modal',
      uiContext: 'permission_prompt',
    });
    expect(r.signals.blockedPrompt).toBe('tool_permission');
    expect(r.signals.readyPosture).toBe('no');
  });

  it('finishes the turn after approval', () => {
    const r = parse(last('permission-prompt'));
    expect(r.signals).toMatchObject({ blockedPrompt: null, successCandidate: true });
    expect(r.surface.projectionText).toContain('You approved codex to run touch approved.txt');
  });
});

describe('codex profile: exit', () => {
  it('reads the slash-command popup as modal', () => {
    const f = frames('cli-exit').find((x) => /^› \/quit$/m.test(x.text))!;
    const r = parse(f);
    expect(r.surface).toMatchObject({ inputMode: 'modal', uiContext: 'slash_command' });
    expect(r.signals.readyPosture).toBe('no');
  });

  it('reads the goodbye text and shell prompt as disconnected', () => {
    const r = parse(last('cli-exit'));
    expect(r.surface.availability).toBe('disconnected');
    expect(r.evidence.rule).toBe('exited:exit_message');
  });

  it('reads a killed CLI (dead pane keeps its last screen) as disconnected', () => {
    const f = last('cli-killed');
    expect(f.text).toMatch(/› Ask Codex to do anything/);
    const r = parse(f);
    expect(r.surface.availability).toBe('disconnected');
    expect(r.evidence.rule).toBe('exited:pane_dead');
  });

  it('reads an unrelated shell as disconnected and other text as unknown', () => {
    expect(parse({ t: 0, text: 'bash-5.2#' }).surface.availability).toBe('disconnected');
    expect(parse({ t: 0, text: 'hello world\nsome log' }).surface.availability).toBe('unknown');
  });
});

describe('codex profile: versions', () => {
  it('falls back to the newest parser for unknown versions', () => {
    expect(createCodexProfile().parse({ text: last('startup').text }).evidence.detector).toBe(
      'codex@0.169',
    );
    expect(createCodexProfile('1.0.0').id).toBe('codex');
  });
});
