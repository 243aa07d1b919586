import { stat } from 'node:fs/promises';
import { matchTree, readProcessTree } from '../observe/process.js';
import { fileKind, type FileKind } from '../profiles/record-files.js';
import type {
  RecordEvent,
  RecordPosition,
  RecordReply,
  SessionContext,
  SessionRecordReader,
  SideContext,
} from '../profiles/session-record.js';
import { readSessionContext } from './context.js';
import { RecordFollower, type FollowerReport } from './follower.js';
import { everyMs } from './process-checks.js';

/**
 * Which observer follows which record file: two panes of one CLI in one folder must each find
 * their own, so a file one observer follows is never another's.
 */
export class ClaimRegistry {
  private readonly owners = new Map<string, string>();

  /** Claims `file` for `owner`; false when another owner holds it. */
  claim(file: string, owner: string): boolean {
    const held = this.owners.get(file);
    if (held !== undefined && held !== owner) return false;
    this.owners.set(file, owner);
    return true;
  }

  /** Releases every file `owner` holds. */
  release(owner: string): void {
    for (const [file, o] of this.owners) if (o === owner) this.owners.delete(file);
  }

  /** The files other owners hold. */
  othersThan(owner: string): Set<string> {
    const out = new Set<string>();
    for (const [file, o] of this.owners) if (o !== owner) out.add(file);
    return out;
  }

  ownerOf(file: string): string | undefined {
    return this.owners.get(file);
  }
}

/**
 * Where an observer is. `why` on `searching` or `following` says what it last passed over (a
 * line over the cap, a path that is not a regular file), bounded and without record text.
 */
export type ObserverStatus =
  /** Looking for the record (no agent process yet, or its record not written yet). */
  | { state: 'searching'; why?: string }
  | { state: 'following'; file: string; pid: number; why?: string }
  /** A piece the reader does not know: the screen alone witnesses this terminal from now on. */
  | { state: 'stepped_aside'; why: string; position: RecordPosition };

/**
 * Something of the record passed over while following goes on (docs/session-records.md): a line
 * longer than the cap, or a record (or side record) path that is not a regular file, never read.
 */
export interface RecordSkip {
  what: 'long_line' | 'not_regular';
  file: string;
  /** Where the line starts (`long_line`); 0 for a path refused. */
  offset: number;
  /** What the path is (`not_regular`). */
  kind?: FileKind;
  /** The same in words: kind, offset, length; never the record's text. */
  why: string;
}

/** What an observer tells its terminal. */
export type ObserverReport =
  | { type: 'status'; status: ObserverStatus }
  /** `side`: the events of the side record (they start or end turns, and carry no reply). */
  | { type: 'events'; events: readonly RecordEvent[]; side?: true }
  /** The reply text of a piece (only with `replies`): the turn's payload, never journaled. */
  | { type: 'reply'; reply: RecordReply }
  | { type: 'reset'; why: 'replaced' | 'truncated'; file: string }
  | { type: 'skipped'; skip: RecordSkip };

export interface SessionObserverOptions {
  /** The terminal this observer belongs to (the claim's owner). */
  owner: string;
  reader: SessionRecordReader;
  /** The agent CLI's process names (the profile's). */
  processNames: readonly string[];
  claims: ClaimRegistry;
  /** The pane's own process, or null when the pane is gone. */
  panePid: () => Promise<number | null>;
  report: (report: ObserverReport) => void;
  /** How often the record is looked at without a change signalled, and a search retried, ms. */
  pollMs?: number;
  /** How often a search looks again, ms (default 200: a CLI writes its record as a turn starts). */
  searchPollMs?: number;
  /** How long a search goes on after it was asked for, ms (default 10 s). */
  searchMs?: number;
  /** How often the pane's agent process is checked for a restart, ms (default 2 s). */
  processCheckMs?: number;
  /**
   * Each piece of the followed record as it is read (`paneward record` keeps them), and each
   * line of the reader's side record, with the process its lines are read for.
   */
  piece?: (piece: { file: string; offset: number; text: string; side?: SideContext }) => void;
  /** Ask the reader for the record's reply texts too (a turn's payload; default false). */
  replies?: boolean;
  /** The agent CLI's process under the pane, or undefined (tests replace it). */
  agentPid?: (panePid: number, processNames: readonly string[]) => Promise<number | undefined>;
  /** Reads the process facts (tests replace it). */
  readContext?: (
    panePid: number,
    processNames: readonly string[],
    claimed: ReadonlySet<string>,
  ) => Promise<SessionContext | null>;
}

/**
 * The session-record witness of one terminal: finds the record of the CLI running in the pane
 * (after each submitted turn, and whenever the pane's agent process changes), claims it, follows
 * it, and reports its turn events. On the first piece the reader does not know it steps aside
 * for good: no more events, and the terminal is witnessed by its screen alone.
 */
