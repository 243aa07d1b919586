// Dialogs read as questions from the real recordings of every CLI that asks one: kind, subject
// and each choice with its keys, per recording; then variants of those real frames (a label
// changed, an option added, the cursor moved) that must never give a guessed choice.
import { describe, expect, it } from 'vitest';
import { firstDialog, OPENCODE, questionsOf, short } from './dialog-recordings.js';

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
