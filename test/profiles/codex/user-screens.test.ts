import { describe, expect, it } from 'vitest';
import { createCodexProfile } from '../../../src/profiles/codex/index.js';
import { ProfileResult } from '../../../src/schemas/signals.js';
import { loadReplayed, stateAt, type RecordedFrame } from '../../replay/ground-truth.js';

const profile = createCodexProfile('0.169.0');
const parse = (f: { text: string }) => ProfileResult.parse(profile.parse({ text: f.text }));
const replayed = (scenario: string) => loadReplayed('codex', scenario);

/** Frames recorded while the turn's last model stream was still running (first byte to end). */
function streaming(scenario: string, turn = 0): RecordedFrame[] {
  const r = replayed(scenario);
  const reqs = r.turns[turn]!.requests;
  const from = Math.min(...reqs.map((q) => q.firstByteAt ?? q.receivedAt));
  const to = r.turns[turn]!.trueEnd!;
  return r.frames.filter((f) => f.t >= from && f.t < to);
}

describe('codex profile on other terminal sizes', () => {
  it.each(['size-80x24-normal-turn', 'size-80x24-long-reply', 'size-200x50-normal-turn'])(
    '%s: every frame of the running stream reads as working',
    (scenario) => {
      const frames = streaming(scenario);
      expect(frames.length).toBeGreaterThan(5);
      for (const f of frames) {
        expect(parse(f).surface.businessState, `frame at ${f.t}`).toBe('working');
        expect(parse(f).signals.successCandidate, `frame at ${f.t}`).toBe(false);
      }
    },
  );

  it('reads the 80-column footer, which wraps onto a second line, as a session that is up', () => {
    const f = replayed('size-80x24-normal-turn').frames.at(-1)!;
    expect(f.text).toMatch(/^ {2}· Fake session$/m);
    const r = parse(f);
    expect(r.surface).toMatchObject({ businessState: 'idle', inputMode: 'freeform' });
    expect(r.signals).toMatchObject({ successCandidate: true, editingInput: 'no' });
  });

  it('reads an interrupt at 80x24', () => {
    const r = parse(replayed('size-80x24-interrupted').frames.at(-1)!);
    expect(r.signals).toMatchObject({ interrupted: true, activeReasons: [] });
  });
});

describe('codex profile on a reply longer than the screen', () => {
  it('keeps the prompt echo pinned at the top once the header has scrolled away', () => {
    const last = replayed('long-reply-scrolls').frames.at(-1)!;
    expect(last.text).not.toMatch(/OpenAI Codex/);
    expect(last.text.split('\n')[0]).toBe('› write ninety lines');
    expect(parse(last).signals.successCandidate).toBe(true);
  });

  it('reads every frame until the end-of-turn line as working', () => {
    const frames = streaming('long-reply-scrolls');
    expect(frames.some((f) => !/OpenAI Codex/.test(f.text))).toBe(true);
    for (const f of frames) {
      expect(parse(f).signals.activeReasons, `frame at ${f.t}`).not.toEqual([]);
    }
  });
});

describe('codex profile: a second turn under the first one’s outcome', () => {
  it.each([
    ['error-then-success', /^■ /m],
    ['interrupted-then-success', /^■ Conversation interrupted/m],
  ])('%s: the second turn never reads the first one’s marker', (scenario, marker) => {
    const frames = streaming(scenario, 1);
    expect(frames.length).toBeGreaterThan(5);
    for (const f of frames) {
      expect(f.text).toMatch(marker);
      const r = parse(f);
      expect(r.signals.knownFailure, `frame at ${f.t}`).toBeNull();
      expect(r.signals.interrupted, `frame at ${f.t}`).toBe(false);
    }
    expect(parse(replayed(scenario).frames.at(-1)!).signals.successCandidate).toBe(true);
  });
});

describe('codex profile: drafts', () => {
  it('reads a prompt typed over several lines as one draft', () => {
    const r = replayed('multiline-prompt');
    const inputAt = r.turns[0]!.inputAt;
    const f = r.frames.filter((x) => x.t < inputAt).at(-1)!;
    expect(f.text).toMatch(
      /^› first line of the prompt\n {2}second line of the prompt\n {2}third line$/m,
    );
    expect(parse(f).signals.editingInput).toBe('yes');
  });

  it('keeps a draft typed over an interrupted turn ready, with no new outcome', () => {
    const r = replayed('draft-over-old-marker');
    const drafts = r.frames.filter((f) => /^› a draft/m.test(f.text));
    expect(drafts.length).toBeGreaterThan(8);
    const outcomeAt = stateAt(r.states, drafts[0]!.t - 0.001)!.lastTurn.at;
    for (const f of drafts) {
      expect(parse(f).signals).toMatchObject({ editingInput: 'yes', interrupted: true });
      const s = stateAt(r.states, f.t)!;
      expect(s.readiness.status, `readiness at ${f.t}`).toBe('ready');
      expect(s.lastTurn).toMatchObject({ result: 'interrupted', turnId: 'turn-1', at: outcomeAt });
    }
  });
});

describe('codex profile at start-up', () => {
  it('reads the folder trust question as blocked on the operator', () => {
    const r = replayed('startup-trust-dialog');
    const shown = r.frames.filter((f) => f.text.includes('Trust this folder?'));
    expect(shown.length).toBeGreaterThan(8);
    for (const f of shown) {
      const p = parse(f);
      expect(p.surface).toMatchObject({ businessState: 'awaiting_operator', inputMode: 'modal' });
      expect(p.signals).toMatchObject({ blockedPrompt: 'trust_folder', readyPosture: 'no' });
      expect(p.evidence.rule).toBe('dialog:trust_prompt');
    }
    expect(parse(r.frames.at(-1)!).signals.readyPosture).toBe('yes');
  });

  it('reads the new-user tips screen as ready once the session is up', () => {
    const r = replayed('startup-fresh-home');
    const tips = r.frames.find((f) => f.text.includes('To get started, describe a task'))!;
    expect(parse(tips).surface).toMatchObject({ businessState: 'idle', inputMode: 'freeform' });
  });

  it('keeps a prompt whose early Enter was dropped as a draft until it is submitted again', () => {
    const r = replayed('enter-during-startup');
    const turn = r.turns[0]!;
    const waiting = r.frames.filter(
      (f) =>
        f.t > turn.inputAt && f.t < turn.requests[0]!.receivedAt && /^› say hello/m.test(f.text),
    );
    expect(waiting.length).toBeGreaterThan(3);
    for (const f of waiting) {
      expect(parse(f).signals.editingInput, `frame at ${f.t}`).toBe('yes');
      // Nothing has started: the turn must not look finished or underway.
      const s = stateAt(r.states, f.t)!;
      expect(s.completion).toMatchObject({
        turnId: 'turn-1',
        status: 'waiting',
        sawWorking: false,
        sawProjectionChange: false,
      });
    }
  });
});