export class SessionObserver {
  private statusNow: ObserverStatus = { state: 'searching' };
  private follower: RecordFollower | null = null;
  /** The reader's shared side record (never claimed), followed while the record is. */
  private side: RecordFollower | null = null;
  private searchUntil = 0;
  private searchTimer: NodeJS.Timeout | null = null;
  private readonly stopProcessChecks: () => void;
  private locating: Promise<void> | null = null;
  private stopped = false;
  /** Records of this pane's earlier agent processes: a restarted CLI writes a new one. */
  private readonly retired = new Set<string>();

  constructor(private readonly o: SessionObserverOptions) {
    this.stopProcessChecks = everyMs(o.processCheckMs ?? 2000, this);
  }

  get status(): ObserverStatus {
    return this.statusNow;
  }

  get reader(): SessionRecordReader {
    return this.o.reader;
  }

  /**
   * Looks for the record now and keeps looking (every `searchPollMs`, for `searchMs`) until it is
   * found: called when a turn of this pane starts (the CLI may write its record only then). Only
   * then: a CLI that keeps no file open is told apart from another pane's in the same folder by
   * its record being the newest one written right after its own turn started.
   */
  locate(): Promise<void> {
    if (this.stopped || this.statusNow.state === 'stepped_aside') return Promise.resolve();
    this.searchUntil = Date.now() + (this.o.searchMs ?? 10_000);
    return this.tryLocate();
  }

  /** Reads whatever the followed record has new (a turn just ended on screen). */
  async refresh(): Promise<void> {
    await Promise.all([this.follower?.check(), this.side?.check()]);
  }

  stop(): void {
    this.stopped = true;
    this.dropFollower();
    if (this.searchTimer) clearTimeout(this.searchTimer);
    this.stopProcessChecks();
    this.searchTimer = null;
  }

  private tryLocate(): Promise<void> {
    this.locating ??= this.locateOnce().finally(() => {
      this.locating = null;
    });
    return this.locating;
  }

  private async locateOnce(): Promise<void> {
    const pane = await this.o.panePid().catch(() => null);
    const claimed = this.o.claims.othersThan(this.o.owner);
    for (const file of this.retired) claimed.add(file);
    const context =
      pane === null
        ? null
        : await (this.o.readContext ?? defaultContext)(pane, this.o.processNames, claimed).catch(
            () => null,
          );
    if (this.stopped || this.statusNow.state === 'stepped_aside') return;
    const current = this.statusNow.state === 'following' ? this.statusNow : null;
    const file = context ? await this.o.reader.locate(context).catch(() => null) : null;
    if (this.stopped || (this.statusNow as ObserverStatus).state === 'stepped_aside') return;
    // The same process: keep its record, unless it started another (a new session, `/clear`).
    // A session begun anew in the same process may write its record only with its first
    // prompt, so while none is found the old one is kept and the search goes on.
    if (context && current && current.pid === context.pid && (!file || file === current.file)) {
      if (!file) this.scheduleSearch();
      return;
    }
    if (current && context && current.pid !== context.pid) this.retired.add(current.file);
    // Only a regular file is followed: anything else is refused here, never opened.
    const kind = file ? await kindAt(file) : null;
    if (this.stopped || (this.statusNow as ObserverStatus).state === 'stepped_aside') return;
    if (file && kind !== null && kind !== 'file') {
      // The record of the same process kept meanwhile (a new session's file refused).
      this.refuse(file, kind, current !== null && current.pid === context?.pid);
      return;
    }
    if (!context || !file || !this.o.claims.claim(file, this.o.owner)) {
      if (current) {
        this.dropFollower();
        this.setStatus({ state: 'searching' });
      }
      this.scheduleSearch();
      return;
    }
    this.dropFollower();
    this.o.claims.claim(file, this.o.owner);
    this.setStatus({ state: 'following', file, pid: context.pid });
    this.follower = new RecordFollower({
      file,
      reader: this.o.reader,
      pollMs: this.o.pollMs,
      report: (r) => this.onFollower(file, r, false),
      ...(this.o.replies === true ? { replies: true } : {}),
      ...(this.o.piece ? { piece: this.o.piece } : {}),
    });
    this.follower.start();
    this.followSide(context);
  }

