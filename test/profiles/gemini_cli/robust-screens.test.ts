import { describe, expect, it } from 'vitest';
import { createGeminiCliProfile } from '../../../src/profiles/gemini_cli/index.js';
import { framesOf, frameMatching, inputTime, lastFrame, loadFixture } from './fixtures.js';

const profile = createGeminiCliProfile('0.61.0');
const parse = (text: string) => profile.parse({ text });

describe('gemini_cli profile: a reply that scrolls its prompt echo away', () => {
  const rec = loadFixture('long-reply-scrolls');

  it('reads the streaming frames without the echo as working, never as a finished reply', () => {
    const mid = frameMatching(rec, /Line 32 of a long list[\s\S]*esc to cancel/);
    expect(mid.text).not.toContain('> List ninety lines.');
    const r = parse(mid.text);
    expect(r.signals.activeReasons).toEqual(['spinner_esc_to_cancel']);
    expect(r.signals.successCandidate).toBe(false);
  });

  it('reads the idle frame with only reply lines above the box as a success candidate', () => {
    const last = lastFrame(rec);
    expect(last.text).not.toContain('> List ninety lines.');
    expect(last.text).not.toContain('✦');
    const r = parse(last.text);
    expect(r.evidence.rule).toBe('finished');
    expect(r.signals).toMatchObject({ readyPosture: 'yes', successCandidate: true });
  });

  it('still reads the idle start-up screen (banner, no echo) as no reply', () => {
    const r = parse(lastFrame(loadFixture('startup')).text);
    expect(r.signals.successCandidate).toBe(false);
    expect(r.surface.uiContext).toBe('startup');
  });
});

describe('gemini_cli profile: other terminal sizes', () => {
  for (const name of ['size-80x24-normal-turn', 'size-200x50-normal-turn']) {
    it(`${name}: working while streaming, then a finished reply`, () => {
      const rec = loadFixture(name);
      const working = frameMatching(rec, /esc to cancel/, inputTime(rec));
      expect(parse(working.text).signals.activeReasons).toContain('spinner_esc_to_cancel');
      const r = parse(lastFrame(rec).text);
      expect(r.signals).toMatchObject({ successCandidate: true, readyPosture: 'yes' });
    });
  }

  it('size-80x24-interrupted: the cancel notice at 80 columns reads as interrupted', () => {
    const r = parse(lastFrame(loadFixture('size-80x24-interrupted')).text);
    expect(r.signals).toMatchObject({ interrupted: true, successCandidate: false });
  });
});

describe('gemini_cli profile: a marker of an earlier turn above the latest echo', () => {
  it('error-then-success: the old API error is not a failure of the new turn', () => {
    const last = lastFrame(loadFixture('error-then-success'));
    expect(last.text).toMatch(/✕ \[API Error/);
    const r = parse(last.text);
    expect(r.signals).toMatchObject({ knownFailure: null, successCandidate: true });
  });

  it('interrupted-then-success: the old cancel notice is not an interruption of the new turn', () => {
    const last = lastFrame(loadFixture('interrupted-then-success'));
    expect(last.text).toContain('Request cancelled.');
    const r = parse(last.text);
    expect(r.signals).toMatchObject({ interrupted: false, successCandidate: true });
  });

  it('draft-over-old-marker: a draft under the cancel notice is typing, not a new turn', () => {
    const last = lastFrame(loadFixture('draft-over-old-marker'));
    expect(last.text).toContain('A draft that I have not sent yet');
    const r = parse(last.text);
    expect(r.signals).toMatchObject({
      acceptingInput: 'yes',
      editingInput: 'yes',
      readyPosture: 'yes',
      interrupted: true,
      activeReasons: [],
    });
  });
});

describe('gemini_cli profile: 503s under the default retry settings', () => {
  it('reads every frame from the first spinner to the cancel notice as working', () => {
    const rec = loadFixture('error-default-settings');
    const start = frameMatching(rec, /esc to cancel/, inputTime(rec)).t;
    const end = frameMatching(rec, /Request cancelled\./).t;
    const between = framesOf(rec).filter((f) => f.t >= start && f.t < end);
    // The retries run for most of a minute with nothing but the spinner on screen.
    expect(end - start).toBeGreaterThan(40);
    for (const f of between) {
      const r = parse(f.text);
      expect(r.signals.activeReasons, `frame at ${f.t}`).toContain('spinner_esc_to_cancel');
      expect(r.signals.knownFailure, `frame at ${f.t}`).toBeNull();
    }
    expect(parse(frameMatching(rec, /Request cancelled\./).text).signals.interrupted).toBe(true);
  });
});

describe('gemini_cli profile: prompts and overlays', () => {
  it('multiline-prompt: the three typed lines are one draft', () => {
    const rec = loadFixture('multiline-prompt');
    const typed = framesOf(rec)
      .filter((f) => f.t < inputTime(rec) && f.text.includes('Third line.'))
      .at(-1);
    expect(typed).toBeDefined();
    const r = parse(typed!.text);
    expect(r.signals.editingInput).toBe('yes');
    expect(r.surface.projectionText).not.toContain('Third line.');
  });

  it('shortcuts-help: the help overlay leaves the prompt box ready (typing closes it)', () => {
    const rec = loadFixture('shortcuts-help');
    const help = frameMatching(rec, /Shortcuts See \/help for more/);
    const r = parse(help.text);
    expect(r.surface).toMatchObject({ businessState: 'idle', inputMode: 'freeform' });
    expect(r.signals).toMatchObject({
      acceptingInput: 'yes',
      editingInput: 'no',
      readyPosture: 'yes',
    });
  });

  it('edit-approval: "Apply this change?" blocks on a tool permission', () => {
    const rec = loadFixture('edit-approval');
    const r = parse(frameMatching(rec, /Apply this change\?/).text);
    expect(r.surface.businessState).toBe('awaiting_operator');
    expect(r.signals.blockedPrompt).toBe('tool_permission');
  });
});

describe('gemini_cli profile: start-up dialogs', () => {
  it('reads the trust dialog drawn alone at the top of a blank screen as blocked', () => {
    const rec = loadFixture('startup-trust-dialog');
    const first = frameMatching(rec, /Do you trust the files in this folder/);
    // Nothing but the dialog: its lines are far from the bottom rows of the pane.
    expect(first.text).not.toMatch(/Gemini CLI v\d/);
    const r = parse(first.text);
    expect(r.signals.blockedPrompt).toBe('trust_folder');
    expect(r.signals.readyPosture).toBe('no');
  });

  it('reads the restarted CLI under the old dialog text as ready', () => {
    const rec = loadFixture('startup-trust-dialog');
    const after = frameMatching(rec, /Do you trust[\s\S]*Type your message/);
    const r = parse(after.text);
    expect(r.signals).toMatchObject({ blockedPrompt: null, readyPosture: 'yes' });
  });

  it('reads the auth method picker and the API key box as blocked on login', () => {
    const rec = loadFixture('startup-auth-dialog');
    for (const re of [/How would you like to authenticate/, /Enter Gemini API Key/]) {
      const r = parse(frameMatching(rec, re).text);
      expect(r.surface).toMatchObject({
        businessState: 'awaiting_operator',
        uiContext: 'login_prompt',
      });
      expect(r.signals.blockedPrompt).toBe('login');
    }
  });
});
