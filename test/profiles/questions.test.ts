// Dialogs read as questions from the real recordings of every CLI that asks one: kind, subject
// and each choice with its keys, per recording; then variants of those real frames (a label
// changed, an option added, the cursor moved) that must never give a guessed choice.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { getProfile } from '../../src/profiles/index.js';
import { stripEscapes } from '../../src/profiles/internal/highlight.js';
import type { ReadQuestion } from '../../src/schemas/signals.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

interface Recording {
  tool: string;
  toolVersion?: string;
  frames: string[];
}

function load(path: string): Recording {
  const lines = readFileSync(`${FIXTURES}${path}.jsonl`, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map(
      (l) => JSON.parse(l) as { type: string; text?: string; tool?: string; toolVersion?: string },
    );
  const header = lines[0]!;
  return {
    tool: header.tool!,
    ...(header.toolVersion ? { toolVersion: header.toolVersion } : {}),
    frames: lines.filter((l) => l.type === 'frame').map((l) => l.text!),
  };
}

const parserOf = (r: Recording) => getProfile(r.tool, r.toolVersion);

/** Every distinct question the recording's dialog frames read as, in order. */
function questionsOf(path: string): ReadQuestion[] {
  const r = load(path);
  const p = parserOf(r);
  const out = new Map<string, ReadQuestion>();
  for (const text of r.frames) {
    const result = p.parse({ text });
    if (result.signals.blockedPrompt === null) {
      expect(result.question ?? null).toBeNull();
      continue;
    }
    // Every dialog frame carries a question: recognised, or `other` with nothing to answer.
    expect(result.question, `${path}: a dialog without a question`).toBeTruthy();
    out.set(result.question!.id, result.question!);
  }
  return [...out.values()];
}

/** The first dialog frame of a recording, and its profile. */
function firstDialog(path: string) {
  const r = load(path);
  const p = parserOf(r);
  const text = r.frames.find((t) => p.parse({ text: t }).question?.kind !== undefined)!;
  return { p, text, question: p.parse({ text }).question! };
}

const short = (q: ReadQuestion) => ({
  kind: q.kind,
  subject: q.subject,
  choices: q.choices.map((c) => `${c.id}=${c.keys.join('+')}`),
});

const CLAUDE_PERMISSION = {
  kind: 'tool_permission',
  subject: 'touch paneward-approved.txt',
  choices: ['allow_once=1', 'allow_always=2', 'switch_to_auto_mode=3', 'deny=4'],
};
const CODEX_PERMISSION = {
  kind: 'tool_permission',
  subject: 'touch approved.txt',
  choices: ['allow_once=y', 'allow_always=p', 'deny=Escape'],
};
const GEMINI_PERMISSION = {
  kind: 'tool_permission',
  subject: 'touch created-by-tool.txt',
  choices: ['allow_once=1', 'allow_session=2', 'deny=3'],
};
const QWEN = (file: string) => ({
  kind: 'tool_permission',
  subject: `touch ${file}`,
  choices: ['allow_once=1', 'allow_always=2', 'allow_always_user=3', 'deny=4'],
});
// Qwen Code's trust dialog names no path (only the folder's name, in its labels).
const QWEN_TRUST = {
  kind: 'trust_folder',
  subject: null,
  choices: ['trust=1', 'trust_parent=2', 'dont_trust=3'],
};
const COPILOT = (file: string) => ({
  kind: 'tool_permission',
  subject: `touch ${file}`,
  choices: ['allow_once=Enter', 'allow_always=Down+Enter', 'deny=Escape'],
});
const CLINE = (file: string) => ({
  kind: 'tool_permission',
  subject: `touch ${file}`,
  choices: ['allow_once=y', 'deny=n'],
});
// The selection is colour only: read without escapes, allowing has no keys yet.
const OPENCODE = (file: string) => ({
  kind: 'tool_permission',
  subject: `touch ${file}`,
  choices: ['allow_once=', 'allow_always=', 'deny=Escape'],
});

/** Each recording: the one question its dialog frames read as. */
const EXPECTED: Record<string, { kind: string; subject: string | null; choices: string[] }> = {
  'claude_code/permission-prompt': CLAUDE_PERMISSION,
  'claude_code/size-80x24-permission-prompt': CLAUDE_PERMISSION,
  'claude_code/size-250x60-permission-prompt': CLAUDE_PERMISSION,
  'claude_code/2.1.332/permission-prompt': CLAUDE_PERMISSION,
  'claude_code/2.1.332/size-80x24-permission-prompt': CLAUDE_PERMISSION,
  'claude_code/2.1.332/size-250x60-permission-prompt': CLAUDE_PERMISSION,
  'claude_code/trust-prompt': {
    kind: 'trust_folder',
    subject: '/work/main/.tmp/record/claude_code/trust-prompt/work',
    choices: ['exit=Enter', 'trust=Down+Enter'],
  },
  'claude_code/2.1.332/trust-prompt': {
    kind: 'trust_folder',
    subject: '/work/wt/claude/.tmp/record/claude_code/trust-prompt/work',
    choices: ['exit=Enter', 'trust=Down+Enter'],
  },
  'codex/permission-prompt': CODEX_PERMISSION,
  'codex/size-80x24-permission-prompt': CODEX_PERMISSION,
  'codex/size-250x60-permission-prompt': CODEX_PERMISSION,
  'codex/0.171.0/permission-prompt': CODEX_PERMISSION,
  'codex/0.171.0/size-80x24-permission-prompt': CODEX_PERMISSION,
  'codex/0.171.0/size-250x60-permission-prompt': CODEX_PERMISSION,
  'codex/startup-trust-dialog': {
    kind: 'trust_folder',
    subject: '/work/main/.tmp/record/codex/startup-trust-dialog/work',
    choices: ['trust=Enter', 'back=Down+Enter'],
  },
  'codex/0.171.0/startup-trust-dialog': {
    kind: 'trust_folder',
    subject: '/work/wt/codex/.tmp/record/codex/startup-trust-dialog/work',
    choices: ['trust=Enter', 'back=Down+Enter'],
  },
  'gemini_cli/permission-prompt': GEMINI_PERMISSION,
  'gemini_cli/size-80x24-permission-prompt': GEMINI_PERMISSION,
  'gemini_cli/size-250x60-permission-prompt': GEMINI_PERMISSION,
  'gemini_cli/edit-approval': {
    kind: 'tool_permission',
    subject: 'Writing to notes.txt',
    choices: ['allow_once=1', 'allow_session=2', 'modify_in_editor=3', 'deny=4'],
  },
  'gemini_cli/startup-trust-dialog': {
    kind: 'trust_folder',
    subject: null,
    choices: ['trust=1', 'trust_parent=2', 'dont_trust=3'],
  },
  'qwen_code/permission-approved': QWEN('approved.txt'),
  'qwen_code/permission-denied': QWEN('denied.txt'),
  'qwen_code/size-80x24-permission-approved': QWEN('approved.txt'),
  'qwen_code/screen-reader-slow-turn-then-permission': QWEN('approved.txt'),
  'qwen_code/tmux-env-slow-turn-then-permission': QWEN('approved.txt'),
  'qwen_code/0.24.4/permission-approved': QWEN('approved.txt'),
  'qwen_code/0.24.4/permission-denied': QWEN('denied.txt'),
  'qwen_code/0.24.4/size-250x60-permission-approved': QWEN('approved.txt'),
  'qwen_code/0.24.4/screen-reader-slow-turn-then-permission': QWEN('approved.txt'),
  'qwen_code/startup-dialogs': QWEN_TRUST,
  'qwen_code/0.24.4/startup-dialogs': QWEN_TRUST,
  'copilot/startup-dialogs': {
    kind: 'trust_folder',
    subject: '/tmp/pw-clis-rec/copilot/startup-dialogs',
    choices: ['trust=Enter', 'trust_always=Down+Enter', 'dont_trust=Escape'],
  },
  'copilot/permission-approved': COPILOT('approved.txt'),
  'copilot/permission-denied': COPILOT('denied.txt'),
  'cline/permission-approved': CLINE('approved.txt'),
  'cline/permission-denied': CLINE('denied.txt'),
  'grok_cli/permission-approved': {
    kind: 'tool_permission',
    subject: 'touch approved.txt',
    choices: ['allow_once=', 'allow_always=', 'deny=Escape'],
  },
  'opencode/permission-approved': OPENCODE('approved.txt'),
  'opencode/permission-denied': OPENCODE('denied.txt'),
  'opencode/size-80x24-permission-approved': OPENCODE('approved.txt'),
  'kilo/permission-approved': OPENCODE('approved.txt'),
};

describe('the real dialogs read as questions', () => {
  for (const [path, expected] of Object.entries(EXPECTED)) {
    it(`${path}: ${expected.kind}, ${expected.choices.length} choices`, () => {
      const questions = questionsOf(path);
      // Recognised questions: exactly one per recording (the same dialog, the same id).
      const known = questions.filter((q) => q.kind !== 'other');
      expect(known.map(short)).toEqual([expected]);
      // Anything else read there (a half-drawn frame) offers nothing to answer.
      for (const q of questions.filter((x) => x.kind === 'other')) expect(q.choices).toEqual([]);
      expect(known[0]!.id).toMatch(/^q-[0-9a-f]{12}$/);
    });
  }

  it('the labels are as drawn, a wrapped one joined', () => {
    const q = questionsOf('claude_code/2.1.332/size-80x24-permission-prompt')[0]!;
    expect(q.choices[1]!.label).toBe(
      'Yes, and always allow access to /work/wt/claude/.tmp/record/claude_code/size-80x24-permission-prompt/work from this project',
    );
    const codex = questionsOf('codex/0.171.0/size-80x24-permission-prompt')[0]!;
    expect(codex.choices[1]!.label).toMatch(/^Yes, and don't ask again .* \(p\)$/);
  });

  it('two recordings of another dialog give other ids; the same dialog the same id', () => {
    const a = questionsOf('qwen_code/permission-approved')[0]!;
    const b = questionsOf('qwen_code/permission-denied')[0]!;
    expect(a.id).not.toBe(b.id);
    // Cline redraws its spinner above the dialog while it waits: still one question.
    expect(questionsOf('cline/permission-approved')).toHaveLength(1);
  });
});

describe('variants of the real frames never give a guessed choice', () => {
  it('an option label the profile does not know: other, nothing to answer', () => {
    for (const path of [
      'claude_code/2.1.332/permission-prompt',
      'codex/0.171.0/permission-prompt',
      'gemini_cli/permission-prompt',
      'qwen_code/permission-approved',
      'copilot/permission-approved',
      'copilot/startup-dialogs',
      'qwen_code/0.24.4/startup-dialogs',
    ]) {
      const { p, text } = firstDialog(path);
      const renamed = text.replace(
        /2\. (Yes, and|Allow for|Always allow|Trust parent)/,
        '2. Perhaps $1',
      );
      expect(renamed, path).not.toBe(text);
      const q = p.parse({ text: renamed }).question!;
      expect(q.kind, path).toBe('other');
      expect(q.choices, path).toEqual([]);
    }
  });

  it('an option added under the known ones: other', () => {
    const { p, text } = firstDialog('claude_code/2.1.332/permission-prompt');
    const added = text.replace('   4. No', '   4. No\n   5. Yes, run it as root');
    const q = p.parse({ text: added }).question!;
    expect(q.kind).toBe('other');
    expect(q.choices).toEqual([]);
  });

  it('another command in the same dialog: another id, the new subject', () => {
    const { p, text, question } = firstDialog('claude_code/2.1.332/permission-prompt');
    const other = p.parse({
      text: text.replace(/^ touch paneward-approved\.txt$/m, ' rm -rf paneward-approved.txt'),
    }).question!;
    expect(other.subject).toBe('rm -rf paneward-approved.txt');
    expect(other.id).not.toBe(question.id);
    expect(short(other).choices).toEqual(short(question).choices);
  });

  it('the cursor moved in an arrow dialog: the keys follow it, and the id changes', () => {
    const { p, text, question } = firstDialog('claude_code/2.1.332/trust-prompt');
    const moved = text
      .replace(' ❯ No, exit', '   No, exit')
      .replace('   Yes, I trust this folder', ' ❯ Yes, I trust this folder');
    const q = p.parse({ text: moved }).question!;
    expect(short(q).choices).toEqual(['exit=Up+Enter', 'trust=Enter']);
    expect(q.id).not.toBe(question.id);
    // No cursor drawn: the arrows would be a guess, so nothing can be answered.
    const none = p.parse({ text: text.replace(' ❯ No, exit', '   No, exit') }).question ?? null;
    expect(none?.choices ?? []).toEqual([]);
  });

  it("Copilot's refusal is Escape wherever the cursor stands; the arrows follow the cursor", () => {
    const { p, text, question } = firstDialog('copilot/permission-denied');
    // Where the arrows left the cursor live: on the third option, the dialog still drawn.
    const moved = text
      .replace('│ ❯ 1. Yes ', '│   1. Yes ')
      .replace('│   3. No, and tell', '│ ❯ 3. No, and tell');
    expect(moved).not.toBe(text);
    const q = p.parse({ text: moved }).question!;
    expect(short(q).choices).toEqual([
      'allow_once=Up+Up+Enter',
      'allow_always=Up+Enter',
      'deny=Escape',
    ]);
    expect(q.id).not.toBe(question.id);
    // A refusal drawn without its `(Esc to stop)`: back to the arrows, never a guessed Escape.
    const bare = p.parse({ text: text.replace(' (Esc to stop)', '              ') }).question!;
    expect(short(bare).choices).toEqual([
      'allow_once=Enter',
      'allow_always=Down+Enter',
      'deny=Down+Down+Enter',
    ]);
  });

  it('the cursor moved in a digit dialog: the same question, the same keys', () => {
    const { p, text, question } = firstDialog('gemini_cli/permission-prompt');
    const moved = text
      .replace('│ ● 1. Allow once', '│   1. Allow once')
      .replace('│   2. Allow for this session', '│ ● 2. Allow for this session');
    expect(moved).not.toBe(text);
    const q = p.parse({ text: moved }).question!;
    expect(q).toEqual(question);
  });

  it("Claude Code's dialog with its cursor moved to any option: still the dialog, the same question", () => {
    // As drawn live after a digit came too soon after the dialog appeared: the cursor on `4.`.
    const { p, text, question } = firstDialog('claude_code/2.1.332/permission-prompt');
    for (const n of [2, 3, 4]) {
      const lines = text.split('\n');
      const from = lines.findIndex((l) => /^ ❯ 1\. Yes$/.test(l));
      const to = lines.findIndex((l) => l.startsWith(`   ${n}. `));
      expect(from >= 0 && to > from, `option ${n}`).toBe(true);
      lines[from] = lines[from]!.replace(' ❯ 1.', '   1.');
      lines[to] = lines[to]!.replace(`   ${n}.`, ` ❯ ${n}.`);
      const result = p.parse({ text: lines.join('\n') });
      expect(result.surface.uiContext, `cursor on ${n}`).toBe('permission_prompt');
      expect(result.question, `cursor on ${n}`).toEqual(question);
    }
    // No cursor at all is no dialog Claude Code draws: not read as one.
    const bare = p.parse({ text: text.replace(' ❯ 1. Yes', '   1. Yes') });
    expect(bare.surface.uiContext).not.toBe('permission_prompt');
    expect(bare.question ?? null).toBeNull();
  });

  it('a shortcut Codex did not draw: no keys to guess, other', () => {
    const { p, text } = firstDialog('codex/0.171.0/permission-prompt');
    const q = p.parse({ text: text.replace('Yes, proceed (y)', 'Yes, proceed') }).question!;
    expect(q.kind).toBe('other');
  });
});

/** A capture with escapes from `test/fixtures/<tool>/highlight/`, and its plain text. */
function colourScreen(tool: string, name: string): { text: string; ansi: string } {
  const ansi = readFileSync(`${FIXTURES}${tool}/highlight/${name}.ansi`, 'utf8');
  const text = stripEscapes(ansi)
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .trimEnd();
  return { text, ansi };
}

/** The choices that carry keys, as `id=keys`. */
const keyed = (q: ReadQuestion) =>
  q.choices.filter((c) => c.keys.length > 0).map((c) => `${c.id}=${c.keys.join('+')}`);

// Real captures with escapes of the live dialogs, the highlight where the CLI drew it.
const COLOUR: Array<[tool: string, capture: string, choices: string[]]> = [
  ['opencode', 'on-once', ['allow_once=Enter', 'allow_always=Right+Enter', 'deny=Escape']],
  ['opencode', 'on-always', ['allow_once=Left+Enter', 'allow_always=Enter', 'deny=Escape']],
  [
    'opencode',
    'on-reject',
    ['allow_once=Left+Left+Enter', 'allow_always=Left+Enter', 'deny=Escape'],
  ],
  ['kilo', 'on-once', ['allow_once=Enter', 'allow_always=Right+Enter', 'deny=Escape']],
  ['kilo', 'on-always', ['allow_once=Left+Enter', 'allow_always=Enter', 'deny=Escape']],
  ['kilo', 'on-reject', ['allow_once=Left+Left+Enter', 'allow_always=Left+Enter', 'deny=Escape']],
  // The confirmation `Allow always` opens, Confirm selected as it opens, and moved to Cancel.
  ['opencode', 'confirm-on-confirm', ['allow_always=Enter', 'back=Escape']],
  ['opencode', 'confirm-on-cancel', ['allow_always=Left+Enter', 'back=Escape']],
  ['kilo', 'confirm-on-confirm', ['allow_always=Enter', 'back=Escape']],
  ['kilo', 'confirm-on-cancel', ['allow_always=Left+Enter', 'back=Escape']],
  ['grok_cli', 'on-yes', ['allow_once=Enter', 'allow_always=Down+Enter', 'deny=Escape']],
  ['grok_cli', 'on-always', ['allow_once=Up+Enter', 'allow_always=Enter', 'deny=Escape']],
  ['grok_cli', 'on-no', ['allow_once=Up+Up+Enter', 'allow_always=Up+Enter', 'deny=Escape']],
];

describe('a highlight drawn by colour only, read on a capture with escapes', () => {
  for (const [tool, capture, choices] of COLOUR) {
    it(`${tool} ${capture}: the arrows from the highlighted option`, () => {
      const p = getProfile(tool);
      const screen = colourScreen(tool, capture);
      const plain = p.parse({ text: screen.text }).question!;
      const coloured = p.parse(screen).question!;
      // The same question either way (the id is the dialog's text); only the keys differ.
      expect(coloured.id).toBe(plain.id);
      expect(coloured.choices.map((c) => c.id)).toEqual(plain.choices.map((c) => c.id));
      expect(plain.highlight?.problem).toMatch(/capture with escapes/);
      expect(coloured.highlight).toEqual({ problem: null });
      expect(keyed(coloured)).toEqual(choices);
    });
  }

  it('the same dialog with the highlight on another option: the same id', () => {
    for (const tool of ['opencode', 'kilo']) {
      const p = getProfile(tool);
      const ids = ['on-once', 'on-always', 'on-reject'].map(
        (c) => p.parse(colourScreen(tool, c)).question!.id,
      );
      expect(new Set(ids).size, tool).toBe(1);
      const confirm = ['confirm-on-confirm', 'confirm-on-cancel'].map(
        (c) => p.parse(colourScreen(tool, c)).question!.id,
      );
      expect(new Set(confirm).size, tool).toBe(1);
      expect(confirm[0], tool).not.toBe(ids[0]);
    }
  });

  /**
   * Variants of each real capture: the highlighted label drawn as the others (none lit), and
   * another label drawn as the highlighted one (two lit). The allowing choices get no keys.
   */
  const VARIANTS: Array<
    [tool: string, capture: string, lit: [string, string], two: [string, string]]
  > = [
    [
      'opencode',
      'on-once',
      [
        '\x1b[48;2;245;167;66m \x1b[38;2;10;10;10mAllow once',
        '\x1b[48;2;30;30;30m \x1b[38;2;128;128;128mAllow once',
      ],
      [
        '\x1b[38;2;128;128;128mAllow always',
        '\x1b[48;2;245;167;66m\x1b[38;2;10;10;10mAllow always\x1b[48;2;30;30;30m',
      ],
    ],
    [
      'kilo',
      'on-once',
      [
        '\x1b[48;2;204;167;0m \x1b[38;2;12;10;9mAllow once',
        '\x1b[48;2;28;25;23m \x1b[38;2;166;160;155mAllow once',
      ],
      [
        '\x1b[48;2;28;25;23m \x1b[38;2;166;160;155mAllow always',
        '\x1b[48;2;204;167;0m \x1b[38;2;12;10;9mAllow always',
      ],
    ],
    [
      'grok_cli',
      'on-yes',
      ['\x1b[30m\x1b[46m1. Yes', '\x1b[37m1. Yes'],
      ['\x1b[37m3. No\n', '\x1b[30m\x1b[46m3. No\x1b[49m\n'],
    ],
  ];
  for (const [tool, capture, lit, two] of VARIANTS) {
    const p = getProfile(tool);
    const real = colourScreen(tool, capture);
    const refused = (ansi: string, problem: RegExp) => {
      const q = p.parse({ text: real.text, ansi }).question!;
      expect(q.highlight?.problem, tool).toMatch(problem);
      expect(keyed(q), tool).toEqual(['deny=Escape']);
    };

    it(`${tool}: no option highlighted, no keys to allow`, () => {
      expect(real.ansi).toContain(lit[0]);
      refused(real.ansi.replace(...lit), /no option is highlighted/);
    });

    it(`${tool}: two options highlighted, no keys to allow`, () => {
      expect(real.ansi).toContain(two[0]);
      refused(real.ansi.replace(...two), /2 options are highlighted/);
    });

    it(`${tool}: attributes it never saw (another theme), no keys to allow`, () => {
      // A digit added to the last colour before the label: a colour the profile never saw.
      const end = lit[0].indexOf('m', lit[0].lastIndexOf('\x1b['));
      const themed = real.ansi.replace(lit[0], `${lit[0].slice(0, end)}1${lit[0].slice(end)}`);
      expect(themed).not.toBe(real.ansi);
      refused(themed, /unknown attributes|more than one style/);
    });

    it(`${tool}: a capture with escapes that is not the screen, no keys to allow`, () => {
      const other = real.ansi.replace('touch approved.txt', 'touch elsewhere.txt');
      expect(other).not.toBe(real.ansi);
      const q = p.parse({ text: real.text, ansi: other }).question!;
      expect(q.highlight?.problem).toMatch(/does not match the screen/);
      expect(keyed(q)).toEqual(['deny=Escape']);
    });
  }

  it('a changed label: not the known dialog, nothing to answer', () => {
    for (const [tool, capture, label] of [
      ['opencode', 'on-once', 'Allow once'],
      ['kilo', 'on-once', 'Allow once'],
      ['grok_cli', 'on-yes', '1. Yes'],
    ] as const) {
      const real = colourScreen(tool, capture);
      const swap = (t: string) => t.replace(label, label.replace(/once|Yes/, 'ever'));
      const q = getProfile(tool).parse({ text: swap(real.text), ansi: swap(real.ansi) }).question;
      expect(q?.kind ?? 'other', tool).toBe('other');
      expect(q?.choices ?? [], tool).toEqual([]);
    }
  });

  it("Kilo's second question after Reject: deny by Enter, back by Escape, no subject", () => {
    const q = getProfile('kilo').parse(colourScreen('kilo', 'reject-stage')).question!;
    expect(short(q)).toEqual({
      kind: 'tool_permission',
      subject: null,
      choices: ['deny=Enter', 'back=Escape'],
    });
  });
});

describe("opencode's and Kilo's Allow always, and the confirmation it opens", () => {
  const ALWAYS = [
    'opencode/permission-allow-always',
    'opencode/size-80x24-allow-always',
    'kilo/permission-allow-always',
    'kilo/size-80x24-allow-always',
  ];
  for (const path of ALWAYS) {
    it(`${path}: the dialog, then its confirmation, each its own question`, () => {
      const known = questionsOf(path).filter((q) => q.kind !== 'other');
      expect(known.map(short)).toEqual([
        OPENCODE('always.txt'),
        { kind: 'tool_permission', subject: 'touch *', choices: ['allow_always=', 'back=Escape'] },
      ]);
      const [dialog, confirmation] = known as [ReadQuestion, ReadQuestion];
      // Allow always opens the confirmation; the confirmation confirms Allow always.
      expect(dialog.choices.find((c) => c.id === 'allow_always')!.confirmation).toBe(true);
      expect(dialog.confirms).toBeUndefined();
      expect(confirmation.confirms).toBe('allow_always');
      expect(confirmation.choices.map((c) => c.label)).toEqual(['Confirm', 'Cancel']);
      expect(confirmation.id).not.toBe(dialog.id);
    });
  }

  /** The first frame of a recording that reads as the confirmation. */
  const confirmFrame = (path: string) => {
    const r = load(path);
    const p = parserOf(r);
    const text = r.frames.find((t) => p.parse({ text: t }).question?.confirms !== undefined)!;
    return { p, text, question: p.parse({ text }).question! };
  };
  const unread = (p: ReturnType<typeof parserOf>, text: string) => {
    const q = p.parse({ text }).question;
    expect(q?.kind ?? 'other').toBe('other');
    expect(q?.choices ?? []).toEqual([]);
  };

  for (const path of ['opencode/permission-allow-always', 'kilo/permission-allow-always']) {
    it(`${path}: another sentence, no pattern or another option: nothing to answer`, () => {
      const { p, text } = confirmFrame(path);
      const variants = [
        text.replace(/This will allow the following patterns/, 'This will allow these commands'),
        text.replace(/- touch \*/, '  touch *'),
        text.replace(/Confirm {3}Cancel/, 'Confirm   Cancel   Edit'),
        text.replace(/Confirm {3}Cancel/, 'Confirm   Later '),
      ];
      for (const v of variants) {
        expect(v).not.toBe(text);
        unread(p, v);
      }
    });

    it(`${path}: another pattern is another question, its patterns its subject`, () => {
      const { p, text, question } = confirmFrame(path);
      const two = text.replace(/( *┃ *)- touch \*\n/, '$1- touch *\n$1- rm *\n');
      expect(two).not.toBe(text);
      const q = p.parse({ text: two }).question!;
      expect(q.subject).toBe('touch *, rm *');
      expect(q.confirms).toBe('allow_always');
      expect(q.id).not.toBe(question.id);
    });
  }

  // Variants of the real captures with escapes: Confirm drawn as Cancel (none lit), Cancel drawn
  // as Confirm (two lit). Nothing confirms then; Escape still goes back.
  const LIT: Array<[tool: string, none: [string, string], two: [string, string]]> = [
    [
      'opencode',
      [
        '\x1b[48;2;245;167;66m \x1b[38;2;10;10;10mConfirm',
        '\x1b[48;2;30;30;30m \x1b[38;2;128;128;128mConfirm',
      ],
      [
        '\x1b[38;2;128;128;128mCancel',
        '\x1b[48;2;245;167;66m\x1b[38;2;10;10;10mCancel\x1b[48;2;30;30;30m',
      ],
    ],
    [
      'kilo',
      [
        '\x1b[48;2;204;167;0m \x1b[38;2;12;10;9mConfirm',
        '\x1b[48;2;28;25;23m \x1b[38;2;166;160;155mConfirm',
      ],
      [
        '\x1b[48;2;28;25;23m \x1b[38;2;166;160;155mCancel',
        '\x1b[48;2;204;167;0m \x1b[38;2;12;10;9mCancel',
      ],
    ],
  ];
  for (const [tool, none, two] of LIT) {
    it(`${tool}: the confirmation with no option or two highlighted confirms nothing`, () => {
      const p = getProfile(tool);
      const real = colourScreen(tool, 'confirm-on-confirm');
      for (const [ansi, problem] of [
        [real.ansi.replace(...none), /no option is highlighted/],
        [real.ansi.replace(...two), /2 options are highlighted/],
      ] as const) {
        expect(ansi).not.toBe(real.ansi);
        const q = p.parse({ text: real.text, ansi }).question!;
        expect(q.confirms).toBe('allow_always');
        expect(q.highlight?.problem).toMatch(problem);
        expect(keyed(q)).toEqual(['back=Escape']);
      }
    });
  }
});
