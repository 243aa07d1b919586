import { describe, expect, it } from 'vitest';
import { createClaudeCodeProfile } from '../../../src/profiles/claude_code/index.js';
import { ProfileResult } from '../../../src/schemas/signals.js';
import { loadScenario, loadServerLog } from './fixtures.js';

const profile = createClaudeCodeProfile('2.1.330');
const parse = (text: string) => ProfileResult.parse(profile.parse({ text }));
const aboveBox = (text: string) => {
  const lines = text.split('\n');
  const box = lines.findLastIndex((l) => l.startsWith('❯'));
  return lines.slice(0, box - 1);
};

describe.each([
  ['size-80x24-normal-turn', 80, 24],
  ['size-200x50-normal-turn', 200, 50],
])('claude_code profile: %s', (name, cols, rows) => {
  const rec = loadScenario(name);

  it(`was recorded at ${cols}x${rows}`, () => {
    const lines = rec.last().text.split('\n');
    expect(lines.length).toBe(rows);
    expect(Math.max(...lines.map((l) => [...l].length))).toBe(cols);
  });

  it('reads every "esc to interrupt" frame as working and the end as a success candidate', () => {
    const working = rec.matching(/esc to interrupt/);
    expect(working.length).toBeGreaterThan(2);
    for (const f of working) expect(parse(f.text).surface.businessState).toBe('working');
    const r = parse(rec.last().text);
    expect(r.signals.successCandidate).toBe(true);
    expect(r.surface.projectionText).toContain('This reply comes from the fake model server.');
  });
});

describe('claude_code profile: size-80x24-interrupted', () => {
  it('reads the interruption on the 80-column screen', () => {
    const r = parse(loadScenario('size-80x24-interrupted').last().text);
    expect(r.signals.interrupted).toBe(true);
    expect(r.signals.readyPosture).toBe('yes');
    expect(r.signals.successCandidate).toBe(false);
  });
});

describe.each(['long-reply-scrolls', 'size-80x24-long-reply-scrolls'])(
  'claude_code profile: a reply taller than the screen (%s)',
  (name) => {
    const rec = loadScenario(name);
    const [req] = loadServerLog(name);

    it('keeps the scrolled turn working until the stream ends', () => {
      const streaming = rec.between(rec.inputs[0]!.t + 0.5, rec.tOf(req!.endedAt!));
      expect(streaming.length).toBeGreaterThan(10);
      for (const f of streaming) {
        const r = parse(f.text);
        expect(r.signals.successCandidate).toBe(false);
        expect(r.surface.businessState).toBe('working');
      }
    });

    it('reads the finished turn as a success candidate with the prompt echo scrolled away', () => {
      const last = rec.last().text;
      // The echo, the logo and the reply's "● " line are all above the visible screen.
      expect(aboveBox(last).some((l) => l.startsWith('❯ ') || l.startsWith('● '))).toBe(false);
      expect(last).not.toMatch(/Claude Code v\d/);
      expect(last).toMatch(/^✻ \S+ for \d+s · done/m);
      const r = parse(last);
      expect(r.evidence.rule).toBe('finished');
      expect(r.signals.successCandidate).toBe(true);
    });
  },
);

describe('claude_code profile: a tool run in auto mode', () => {
  const rec = loadScenario('auto-mode-tool-run');

  it('never shows a permission prompt', () => {
    expect(rec.matching(/Do you want to proceed\?/)).toEqual([]);
    for (const f of rec.frames) expect(parse(f.text).signals.blockedPrompt).toBeNull();
  });

  it('reads the end as a success candidate though the logo text shows up mid-screen', () => {
    const last = rec.last().text;
    // The CLI's view of changed files quotes text containing "Claude Code v…", not at the top.
    expect(last).toMatch(/Claude Code v\d/);
    expect(last.split('\n').slice(0, 4).join('\n')).not.toMatch(/Claude Code v\d/);
    const r = parse(last);
    expect(r.signals.successCandidate).toBe(true);
    expect(r.surface.projectionText).toContain('Done: the marker file exists now.');
  });
});

describe('claude_code profile: the auto-mode start-up dialog', () => {
  const rec = loadScenario('startup-auto-mode-dialog');

  it('reads the dialog as blocked on the operator, never ready', () => {
    const shown = rec.matching(/Make auto mode your default permission mode\?/);
    expect(shown.length).toBeGreaterThan(5);
    for (const f of shown) {
      const r = parse(f.text);
      expect(r.surface).toMatchObject({
        businessState: 'awaiting_operator',
        inputMode: 'modal',
        uiContext: 'onboarding_prompt',
      });
      expect(r.signals.blockedPrompt).toBe('onboarding');
      expect(r.signals.readyPosture).toBe('no');
    }
  });

  it('reads the auto-mode prompt after "Yes" as idle and ready', () => {
    const last = rec.last().text;
    expect(last).toMatch(/⏵⏵ auto mode on \(shift\+tab to cycle\)/);
    const r = parse(last);
    expect(r.surface.businessState).toBe('idle');
    expect(r.signals.readyPosture).toBe('yes');
    expect(r.signals.blockedPrompt).toBeNull();
  });
});

