import { describe, expect, it } from 'vitest';
import { ProfileResult } from '../../../src/schemas/signals.js';
import { createGeminiCliProfile } from '../../../src/profiles/gemini_cli/index.js';
import { framesOf, frameMatching, inputTime, lastFrame, loadFixture } from './fixtures.js';

const profile = createGeminiCliProfile('0.61.0');
const parse = (text: string) => profile.parse({ text });

describe('gemini_cli profile: identity', () => {
  it('describes the tool and picks the 0.61 parser', () => {
    expect(profile.id).toBe('gemini_cli');
    expect(profile.verifiedVersions).toBe('0.61.0');
    expect(profile.interruptKeys).toEqual(['Escape']);
    expect(createGeminiCliProfile().verifiedVersions).toBe('0.61.0');
  });

  it('returns schema-valid results with evidence for every recorded frame', () => {
    for (const name of ['startup', 'normal-turn', 'interrupted', 'error-500']) {
      for (const f of framesOf(loadFixture(name))) {
        const r = ProfileResult.parse(parse(f.text));
        expect(r.evidence.detector).toBe('gemini_cli@0.61');
      }
    }
  });
});

describe('gemini_cli profile: start-up and idle', () => {
  const rec = loadFixture('startup');

  it('reads a blank pane as unknown', () => {
    const r = parse(framesOf(rec)[0]!.text);
    expect(r.surface.availability).toBe('unknown');
    expect(r.signals.readyPosture).toBe('unknown');
  });

  it('reads the idle prompt as submit-ready', () => {
    const r = parse(lastFrame(rec).text);
    expect(r.surface).toMatchObject({
      availability: 'supported',
      businessState: 'idle',
      inputMode: 'freeform',
      uiContext: 'startup',
    });
    expect(r.signals).toMatchObject({
      acceptingInput: 'yes',
      editingInput: 'no',
      readyPosture: 'yes',
      activeReasons: [],
      successCandidate: false,
    });
    expect(r.surface.projectionText).toContain('Gemini CLI v0.61.0');
    expect(r.surface.projectionText).not.toContain('Type your message');
  });
});

describe('gemini_cli profile: a normal turn', () => {
  const rec = loadFixture('normal-turn');
  const submitted = inputTime(rec);

  it('sees the typed draft in the prompt box', () => {
    const draft = frameMatching(rec, /^ > Say hello\.$/m);
    expect(draft.t).toBeLessThanOrEqual(submitted + 0.3);
    expect(parse(draft.text).signals.editingInput).toBe('yes');
  });

  it('reads the spinner as working, from the live edge', () => {
    const r = parse(frameMatching(rec, /esc to cancel/).text);
    expect(r.surface.businessState).toBe('working');
    expect(r.signals.activeReasons).toContain('spinner_esc_to_cancel');
    expect(r.signals.readyPosture).toBe('no');
    expect(r.signals.successCandidate).toBe(false);
    expect(r.surface.projectionText).not.toMatch(/esc to cancel|Thinking/);
  });

  it('reads the finished reply as a success candidate with a stable projection', () => {
    const end = lastFrame(rec);
    const r = parse(end.text);
    expect(r.surface.businessState).toBe('idle');
    expect(r.signals.successCandidate).toBe(true);
    expect(r.signals.interrupted).toBe(false);
    expect(r.surface.projectionText).toContain(
      '✦ Hello! This reply comes from the fake model, streamed a few words at a time.',
    );
    const idle = framesOf(rec).filter((f) => f.t > end.t - 2 && /a time\.$/m.test(f.text));
    expect(idle.length).toBeGreaterThan(2);
    expect(new Set(idle.map((f) => parse(f.text).surface.projectionText)).size).toBe(1);
  });
});

describe('gemini_cli profile: a pause mid-stream', () => {
  it('stays working while the stream is silent', () => {
    const rec = loadFixture('long-turn-pause');
    const paused = framesOf(rec).filter(
      (f) => /arrives now\.$/m.test(f.text) && !/After/.test(f.text),
    );
    expect(paused.length).toBeGreaterThan(15);
    for (const f of paused) expect(parse(f.text).surface.businessState).toBe('working');
  });

  it('counts a prompt queued during initialisation as activity', () => {
    const rec = loadFixture('long-turn-pause');
    const r = parse(frameMatching(rec, /Queued \(press ↑ to edit\):/).text);
    expect(r.signals.activeReasons).toContain('queued_prompt');
  });
});

describe('gemini_cli profile: two turns', () => {
  it('scopes the outcome to the latest turn', () => {
    const rec = loadFixture('two-turns');
    const r = parse(lastFrame(rec).text);
    expect(r.signals.successCandidate).toBe(true);
    expect(r.surface.projectionText).toContain('Second answer: the grass is green.');
    const first = parse(frameMatching(rec, /sky is blue\.$/m).text).surface.projectionText;
    expect(first).not.toBe(r.surface.projectionText);
  });
});

