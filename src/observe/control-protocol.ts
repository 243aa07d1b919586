/**
 * tmux control mode (`tmux -C`), the client's side of its stdout: every command line the client
 * sends is answered by one block `%begin TIME NUMBER FLAGS` … `%end|%error TIME NUMBER FLAGS`;
 * outside blocks, lines starting with `%` are notifications. `%output` data is never decoded
 * here: only which pane wrote and how many bytes (the capture is the truth, not the stream).
 */

/** One answer to one command, in the order the commands ran. */
export interface ControlReply {
  /** tmux's command number (one counter for the whole server, increasing as commands run). */
  number: number;
  /** Server time at `%begin`, in epoch seconds. */
  time: number;
  /**
   * True for a command line this client sent (FLAGS 1); false for blocks the client did not
   * ask for (the attach command it was started with, hooks).
   */
  fromClient: boolean;
  /** `%end` (true) or `%error` (false). */
  ok: boolean;
  /** The lines between the guards, joined with `\n`, without a final newline. */
  body: string;
  /**
   * Position in the stream: one count per reply and notification, in arrival order. A
   * notification with a lower `seq` arrived before this reply (tmux wrote it first).
   */
  seq: number;
}

/** A notification line, reduced to what an observer acts on. */
export type ControlNotification =
  /** `%output %P …` or `%extended-output %P AGE : …`: the pane wrote `bytes` (escaped) bytes. */
  | { type: 'output'; paneId: string; bytes: number }
  | { type: 'pause' | 'continue' | 'pane-mode-changed'; paneId: string }
  | {
      type:
        | 'window-add'
        | 'unlinked-window-add'
        | 'window-close'
        | 'unlinked-window-close'
        | 'layout-change';
      windowId: string;
    }
  | { type: 'window-pane-changed'; windowId: string; paneId: string }
  | { type: 'sessions-changed' }
  | { type: 'session-changed' | 'session-renamed'; sessionId: string; name: string }
  | { type: 'session-window-changed'; sessionId: string; windowId: string }
  /** The client is leaving (`%exit [REASON]`, written by the client process itself). */
  | { type: 'exit'; reason: string | null }
  /** Any other line outside a block (`%window-renamed`, `%client-detached`, …). */
  | { type: 'other'; name: string; line: string };

export interface ControlParserHandlers {
  reply(reply: ControlReply): void;
  /** `seq` counts replies and notifications together, like {@link ControlReply.seq}. */
  notification(notification: ControlNotification, seq: number): void;
}

const NL = 0x0a;
const OUTPUT = Buffer.from('%output %');
const EXTENDED_OUTPUT = Buffer.from('%extended-output %');
// Enough to hold the longest output prefix with a pane id: `%extended-output %4294967295 `.
const OUTPUT_PREFIX_MAX = 32;

/**
 * Incremental parser for a control client's stdout. Feed it chunks as they arrive; it calls
 * the handlers once per complete reply and once per notification (an `%output` line as soon as
 * its pane id is known, however long the line). Memory is bounded by the longest non-output
 * line, plus the body of the reply being read.
 *
 * Inside a block every line is body until that block's own closing guard (same time, number
 * and flags), so a screen showing `%end …` cannot close it. `%pause`/`%continue` caused by a
 * `refresh-client -A` command are written by tmux inside that command's block and arrive as its
 * body; tmux's own pauses arrive between blocks, as notifications.
 */
