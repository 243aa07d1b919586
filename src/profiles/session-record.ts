/**
 * A second witness beside the screen: the record an agent CLI writes of its own session (a
 * JSON Lines transcript, a rollout file, a task's message list). Each CLI that writes one has a
 * reader in its profile's folder (`session-record.ts`), all of this one shape: where the record
 * of the session running in a pane is, and what a piece of it says about turns. Following the
 * file as it grows is shared (it is not the reader's business), so a reader is two small parts:
 * `locate` and `read`.
 *
 * A reader reads only what decides a turn's start and end and why; none of the record's text is
 * kept: the journal stores the evidence (file, offset, the record's own event name). The one
 * exception is opt-in and kept apart: `reply` hands over the assistant's reply text of a piece,
 * for the turn's payload (held in memory only, never in the journal or the state).
 */

/** What is known of the process running in a pane, for finding its session record. */
export interface SessionContext {
  /** The agent CLI's process (the pane's foreground process or the matching child). */
  pid: number;
  /** The process's working folder (`/proc/<pid>/cwd`). */
  cwd: string;
  /** The process's environment (`/proc/<pid>/environ`): `HOME`, `CODEX_HOME`, ... */
  env: Readonly<Record<string, string>>;
  /** Paths the process holds open (`/proc/<pid>/fd`), when readable. */
  openFiles: readonly string[];
  /** When the process started, epoch ms: a record last written before it is not this session's. */
  startedAtMs: number;
  /**
   * The process's command line (`/proc/<pid>/cmdline`), when read: a CLI-specific hint such as
   * a session id given as an argument.
   */
  argv?: readonly string[];
  /**
   * Files already followed by another pane's observer: never this pane's (two panes of one CLI
   * in one folder must each find their own).
   */
  claimed: ReadonlySet<string>;
}

/** Where a reader's evidence came from: kept in the journal instead of the record's text. */
export interface RecordPosition {
  /** Absolute path of the record file. */
  file: string;
  /** Byte offset of the line (`jsonl`) or the index of the entry (`document`). */
  offset: number;
}

/** A turn's end as the CLI recorded it. */
export type RecordedEnding =
  | { reason: 'success' }
  | { reason: 'interrupted' }
  | {
      reason: 'known_failure';
      /** The failure as the record names it (`api_error`, `rate_limit`, `http_500`, ...). */
      kind: string;
    };

/** What one piece of a session record says about turns. */
export type RecordEvent =
  | {
      type: 'turn_started';
      /** The record's own event name (`user`, `task_started`, ...). */
      event: string;
      position: RecordPosition;
      /** When the record says it happened, epoch ms, if it says. */
      atMs?: number;
    }
  | {
      type: 'turn_ended';
      ending: RecordedEnding;
      event: string;
      position: RecordPosition;
      atMs?: number;
    };

/**
 * The assistant's reply text a piece carries (docs/contracts.md §6). Pieces of one message
 * (`messageId` alike, `part: true`) are joined; any other reply replaces the one before, so the
 * turn's reply is its last message.
 */
export interface RecordReply {
  text: string;
  /** The record's id of the message, when it has one. */
  messageId?: string;
  /** The text is one part of the message (Claude Code writes a line per content block). */
  part?: boolean;
  /**
   * A document's reply: the position offset of its message. Events of the same document at
   * earlier offsets come before the reply (the prompt that started its turn), the others after.
   */
  offset?: number;
}

/**
 * What a reader made of one piece: the events in it (often none), or `unknown` when the piece is
 * not in the format the reader was built against. One unknown piece makes the observer step aside
 * (the screen alone decides, and `doctor` says why); a reader never guesses an outcome.
 */
export type RecordReading =
  | { events: readonly RecordEvent[] }
  | {
      unknown: string;
    };

/**
 * How one agent CLI's session record is found and read.
 *
 * - `jsonl`: the CLI appends one JSON value per line; `read` gets each complete new line once,
 *   with the byte offset it starts at.
 * - `document`: the CLI rewrites one JSON document (an array of messages); `read` gets the whole
 *   text each time it changes and returns every event in it so far (the follower passes on only
 *   the ones past those it already passed on, by position).
 */
