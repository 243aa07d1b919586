import { describe, expect, it } from 'vitest';
import { createClaudeCodeProfile } from '../../../src/profiles/claude_code/index.js';
import { ProfileResult } from '../../../src/schemas/signals.js';
import { loadScenario, loadServerLog } from './fixtures.js';

const profile = createClaudeCodeProfile('2.1.330');
const parse = (text: string) => ProfileResult.parse(profile.parse({ text }));

describe('claude_code profile: identity', () => {
  it('names its process, keys and verified version', () => {
    expect(profile.id).toBe('claude_code');
    expect(profile.processNames).toEqual(['claude']);
    expect(profile.interruptKeys).toEqual(['Escape']);
    expect(profile.verifiedVersions).toBe('2.1.332, 2.1.330');
    expect(profile.parse({ text: '' }).evidence.detector).toBe('claude_code@2.1');
    expect(createClaudeCodeProfile().parse({ text: '' }).evidence.detector).toBe('claude_code@2.1');
  });
});

describe('claude_code profile: startup', () => {
  const rec = loadScenario('startup');

  it('reads the blank pane before the first draw as unknown', () => {
    const r = parse(rec.frames[0]!.text);
    expect(r.surface.availability).toBe('unknown');
    expect(r.surface.businessState).toBe('unknown');
  });

  it('reads the drawn prompt as an idle, ready, freeform prompt', () => {
    const r = parse(rec.last().text);
    expect(r.surface).toMatchObject({
      availability: 'supported',
      businessState: 'idle',
      inputMode: 'freeform',
      uiContext: 'normal_prompt',
    });
    expect(r.signals).toMatchObject({
      acceptingInput: 'yes',
      editingInput: 'no',
      readyPosture: 'yes',
      activeReasons: [],
      successCandidate: false,
      interrupted: false,
      knownFailure: null,
    });
  });

  it('keeps the projection still while idle, even while the logo animates', () => {
    const drawn = rec.matching(/for shortcuts/);
    expect(drawn.length).toBeGreaterThan(3);
    const projections = new Set(drawn.map((f) => parse(f.text).surface.projectionText));
    expect(projections.size).toBe(1);
  });
});

describe('claude_code profile: normal turn', () => {
  const rec = loadScenario('normal-turn');
  const submitted = rec.inputs[0]!.t;

  it('shows a typed draft as editing input', () => {
    const r = parse(rec.at(submitted).text);
    expect(r.signals.editingInput).toBe('yes');
    expect(r.surface.businessState).toBe('idle');
  });

  it('reads the spinner and "esc to interrupt" as working', () => {
    const working = rec.matching(/esc to interrupt/);
    expect(working.length).toBeGreaterThan(2);
    for (const f of working) {
      const r = parse(f.text);
      expect(r.surface.businessState).toBe('working');
      expect(r.signals.activeReasons).toContain('esc_to_interrupt');
      expect(r.signals.readyPosture).toBe('no');
      expect(r.signals.successCandidate).toBe(false);
    }
  });

  it('reads the finished turn as a success candidate whose projection holds the reply', () => {
    const before = parse(rec.at(submitted - 0.5).text).surface.projectionText;
    const r = parse(rec.last().text);
    expect(r.evidence.rule).toBe('finished');
    expect(r.signals.successCandidate).toBe(true);
    expect(r.signals.readyPosture).toBe('yes');
    expect(r.surface.projectionText).toContain('This reply comes from the fake model server.');
    expect(r.surface.projectionText).not.toBe(before);
    expect(r.surface.projectionText).not.toMatch(/for \d+s · done|esc to interrupt|shortcuts/);
  });
});

describe('claude_code profile: long pause mid-stream', () => {
  const rec = loadScenario('long-turn-pause');
  const [turn] = loadServerLog('long-turn-pause');

  it('stays working through the 6 s pause in the stream', () => {
    const from = rec.tOf(turn!.firstByteAt!) + 1.5;
    const to = rec.tOf(turn!.endedAt!) - 0.5;
    const paused = rec.between(from, to);
    expect(paused.length).toBeGreaterThan(15);
    for (const f of paused) expect(parse(f.text).surface.businessState).toBe('working');
    expect(parse(rec.last().text).signals.successCandidate).toBe(true);
  });
});

describe('claude_code profile: two turns', () => {
  const rec = loadScenario('two-turns');

  it('scopes success to the latest turn and changes projection for the second reply', () => {
    const second = rec.inputs[1]!.t;
    const firstDone = parse(rec.at(second - 0.3).text);
    const last = parse(rec.last().text);
    expect(last.signals.successCandidate).toBe(true);
    expect(last.surface.projectionText).toContain('The second answer is different');
    expect(firstDone.surface.projectionText).not.toContain('The second answer');
  });
});

describe('claude_code profile: interrupted', () => {
  const rec = loadScenario('interrupted');

  it('reports the interruption of the latest turn on an idle prompt', () => {
    const r = parse(rec.last().text);
    expect(r.signals.interrupted).toBe(true);
    expect(r.signals.successCandidate).toBe(false);
    expect(r.signals.activeReasons).toEqual([]);
    expect(r.surface.businessState).toBe('idle');
    expect(r.signals.readyPosture).toBe('yes');
  });

  it('is working, not interrupted, while the stream runs', () => {
    const r = parse(rec.matching(/esc to interrupt/)[0]!.text);
    expect(r.surface.businessState).toBe('working');
    expect(r.signals.interrupted).toBe(false);
  });
});

