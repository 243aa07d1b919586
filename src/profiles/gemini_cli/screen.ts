import { screenLines } from '../internal/lines.js';

/** The regions of one Gemini CLI screen, found from its fixed chrome. */
export interface GeminiScreen {
  /** Screen lines, right-trimmed, trailing blank lines dropped. */
  lines: string[];
  /** Index of the prompt box's top bar (`▄▄▄…`), or -1 when no prompt box is drawn. */
  inputTop: number;
  /** The prompt box's text without the ` > ` marker; '' when it shows the placeholder. */
  draft: string;
  /** End of the transcript: the status area's first line, or the end of the screen when no prompt box is drawn. */
  transcriptEnd: number;
  /**
   * Lines of the status area between the transcript and the prompt box (spinner, hints); with no
   * prompt box, the last 12 lines (trailing blank rows are already dropped).
   */
  liveEdge: string[];
  /** Index of the line after the latest prompt echo in the transcript; 0 when none is visible. */
  latestTurnStart: number;
  /** The footer (`workspace (/directory)`) is drawn. */
  hasFooter: boolean;
}

const TOP_BAR = /^▄{10,}$/;
const BOTTOM_BAR = /^▀{10,}$/;
const RULE = /^─{10,}$/;
const FOOTER = /^\s*workspace \(\/directory\)/;
/** The line above the rule: spinner with "esc to cancel", or the idle shortcuts hint. */
const STATUS_LINE = /\(esc to cancel|\? for shortcuts\s*$/;
export const PLACEHOLDER = 'Type your message or @path/to/file';

/** Finds the box bars of every prompt echo and of the prompt box (pairs of top/bottom bar indices). */
function boxes(lines: string[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let top = -1;
  lines.forEach((line, i) => {
    const t = line.trim();
    if (TOP_BAR.test(t)) top = i;
    else if (BOTTOM_BAR.test(t) && top >= 0) {
      out.push([top, i]);
      top = -1;
    }
  });
  return out;
}

function nextNonBlank(lines: string[], from: number): number {
  for (let i = from; i < lines.length; i++) if (lines[i]!.trim() !== '') return i;
  return -1;
}

/** Splits a capture into transcript, live edge and prompt box. */
export function readScreen(text: string): GeminiScreen {
  const lines = screenLines(text);
  const all = boxes(lines);
  // The prompt box is the last box, when the footer (or nothing) follows it or the rule over
  // the prompt area precedes it (slash-command suggestions sit between the box and the footer).
  let input: [number, number] | null = null;
  const last = all[all.length - 1];
  if (last) {
    const after = nextNonBlank(lines, last[1] + 1);
    const ruleAbove = lines
      .slice(Math.max(0, last[0] - 3), last[0])
      .some((l) => RULE.test(l.trim()));
    if (after === -1 || FOOTER.test(lines[after]!) || ruleAbove) input = last;
  }
  const echoes = input ? all.slice(0, -1) : all;
  let draft = '';
  let transcriptEnd = lines.length;
  let liveEdge: string[] = [];
  if (input) {
    draft = lines
      .slice(input[0] + 1, input[1])
      .map((l) => l.replace(/^\s*>\s?/, '').trim())
      .join('\n')
      .trim();
    if (draft === PLACEHOLDER) draft = '';
    // Status area: from the line above the rule over the prompt box down to the box.
    let rule = -1;
    for (let i = input[0] - 1; i >= Math.max(0, input[0] - 4); i--) {
      if (RULE.test(lines[i]!.trim())) {
        rule = i;
        break;
      }
    }
    const status = rule > 0 ? lines[rule - 1]! : '';
    const statusLine = rule > 0 && (status.trim() === '' || STATUS_LINE.test(status));
    transcriptEnd = rule < 0 ? input[0] : statusLine ? rule - 1 : rule;
    liveEdge = lines.slice(transcriptEnd, input[0]);
  } else {
    liveEdge = lines.slice(-12);
  }
  const lastEcho = echoes.filter(([, bottom]) => bottom < transcriptEnd).pop();
  return {
    lines,
    inputTop: input ? input[0] : -1,
    draft,
    transcriptEnd,
    liveEdge,
    latestTurnStart: lastEcho ? lastEcho[1] + 1 : 0,
    hasFooter: lines.some((l) => FOOTER.test(l)),
  };
}
