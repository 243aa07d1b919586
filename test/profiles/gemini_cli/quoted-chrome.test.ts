import { describe, expect, it } from 'vitest';
import { createGeminiCliProfile } from '../../../src/profiles/gemini_cli/index.js';
import { ProfileResult } from '../../../src/schemas/signals.js';
import { recordedScreen, replaceRows } from '../real-frame.js';

// Every screen here is a real capture with one or more reply rows replaced: a model's reply can
// contain any text, including the CLI's own chrome, and must not be read as that chrome.
const profile = createGeminiCliProfile('0.61.0');
const parse = (text: string) => ProfileResult.parse(profile.parse({ text }));

/** normal-turn, last frame: the reply is row 15 (`✦ Hello! …`), rows 16-17 are blank. */
const finished = () => recordedScreen('gemini_cli', 'normal-turn', -1);

describe('gemini_cli: a reply that quotes outcome lines', () => {
  it('the real screen reads as a finished reply before any row is replaced', () => {
    const r = parse(finished());
    expect(r.evidence.rule).toBe('finished');
    expect(r.signals.successCandidate).toBe(true);
  });

  it('an indented `ℹ Request cancelled.` in the reply is not an interrupt', () => {
    const text = replaceRows(finished(), [
      [15, '✦ Hello!', '✦ When you press Esc the CLI cancels the request and prints'],
      [16, '', '  ℹ Request cancelled.'],
    ]);
    const r = parse(text);
    expect(r.signals.interrupted).toBe(false);
    expect(r.signals.successCandidate).toBe(true);
    expect(r.evidence.rule).toBe('finished');
  });

  it('an indented `✕ [API Error: …]` in the reply is not a failure', () => {
    const text = replaceRows(finished(), [
      [15, '✦ Hello!', '✦ A failed call shows up in the transcript as'],
      [16, '', '  ✕ [API Error: {"error":{"code":429}}]'],
    ]);
    const r = parse(text);
    expect(r.signals.knownFailure).toBeNull();
    expect(r.surface.uiContext).toBe('normal_prompt');
    expect(r.signals.successCandidate).toBe(true);
  });

  it('an indented `ℹ Initializing...` as the reply’s last row is not a prompt being dispatched', () => {
    const text = replaceRows(finished(), [
      [15, '✦ Hello!', '✦ A prompt sent during start-up makes the CLI print'],
      [16, '', '  ℹ Initializing... Prompts will be queued.'],
    ]);
    const r = parse(text);
    expect(r.surface.businessState).toBe('idle');
    expect(r.signals.activeReasons).toEqual([]);
  });
});

describe('gemini_cli: a reply that quotes the queue notice', () => {
  it('the real queued prompt reads as working', () => {
    const queued = recordedScreen('gemini_cli', 'two-turns', 10);
    expect(queued).toMatch(/^ {2}Queued \(press ↑ to edit\):$/m);
    expect(parse(queued).signals.activeReasons).toEqual(['queued_prompt']);
  });

  it('`Queued (press ↑ to edit):` inside a finished reply does not keep the turn working', () => {
    const text = replaceRows(finished(), [
      [15, '✦ Hello!', '✦ A prompt sent while the CLI works waits under the line'],
      [16, '', '  Queued (press ↑ to edit):'],
      [17, '', '  until the running turn ends.'],
    ]);
    const r = parse(text);
    expect(r.surface.businessState).toBe('idle');
    expect(r.signals.activeReasons).toEqual([]);
    expect(r.signals.successCandidate).toBe(true);
  });
});

describe('gemini_cli: the spinner is read only in its own shape', () => {
  it('a dialog screen whose reply and command quote the spinner is not working', () => {
    // permission-prompt, frame 40: the reply (row 15) above the dialog, the model's command in it (row 20).
    const dialog = recordedScreen('gemini_cli', 'permission-prompt', 40);
    const command = dialog.split('\n')[20]!;
    const text = replaceRows(dialog, [
      [15, '✦ I will create the file.', '✦ While I work you see ⠋ Thinking... (esc to cancel, 3s)'],
      [20, '│ │ touch', command.replace('touch created-by-tool.txt', 'echo (esc to cancel, 3s) ')],
    ]);
    const r = parse(text);
    expect(r.surface.uiContext).toBe('permission_prompt');
    expect(r.signals.activeReasons).toEqual([]);
  });
});

describe('gemini_cli: the pane dies', () => {
  it('the killed CLI’s last screen with tmux’s dead-pane line reads as disconnected', () => {
    // cli-killed, last frame: the CLI's screen stays; tmux (remain-on-exit) writes its note on the
    // bottom row, as the Claude Code cli-killed recording shows: `Pane is dead (signal 9, …)`.
    const killed = recordedScreen('gemini_cli', 'cli-killed', -1);
    expect(parse(killed).surface.availability).toBe('supported');
    const rows = killed.split('\n');
    const text = replaceRows(killed, [
      [rows.length - 1, '', 'Pane is dead (signal 9, Sun Nov 22 08:39:32 2026)'],
    ]);
    const r = parse(text);
    expect(r.surface).toMatchObject({ availability: 'disconnected', inputMode: 'closed' });
    expect(r.signals.activeReasons).toEqual([]);
    expect(r.signals.successCandidate).toBe(false);
  });
});
