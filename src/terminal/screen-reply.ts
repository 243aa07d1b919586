/**
 * A turn's reply as the screen shows it: the profile's projection (the transcript with the CLI's
 * chrome left out) at the turn's end, from after the turn's prompt to the ready prompt, its lines
 * as drawn. Pure.
 */

/** How many of the last lines before the turn anchor where the turn starts on the end screen. */
const ANCHOR_LINES = 3;
/** The head of a prompt looked for as its echo (a long line may be wrapped by the CLI). */
const PROMPT_HEAD_CHARS = 40;
/** The tail of a prompt's last line looked for as the end of its echo. */
const PROMPT_TAIL_CHARS = 20;

export interface ScreenReply {
  text: string;
  /** The reply's start was on the screen (false: it had scrolled out, the text is its end only). */
  whole: boolean;
}

const linesOf = (text: string): string[] => {
  const lines = text.split('\n').map((l) => l.trimEnd());
  return trimBlank(lines);
};

function trimBlank(lines: string[]): string[] {
  let a = 0;
  let b = lines.length;
  while (a < b && lines[a] === '') a += 1;
  while (b > a && lines[b - 1] === '') b -= 1;
  return lines.slice(a, b);
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * The first index at or after `from` where `block` stands line for line in `lines`, or -1.
 */
function indexOfBlock(lines: readonly string[], block: readonly string[], from = 0): number {
  outer: for (let i = from; i + block.length <= lines.length; i += 1) {
    for (let j = 0; j < block.length; j += 1) if (lines[i + j] !== block[j]) continue outer;
    return i;
  }
  return -1;
}

/**
 * The reply between the turn's prompt and the end of the transcript:
 * - where the turn starts: after the last lines the transcript had before the turn (`baseline`),
 *   found again on the end screen; an empty baseline starts at the top (prompt not known);
 * - then, when the prompt is known (typed through paneward), after its echo;
 * - neither found: the start had scrolled out of the pane, and what is shown is the reply's end.
 */
export function replyFromScreen(baseline: string, end: string, prompt: string | null): ScreenReply {
  const before = linesOf(baseline);
  const after = linesOf(end);
  const promptLines = prompt === null ? [] : trimBlank(prompt.split('\n').map(squash));
  let start = 0;
  // An empty transcript before the turn starts it at the top, unless the prompt is known: its
  // echo is then where the turn starts, and a screen without it has scrolled past it.
  let anchored = before.length === 0 && promptLines.length === 0;
  if (before.length > 0) {
    const block = before.slice(-Math.min(ANCHOR_LINES, before.length));
    const at = indexOfBlock(after, block);
    if (at >= 0) {
      start = at + block.length;
      anchored = true;
    }
  }
  if (promptLines.length > 0) {
    const head = (promptLines[0] as string).slice(0, PROMPT_HEAD_CHARS);
    const echo = after.findIndex((l, i) => i >= start && squash(l).includes(head));
    if (echo >= 0) {
      const last = promptLines.at(-1) as string;
      const tail = last.slice(-PROMPT_TAIL_CHARS);
      // A long or multi-line prompt is drawn over several rows: its echo ends at its tail.
      const span = promptLines.length * 4 + 8;
      let endOfEcho = echo;
      for (let i = echo; i < Math.min(after.length, echo + span); i += 1) {
        if (squash(after[i] as string).includes(tail)) {
          endOfEcho = i;
          break;
        }
      }
      start = endOfEcho + 1;
      anchored = true;
    }
  }
  // As drawn: the payload takes the CLI's chrome and margin off (payload.ts).
  return { text: trimBlank(after.slice(start)).join('\n'), whole: anchored };
}