describe.each([
  ['error-then-success', (r: ProfileResult) => r.signals.knownFailure !== null],
  ['interrupted-then-success', (r: ProfileResult) => r.signals.interrupted],
])('claude_code profile: %s', (name, marked) => {
  const rec = loadScenario(name);
  const second = rec.inputs[1]!.t;

  it("shows turn 1's marker under the typed second prompt", () => {
    const r = parse(rec.at(second).text);
    expect(marked(r)).toBe(true);
    expect(r.signals.editingInput).toBe('yes');
  });

  it("scopes the end to turn 2 while turn 1's marker is still on screen", () => {
    const last = rec.last().text;
    expect(last).toMatch(/API Error: 500|Interrupted · What should Claude do instead\?/);
    const r = parse(last);
    expect(marked(r)).toBe(false);
    expect(r.signals.knownFailure).toBeNull();
    expect(r.signals.successCandidate).toBe(true);
  });
});

describe('claude_code profile: a multi-line prompt', () => {
  const rec = loadScenario('multiline-prompt');

  it('reads the three-line draft as editing input, then the reply as success', () => {
    const draft = rec.matching(
      /❯\s+first line of the prompt\n {2}second line of the prompt\n {2}third line\n─/,
    );
    expect(draft.length).toBeGreaterThan(0);
    const r = parse(draft[draft.length - 1]!.text);
    expect(r.signals.editingInput).toBe('yes');
    expect(r.signals.readyPosture).toBe('yes');
    const end = parse(rec.last().text);
    expect(end.signals.successCandidate).toBe(true);
    expect(end.surface.projectionText).toContain('Three lines received, thank you.');
  });
});

describe('claude_code profile: a draft over the interrupted marker', () => {
  it('keeps the marker and the draft apart: ready, editing, marker still seen', () => {
    const rec = loadScenario('draft-over-old-marker');
    const drafted = rec.matching(/❯\s+a draft I am still thinking about/);
    expect(drafted.length).toBeGreaterThan(10);
    for (const f of drafted) {
      const r = parse(f.text);
      expect(r.signals.editingInput).toBe('yes');
      expect(r.signals.readyPosture).toBe('yes');
      expect(r.signals.interrupted).toBe(true);
      expect(r.signals.activeReasons).toEqual([]);
    }
  });
});

describe('claude_code profile: long tool output', () => {
  it('finishes with a success candidate after the approved command printed 300 lines', () => {
    const rec = loadScenario('tool-output-long');
    expect(rec.matching(/Do you want to proceed\?/).length).toBeGreaterThan(3);
    const r = parse(rec.last().text);
    expect(r.signals.successCandidate).toBe(true);
    expect(r.surface.projectionText).toContain('Done: that was 300 lines of output.');
  });
});

describe('claude_code profile: a note at the right edge over the prompt box', () => {
  // As the context fills, Claude Code 2.1.332 draws `auto-compact next` at the right edge between
  // the status line and the prompt box (context-near-full); the status line is above it.
  const rec = loadScenario('2.1.332/context-near-full');
  const note = (t: string) => t.split('\n').find((l) => /^ {40,}auto-compact next$/.test(l));
  const compacting = rec.matching(/Compacting conversation… \(/).find((f) => note(f.text));

  it('reads the status line above the note as working without the footer’s hint', () => {
    expect(compacting).toBeDefined();
    // The footer's `esc to interrupt` is the one other mark: without it the status line alone
    // must tell the turn runs.
    const text = compacting!.text.replace(/ · esc to interrupt/, '');
    expect(text).not.toMatch(/esc to interrupt/);
    const r = parse(text);
    expect(r.signals.activeReasons).toEqual(['spinner']);
    expect(r.signals.readyPosture).not.toBe('yes');
  });

  it('reads an interruption with the note under it (a variant of a real interrupted frame)', () => {
    const last = loadScenario('size-80x24-interrupted').last().text.split('\n');
    const box = last.findLastIndex((l) => l.startsWith('❯'));
    // The note goes where Claude Code draws it: the line over the box's top rule.
    const lines = [
      ...last.slice(0, box - 2),
      `${' '.repeat(62)}auto-compact next`,
      ...last.slice(box - 1),
    ];
    const r = parse(lines.join('\n'));
    expect(r.signals.interrupted).toBe(true);
  });
});