describe('gemini_cli profile: interrupted', () => {
  it('reports the interruption of the latest turn and no success', () => {
    const r = parse(lastFrame(loadFixture('interrupted')).text);
    expect(r.signals.interrupted).toBe(true);
    expect(r.signals.successCandidate).toBe(false);
    expect(r.signals.knownFailure).toBeNull();
    expect(r.surface.businessState).toBe('idle');
    expect(r.evidence.rule).toBe('interrupted');
  });
});

describe('gemini_cli profile: errors', () => {
  it('reads the retry dialog as a prompt for the operator', () => {
    const r = parse(frameMatching(loadFixture('error-500'), /Keep trying/).text);
    expect(r.surface).toMatchObject({
      businessState: 'awaiting_operator',
      inputMode: 'modal',
      uiContext: 'retry_prompt',
    });
    expect(r.signals.blockedPrompt).toBe('other');
  });

  it.each([
    ['error-500', 'server_error'],
    ['error-529-overloaded', 'overloaded'],
    ['error-429-rate-limit', 'rate_limited'],
  ])('%s ends in the known failure %s', (name, kind) => {
    const r = parse(lastFrame(loadFixture(name)).text);
    expect(r.signals.knownFailure?.kind).toBe(kind);
    expect(r.signals.knownFailure?.message).toMatch(/^✕ \[API Error/);
    expect(r.signals.successCandidate).toBe(false);
    expect(r.surface.uiContext).toBe('error');
    expect(r.signals.readyPosture).toBe('yes');
  });
});

describe('gemini_cli profile: permission prompt', () => {
  const rec = loadFixture('permission-prompt');

  it('reads the shell confirmation as a blocking tool permission', () => {
    const r = parse(frameMatching(rec, /Allow execution of/).text);
    expect(r.surface).toMatchObject({
      availability: 'supported',
      businessState: 'awaiting_operator',
      inputMode: 'modal',
      uiContext: 'permission_prompt',
    });
    expect(r.signals.blockedPrompt).toBe('tool_permission');
    expect(r.signals.acceptingInput).toBe('no');
  });

  it('finishes the turn after approval', () => {
    const r = parse(lastFrame(rec).text);
    expect(r.signals.blockedPrompt).toBeNull();
    expect(r.signals.successCandidate).toBe(true);
    expect(r.surface.projectionText).toContain('Created created-by-tool.txt. Done.');
  });
});

describe('gemini_cli profile: hang', () => {
  it('keeps reporting working while the stream never ends, then the interruption', () => {
    const rec = loadFixture('hang');
    const t0 = inputTime(rec);
    const during = framesOf(rec).filter((f) => f.t > t0 + 5 && f.t < t0 + 18);
    expect(during.length).toBeGreaterThan(20);
    for (const f of during) expect(parse(f.text).surface.businessState).toBe('working');
    expect(parse(lastFrame(rec).text).signals.interrupted).toBe(true);
  });
});

describe('gemini_cli profile: exit', () => {
  it('reads the goodbye screen after /quit as disconnected', () => {
    const r = parse(lastFrame(loadFixture('cli-exit')).text);
    expect(r.surface.availability).toBe('disconnected');
    expect(r.surface.inputMode).toBe('closed');
  });

  it('keeps the last screen of a killed CLI, which the process probe reports as gone', () => {
    const rec = loadFixture('cli-killed');
    const end = lastFrame(rec);
    expect(end.process).not.toBe('tui_up');
    expect(parse(end.text).surface.availability).toBe('supported');
  });

  it('records probes without captures once the session is killed', () => {
    const rec = loadFixture('session-killed');
    const tail = rec.at(-1)!;
    expect(tail.type).toBe('probe');
    expect(tail.transport).not.toBe('tmux_up');
  });
});

describe('gemini_cli profile: a prompt queued during start-up', () => {
  const rec = loadFixture('interrupted');

  it('stays working on the frame between leaving the queue and the echo', () => {
    // The only frame where "Initializing..." is the newest line and nothing else shows activity.
    const gap = framesOf(rec).find(
      (f) =>
        /Initializing\.\.\. Prompts will be queued\./.test(f.text) &&
        !/Queued \(press|esc to cancel/.test(f.text),
    );
    expect(gap, 'the recording holds the dispatch gap frame').toBeDefined();
    const r = parse(gap!.text);
    expect(r.surface.businessState).toBe('working');
    expect(r.signals.activeReasons).toContain('queued_prompt_dispatching');
    expect(r.signals.successCandidate).toBe(false);
  });

  it('does not call an idle start-up screen working', () => {
    const r = parse(lastFrame(loadFixture('startup')).text);
    expect(r.signals.activeReasons).toEqual([]);
  });
});
