// Dialogs read as questions from real captures with escapes: a highlight drawn by colour only, and
// opencode's and Kilo's Allow always with the confirmation it opens.
import { describe, expect, it } from 'vitest';
import { getProfile } from '../../src/profiles/index.js';
import type { ReadQuestion } from '../../src/schemas/signals.js';
import {
  colourScreen,
  keyed,
  load,
  OPENCODE,
  parserOf,
  questionsOf,
  short,
} from './dialog-recordings.js';

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