export interface SessionRecordReader {
  /** Profile id (`claude_code`, `codex`, ...). */
  tool: string;
  kind: 'jsonl' | 'document';
  /** The record versions this reader was verified against (the CLI's versions). */
  verifiedVersions: readonly string[];
  /**
   * The endings this record can tell, when not all three: a record that cannot tell one (Gemini
   * CLI writes a reply before it knows whether tools follow, so it never tells `success`) leaves
   * that ending to the screen, and its silence about it is no disagreement.
   */
  endings?: readonly RecordedEnding['reason'][];
  /**
   * The record of the session running in this process, or null when there is none (yet): called
   * again after a turn is submitted and whenever the process changes.
   */
  locate(context: SessionContext): Promise<string | null>;
  /** Reads one piece of the record (see `kind`). Pure: the same piece gives the same reading. */
  read(piece: string, position: RecordPosition): RecordReading;
  /**
   * The reply text one piece carries, or null: asked only where a turn's payload is wanted, and
   * never for a piece `read` did not know. Absent: the screen tells the reply. Pure. For a
   * `document`, the reply of its last message when that is one, with the message's `offset`.
   */
  reply?(piece: string): RecordReply | null;
  /**
   * A second file the CLI writes beside the record, shared by every process of the CLI (Cline's
   * log): followed while the record is, as `jsonl`, but never claimed by one pane; `read` keeps
   * only the lines of the process that runs the pane's session.
   */
  side?: SideRecordReader;
}

/** Which process a shared side record's lines must be of to count for a pane. */
export interface SideContext {
  /** The process running the pane's session (the record's owner). */
  pid: number;
  /** When it started, epoch ms: lines from before are an earlier holder's of the pid. */
  startedAtMs: number;
}

/** A shared side record (see `SessionRecordReader.side`), appended to one line at a time. */
export interface SideRecordReader {
  /** The side file for this process, or null when there is none (yet). */
  locate(context: SessionContext): Promise<string | null>;
  /** Reads one complete line; lines of other processes read as no events. Pure. */
  read(piece: string, position: RecordPosition, context: SideContext): RecordReading;
}

/** The longest reason (`unknown`, a `why`) that leaves paneward (state, events, the journal). */
export const MAX_REASON_CHARS = 160;

/** A value the record holds that may appear in a reason as it is: a short name, no text. */
const NAME = /^[A-Za-z0-9_.:/$@-]{1,40}$/;

/**
 * A value from the record as a reason may name it: a short name (a line type, a stop reason)
 * quoted, a number or `true`/`false`/`null` as such, anything else only by its kind and length
 * (`a string of 20480 characters`, `an object`). A reader builds its `unknown` reasons with this,
 * so the record's text (a prompt, a reply, a tool's output) is never carried in one.
 */
export function named(value: unknown): string {
  if (typeof value === 'string') {
    return NAME.test(value) ? JSON.stringify(value) : `a string of ${value.length} characters`;
  }
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'a number';
  if (typeof value === 'boolean' || value === null) return String(value);
  if (value === undefined) return 'none';
  if (Array.isArray(value)) return `a list of ${value.length}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

const hasControl = (text: string) => [...text].some((c) => c.charCodeAt(0) < 0x20);

/**
 * A reason as it may leave paneward: at most {@link MAX_REASON_CHARS} characters on one line.
 * One that is longer is not cut (its head could be the record's text) but replaced by its
 * length: the readers' own reasons are short, so this only ever catches a reader's mistake.
 */
export function boundReason(why: string): string {
  if (why.length <= MAX_REASON_CHARS && !hasControl(why)) return why;
  return `a reason of ${why.length} characters, withheld`;
}

/**
 * A failure's kind as the record names it, when that is a short name; else `fallback`. The
 * kind is kept in the journal and the state, so it is a name like the others, never text.
 */
export function kindName(value: unknown, fallback: string): string {
  return typeof value === 'string' && NAME.test(value) ? value : fallback;
}
