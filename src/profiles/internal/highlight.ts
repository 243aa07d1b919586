/**
 * Reading which option of a dialog is highlighted when the CLI draws the highlight by colour
 * alone. The pane is then captured with its escapes (`capture-pane -p -e`); each option's label
 * is looked up on its row and the SGR attributes its characters carry are compared with the
 * attributes the profile saw the CLI draw, selected and not. Anything else refuses: no
 * highlighted option, two, attributes the profile does not know, or a capture whose text does
 * not match the screen. A refusal is a reason, never a guessed option.
 */

/** Escape sequences tmux may leave in a capture with `-e`: SGR and other CSI, and OSC strings. */
// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b\[[0-9;:?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]/g;

/** A capture with its escape sequences taken out: the text `capture-pane -p` prints. */
export function stripEscapes(ansi: string): string {
  return ansi.replace(ESCAPES, '');
}

/** The SGR attributes in force: colours as their parameters (`38;2;r;g;b`), flags by name. */
interface Attributes {
  fg: string | null;
  bg: string | null;
  flags: Set<string>;
}

const FLAG_ON: Record<number, string> = {
  1: 'bold',
  2: 'dim',
  3: 'italic',
  4: 'underline',
  5: 'blink',
  7: 'inverse',
  8: 'hidden',
  9: 'strike',
};
const FLAG_OFF: Record<number, string[]> = {
  22: ['bold', 'dim'],
  23: ['italic'],
  24: ['underline'],
  25: ['blink'],
  27: ['inverse'],
  28: ['hidden'],
  29: ['strike'],
};

/** One colour's parameters from `params` at `i` (38;5;n, 38;2;r;g;b, or a colon form). */
function colour(params: string[], i: number): { value: string; next: number } {
  const head = params[i]!;
  if (head.includes(':')) return { value: head.replace(/:+/g, ';'), next: i + 1 };
  const mode = params[i + 1];
  if (mode === '5') return { value: params.slice(i, i + 3).join(';'), next: i + 3 };
  if (mode === '2') return { value: params.slice(i, i + 5).join(';'), next: i + 5 };
  return { value: head, next: i + 1 };
}

/** Applies one SGR sequence's parameters to `a`. */
function applySgr(a: Attributes, body: string): void {
  const params = body === '' ? ['0'] : body.split(';');
  for (let i = 0; i < params.length;) {
    const p = params[i]!;
    const n = Number(p.split(':')[0]);
    if (n === 0) {
      a.fg = null;
      a.bg = null;
      a.flags.clear();
    } else if (FLAG_ON[n] !== undefined) a.flags.add(FLAG_ON[n]);
    else if (FLAG_OFF[n] !== undefined) FLAG_OFF[n].forEach((f) => a.flags.delete(f));
    else if ((n >= 30 && n <= 37) || (n >= 90 && n <= 97)) a.fg = String(n);
    else if (n === 39) a.fg = null;
    else if ((n >= 40 && n <= 47) || (n >= 100 && n <= 107)) a.bg = String(n);
    else if (n === 49) a.bg = null;
    else if (n === 38 || n === 48) {
      const c = colour(params, i);
      if (n === 38) a.fg = c.value;
      else a.bg = c.value;
      i = c.next;
      continue;
    } else a.flags.add(`sgr${p}`);
    i++;
  }
}

/** The attributes written as one key: `fg=38;2;10;10;10 bg=43 bold`; `plain` when none. */
function styleKey(a: Attributes): string {
  const parts = [
    ...(a.fg === null ? [] : [`fg=${a.fg}`]),
    ...(a.bg === null ? [] : [`bg=${a.bg}`]),
    ...[...a.flags].sort(),
  ];
  return parts.length === 0 ? 'plain' : parts.join(' ');
}

/**
 * The lines of a capture with escapes, each as its text and the style of every character of
 * it. tmux writes the attributes in force at the start of each line again, and a line's
 * attributes carry over to the next only as tmux writes them, so lines are read in order.
 */
export function styledLines(ansi: string): Array<{ text: string; styles: string[] }> {
  const a: Attributes = { fg: null, bg: null, flags: new Set() };
  return ansi.split('\n').map((line) => {
    let text = '';
    const styles: string[] = [];
    const token =
      // eslint-disable-next-line no-control-regex
      /\x1b\[([0-9;:]*)m|\x1b\[[0-9;:?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|[^\x1b]+|\x1b/g;
    for (const m of line.matchAll(token)) {
      if (m[0].startsWith('\x1b')) {
        if (m[1] !== undefined) applySgr(a, m[1]);
        continue;
      }
      const key = styleKey(a);
      for (const ch of m[0]) {
        text += ch;
        for (let k = 0; k < ch.length; k++) styles.push(key);
      }
    }
    return { text: text.trimEnd(), styles };
  });
}

/** An option on its row: its label, and where on the row the label starts. */
export interface OptionOnRow {
  label: string;
  column: number;
}

/** The attributes a CLI draws its options with, as seen in real captures. */
export interface HighlightStyles {
  /** Each style key an option's label has when it is the highlighted one. */
  selected: readonly string[];
  /** Each style key an option's label has when it is not. */
  unselected: readonly string[];
}

/** Which option is highlighted: its index, or why it cannot be told. */
export type Highlighted = { index: number } | { problem: string };

/**
 * The highlighted option among `options`, each on its row of the capture with escapes (`row`
 * is the line's index, the same in the plain text and in `ansi`). Every character of a label
 * (blanks aside) must carry one style, one of `styles`' known ones, and exactly one label the
 * selected style. Anything else is a problem, never a guess.
 */
export function highlightedOption(
  ansi: string,
  text: string,
  options: ReadonlyArray<OptionOnRow & { row: number }>,
  styles: HighlightStyles,
): Highlighted {
  const styled = styledLines(ansi);
  const plain = text.split('\n');
  const rows = Math.max(styled.length, plain.length);
  for (let r = 0; r < rows; r++) {
    if ((styled[r]?.text ?? '') !== (plain[r] ?? '').trimEnd()) {
      return { problem: 'the capture with escapes does not match the screen' };
    }
  }
  const selected: number[] = [];
  for (const [index, option] of options.entries()) {
    const line = styled[option.row];
    if (
      line === undefined ||
      line.text.slice(option.column, option.column + option.label.length) !== option.label
    ) {
      return { problem: `the option "${option.label}" is not where the screen draws it` };
    }
    const seen = new Set<string>();
    for (let c = option.column; c < option.column + option.label.length; c++) {
      if (line.text[c] !== ' ') seen.add(line.styles[c]!);
    }
    if (seen.size !== 1) {
      return { problem: `the option "${option.label}" is drawn in more than one style` };
    }
    const [style] = [...seen] as [string];
    if (styles.selected.includes(style)) selected.push(index);
    else if (!styles.unselected.includes(style)) {
      return { problem: `the option "${option.label}" is drawn in unknown attributes (${style})` };
    }
  }
  if (selected.length === 0) return { problem: 'no option is highlighted' };
  if (selected.length > 1) return { problem: `${selected.length} options are highlighted` };
  return { index: selected[0]! };
}