describe.each([
  ['error-500', 'server_error', /500/],
  ['error-529-overloaded', 'overloaded', /529|Overloaded/],
  ['error-429-rate-limit', 'rate_limited', /429/],
])('claude_code profile: %s', (name, kind, text) => {
  const rec = loadScenario(name);

  it('reports the final API error of the latest turn as a known failure', () => {
    const r = parse(rec.last().text);
    expect(r.signals.knownFailure?.kind).toBe(kind);
    expect(r.signals.knownFailure?.message).toMatch(text);
    expect(r.signals.successCandidate).toBe(false);
    expect(r.surface.uiContext).toBe('error');
    expect(r.surface.businessState).toBe('idle');
    // The "Resend your message" hint in the box is a placeholder, not a draft.
    expect(r.signals.editingInput).toBe('no');
  });

  it('reads the retry countdown as still working, with no failure yet', () => {
    const retrying = rec.matching(/retrying in/);
    for (const f of retrying) {
      const r = parse(f.text);
      expect(r.surface.businessState).toBe('working');
      expect(r.signals.knownFailure).toBeNull();
    }
  });
});

describe('claude_code profile: retry screen is on record', () => {
  it('the overload scenario shows the retry line', () => {
    const rec = loadScenario('error-529-overloaded');
    const f = rec.matching(/retrying in/)[0];
    expect(f).toBeDefined();
    expect(parse(f!.text).signals.activeReasons).toContain('retrying');
  });
});

describe('claude_code profile: permission prompt', () => {
  const rec = loadScenario('permission-prompt');

  it('reads the tool permission dialog as awaiting the operator', () => {
    const prompts = rec.matching(/Do you want to proceed\?/);
    expect(prompts.length).toBeGreaterThan(30);
    for (const f of prompts) {
      const r = parse(f.text);
      expect(r.surface).toMatchObject({
        availability: 'supported',
        businessState: 'awaiting_operator',
        inputMode: 'modal',
        uiContext: 'permission_prompt',
      });
      expect(r.signals.blockedPrompt).toBe('tool_permission');
      expect(r.signals.readyPosture).toBe('no');
    }
  });

  it('finishes the turn after approval', () => {
    const r = parse(rec.last().text);
    expect(r.signals.blockedPrompt).toBeNull();
    expect(r.signals.successCandidate).toBe(true);
    expect(r.surface.projectionText).toContain('Done: the marker file exists now.');
  });
});

describe('claude_code profile: hang', () => {
  const rec = loadScenario('hang');

  it('stays working while the stream hangs', () => {
    const submitted = rec.inputs[0]!.t;
    const hung = rec.between(submitted + 2, submitted + 18);
    expect(hung.length).toBeGreaterThan(50);
    for (const f of hung) expect(parse(f.text).surface.businessState).toBe('working');
  });

  it('after an interrupt before any reply, shows the prompt restored as a draft and no marker', () => {
    const r = parse(rec.last().text);
    expect(r.surface.businessState).toBe('idle');
    expect(r.signals.activeReasons).toEqual([]);
    expect(r.signals.editingInput).toBe('yes');
    expect(r.signals.interrupted).toBe(false);
    expect(r.signals.successCandidate).toBe(false);
  });
});

describe('claude_code profile: the CLI goes away', () => {
  it('reads the shell prompt after /exit as disconnected', () => {
    const rec = loadScenario('cli-exit');
    const r = parse(rec.last().text);
    expect(r.surface.availability).toBe('disconnected');
    expect(r.surface.inputMode).toBe('closed');
    expect(rec.last().process).toBe('tui_down');
  });

  it('reads the slash command menu as a modal surface, not a ready prompt', () => {
    const rec = loadScenario('cli-exit');
    const menu = rec.matching(/Exit the CLI/);
    expect(menu.length).toBeGreaterThan(0);
    const r = parse(menu[0]!.text);
    expect(r.surface.uiContext).toBe('slash_command');
    expect(r.surface.inputMode).toBe('modal');
    expect(r.signals.readyPosture).toBe('no');
  });

  it('reads the dead pane of a SIGKILLed CLI as disconnected, not working', () => {
    const rec = loadScenario('cli-killed');
    expect(rec.last().process).toBe('tui_down');
    expect(rec.last().text).toMatch(/Pane is dead \(signal 9/);
    const r = parse(rec.last().text);
    expect(r.surface.availability).toBe('disconnected');
    expect(r.signals.activeReasons).toEqual([]);
  });

  it('records the killed tmux session as probes without a capture', () => {
    const rec = loadScenario('session-killed');
    expect(rec.probes.length).toBeGreaterThan(3);
    expect(rec.probes.every((p) => p.transport === 'tmux_missing')).toBe(true);
    expect(parse(rec.last().text).signals.successCandidate).toBe(true);
  });
});

describe('claude_code profile: folder trust dialog', () => {
  const rec = loadScenario('trust-prompt');

  it('reads the trust dialog as blocked on the operator', () => {
    const dialogs = rec.matching(/Yes, I trust this folder/);
    expect(dialogs.length).toBeGreaterThan(5);
    const r = parse(dialogs[0]!.text);
    expect(r.surface).toMatchObject({
      availability: 'supported',
      businessState: 'awaiting_operator',
      inputMode: 'modal',
      uiContext: 'trust_prompt',
    });
    expect(r.signals.blockedPrompt).toBe('trust_folder');
  });

  it('reaches the idle prompt once the folder is trusted', () => {
    const r = parse(rec.last().text);
    expect(r.surface.businessState).toBe('idle');
    expect(r.signals.readyPosture).toBe('yes');
  });
});