export class ControlParser {
  /** A partial line held until its newline arrives (never `%output` data). */
  #carry: Buffer | null = null;
  /** Inside a long `%output` line whose pane is already reported: its bytes are only counted. */
  #skipping = false;
  #seq = 0;
  /** The closing guards of the open block, and its lines so far. */
  #block: {
    number: number;
    time: number;
    flags: number;
    end: string;
    error: string;
    lines: string[];
  } | null = null;

  constructor(private readonly handlers: ControlParserHandlers) {}

  /** True while a reply block is open (lines are body until its own `%end`/`%error`). */
  get inBlock(): boolean {
    return this.#block !== null;
  }

  push(chunk: Buffer): void {
    let start = 0;
    if (this.#skipping) {
      const nl = chunk.indexOf(NL);
      if (nl < 0) return;
      this.#skipping = false;
      start = nl + 1;
    } else if (this.#carry) {
      const nl = chunk.indexOf(NL);
      if (nl < 0) {
        this.#carry = Buffer.concat([this.#carry, chunk]);
        this.#maybeStartSkipping();
        return;
      }
      const line = Buffer.concat([this.#carry, chunk.subarray(0, nl)]);
      this.#carry = null;
      this.#line(line);
      start = nl + 1;
    }
    for (;;) {
      const nl = chunk.indexOf(NL, start);
      if (nl < 0) break;
      this.#line(chunk.subarray(start, nl));
      start = nl + 1;
    }
    if (start < chunk.length) {
      this.#carry = Buffer.from(chunk.subarray(start));
      this.#maybeStartSkipping();
    }
  }

  /** A partial `%output` line: report its pane now and drop the data still to come. */
  #maybeStartSkipping(): void {
    const carry = this.#carry;
    if (!carry || this.#block || carry.length < OUTPUT_PREFIX_MAX) return;
    const paneId = outputPane(carry);
    if (paneId === null) return;
    this.handlers.notification({ type: 'output', paneId, bytes: carry.length }, ++this.#seq);
    this.#carry = null;
    this.#skipping = true;
  }

  #line(raw: Buffer): void {
    const block = this.#block;
    if (block) {
      const line = raw.toString('utf8');
      if (line === block.end || line === block.error) {
        this.#block = null;
        this.handlers.reply({
          number: block.number,
          time: block.time,
          fromClient: block.flags === 1,
          ok: line === block.end,
          body: block.lines.join('\n'),
          seq: ++this.#seq,
        });
      } else {
        block.lines.push(line);
      }
      return;
    }
    const paneId = outputPane(raw);
    if (paneId !== null) {
      this.handlers.notification({ type: 'output', paneId, bytes: raw.length }, ++this.#seq);
      return;
    }
    const line = raw.toString('utf8');
    if (line.startsWith('%begin ')) {
      const [time, number, flags] = line.slice('%begin '.length).split(' ').map(Number);
      if (Number.isInteger(time) && Number.isInteger(number) && Number.isInteger(flags)) {
        const tail = line.slice('%begin'.length);
        this.#block = {
          number: number as number,
          time: time as number,
          flags: flags as number,
          end: `%end${tail}`,
          error: `%error${tail}`,
          lines: [],
        };
        return;
      }
    }
    this.handlers.notification(parseNotification(line), ++this.#seq);
  }
}

/** The pane id of an `%output` or `%extended-output` line, or null for any other line. */
function outputPane(line: Buffer): string | null {
  let at: number;
  if (startsWith(line, OUTPUT)) at = OUTPUT.length;
  else if (startsWith(line, EXTENDED_OUTPUT)) at = EXTENDED_OUTPUT.length;
  else return null;
  let end = at;
  while (end < line.length && line[end]! >= 0x30 && line[end]! <= 0x39) end++;
  if (end === at || (end < line.length && line[end] !== 0x20)) return null;
  return `%${line.toString('latin1', at, end)}`;
}

function startsWith(line: Buffer, prefix: Buffer): boolean {
  return (
    line.length >= prefix.length && line.compare(prefix, 0, prefix.length, 0, prefix.length) === 0
  );
}

/** Parses one notification line (outside a block). */
export function parseNotification(line: string): ControlNotification {
  const space = line.indexOf(' ');
  const name = space < 0 ? line.slice(1) : line.slice(1, space);
  const rest = space < 0 ? '' : line.slice(space + 1);
  const words = rest === '' ? [] : rest.split(' ');
  const [a = '', b = ''] = words;
  const other = { type: 'other', name, line } as const;
  switch (name) {
    case 'pause':
    case 'continue':
    case 'pane-mode-changed':
      return isId(a, '%') ? { type: name, paneId: a } : other;
    case 'window-add':
    case 'unlinked-window-add':
    case 'window-close':
    case 'unlinked-window-close':
    case 'layout-change':
      return isId(a, '@') ? { type: name, windowId: a } : other;
    case 'window-pane-changed':
      return isId(a, '@') && isId(b, '%') ? { type: name, windowId: a, paneId: b } : other;
    case 'sessions-changed':
      return { type: name };
    case 'session-changed':
    case 'session-renamed':
      // The name is the rest of the line: it may hold spaces.
      return isId(a, '$') ? { type: name, sessionId: a, name: rest.slice(a.length + 1) } : other;
    case 'session-window-changed':
      return isId(a, '$') && isId(b, '@') ? { type: name, sessionId: a, windowId: b } : other;
    case 'exit':
      return { type: 'exit', reason: rest === '' ? null : rest };
    default:
      return other;
  }
}

function isId(word: string, sigil: '%' | '@' | '$'): boolean {
  return word.length > 1 && word[0] === sigil && /^\d+$/.test(word.slice(1));
}

/**
 * Quotes one argument for tmux's command parser, as a control client's command line needs:
 * single quotes (no expansion of `$`, `~`, `#` or `%` inside), with any single quote spelled as
 * `'"'"'`. Newlines cannot be sent on one line and are refused.
 */
export function quoteArg(arg: string): string {
  if (/[\n\r]/.test(arg)) throw new Error('a control-mode argument cannot hold a line break');
  return `'${arg.replaceAll("'", `'"'"'`)}'`;
}

/** One command line: the command name bare, every argument quoted. */
export function commandLine(command: string, args: readonly string[]): string {
  return [command, ...args.map(quoteArg)].join(' ');
}