  /**
   * Follows the reader's side record beside the record, if it has one: a file every process of
   * the CLI writes, so it is not claimed, and only the lines of this session's process count.
   */
  private followSide(context: SessionContext): void {
    const side = this.o.reader.side;
    if (!side) return;
    const follower = this.follower;
    void side
      .locate(context)
      .catch(() => null)
      .then((file) => {
        if (!file || this.stopped || this.follower !== follower) return;
        const of = { pid: context.pid, startedAtMs: context.startedAtMs };
        this.side = new RecordFollower({
          file,
          reader: {
            ...this.o.reader,
            kind: 'jsonl',
            read: (piece, position) => side.read(piece, position, of),
          },
          pollMs: this.o.pollMs,
          report: (r) => this.onFollower(file, r, true),
          ...(this.o.piece ? { piece: (p) => this.o.piece!({ ...p, side: of }) } : {}),
        });
        this.side.start();
      });
  }

  private scheduleSearch(): void {
    if (this.searchTimer || Date.now() >= this.searchUntil) return;
    this.searchTimer = setTimeout(() => {
      this.searchTimer = null;
      void this.tryLocate();
    }, this.o.searchPollMs ?? 200);
    this.searchTimer.unref();
  }

  /** A different agent process in the pane (a restart): its record is another file. */
  async checkProcess(): Promise<void> {
    if (this.stopped || this.statusNow.state !== 'following') return;
    const followed = this.statusNow.pid;
    const pane = await this.o.panePid().catch(() => null);
    const pid =
      pane === null
        ? undefined
        : await (this.o.agentPid ?? defaultAgentPid)(pane, this.o.processNames).catch(
            () => undefined,
          );
    if (pid === followed || this.statusNow.state !== 'following') return;
    this.retired.add(this.statusNow.file);
    this.dropFollower();
    // Looked for again when this pane's next turn starts: looking now could take the record
    // of another pane's CLI in the same folder (the newest file is not necessarily ours).
    this.setStatus({ state: 'searching' });
  }

  private onFollower(file: string, r: FollowerReport, side: boolean): void {
    if (this.stopped) return;
    if (r.type === 'events') {
      this.o.report({ type: 'events', events: r.events, ...(side ? { side: true as const } : {}) });
    } else if (r.type === 'reply') {
      if (!side) this.o.report({ type: 'reply', reply: r.reply });
    } else if (r.type === 'reset') this.o.report({ type: 'reset', why: r.why, file });
    else if (r.type === 'skipped') {
      const { offset } = r.position;
      const why = `${side ? 'side record: ' : ''}${r.why}`;
      this.o.report({ type: 'skipped', skip: { what: 'long_line', file, offset, why } });
      // Following goes on with the next line, and the state says what was passed over.
      if (this.statusNow.state === 'following') this.setStatus({ ...this.statusNow, why });
    } else if (r.type === 'refused') {
      if (side) {
        this.side?.stop();
        this.side = null;
        const why = notRegular(r.kind, 'side record');
        const skip: RecordSkip = { what: 'not_regular', file, offset: 0, kind: r.kind, why };
        this.o.report({ type: 'skipped', skip });
        if (this.statusNow.state === 'following') this.setStatus({ ...this.statusNow, why });
      } else {
        this.refuse(file, r.kind, false);
      }
    } else {
      this.dropFollower();
      this.setStatus({ state: 'stepped_aside', why: r.why, position: r.position });
    }
  }

  /**
   * The record found is not a regular file (a FIFO, a device, a socket): it is never read, and
   * never taken again by this observer; the search goes on, and the state says why.
   */
  private refuse(file: string, kind: FileKind, keepCurrent: boolean): void {
    const why = notRegular(kind, 'record');
    this.o.report({ type: 'skipped', skip: { what: 'not_regular', file, offset: 0, kind, why } });
    this.retired.add(file);
    if (keepCurrent && this.statusNow.state === 'following') {
      this.setStatus({ ...this.statusNow, why });
    } else {
      this.dropFollower();
      this.setStatus({ state: 'searching', why });
    }
    this.scheduleSearch();
  }

  private dropFollower(): void {
    this.follower?.stop();
    this.side?.stop();
    this.follower = this.side = null;
    this.o.claims.release(this.o.owner);
  }

  private setStatus(status: ObserverStatus): void {
    this.statusNow = status;
    this.o.report({ type: 'status', status });
  }
}

/** What is at `file` (`stat`: nothing is opened), or null when nothing is there yet. */
async function kindAt(file: string): Promise<FileKind | null> {
  const s = await stat(file).catch(() => null);
  return s ? fileKind(s) : null;
}

const notRegular = (kind: FileKind, what: string) =>
  `the ${what} is a ${kind}, not a regular file: not read`;

async function defaultAgentPid(
  panePid: number,
  processNames: readonly string[],
): Promise<number | undefined> {
  return matchTree(await readProcessTree(panePid), processNames)[0];
}

function defaultContext(
  panePid: number,
  processNames: readonly string[],
  claimed: ReadonlySet<string>,
): Promise<SessionContext | null> {
  return readSessionContext(panePid, processNames, { claimed });
}
