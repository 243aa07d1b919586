import type { Observable } from 'rxjs';
import type { AnsweredBy } from '../schemas/record.js';
import type { AnswerResult } from '../terminal/commands.js';
import type { SourceHealth } from '../observe/frame-source.js';
import type { JournalRecord } from '../schemas/record.js';
import type { HookAnswer, HookEventBody } from '../schemas/hook.js';
import type { ObservationAnswer, ObservationBody } from '../schemas/operations/observe.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import type {
  FleetHost,
  SpawnRequest,
  Spawned,
  StopAnswer,
  StopInput,
  TurnPayload,
} from '../schemas/operations/index.js';
import type { AttachRequest, Telemetry, TurnResult } from '../supervisor/supervisor.js';
import type { Operations } from '../terminal/operations.js';

/**
 * A stream of records the HTTP app serves over SSE: each record's `seq` is its event id. A
 * local supervisor's journal is one; the fleet view's window on the JetStream stream is another.
 */
export interface RecordFeed {
  /** The last `seq` handed out. */
  readonly lastSeq: number;
  /** The last `seq` a reader may be given (acknowledged). */
  readonly durableSeq: number;
  /** Each acknowledged record as it comes (readers use it as a wake-up). */
  readonly records$: Observable<JournalRecord>;
  /**
   * At most `limit` records after `afterSeq` (optionally of one terminal), oldest first;
   * `onGap` (where the feed knows) is told of seqs in between that are not there to read.
   */
  readAfter(
    afterSeq: number,
    options?: { terminalId?: string; limit?: number; onGap?: (gap: RecordGap) => void },
  ): JournalRecord[] | Promise<JournalRecord[]>;
  /** Why the feed cannot record (null while it can), now and at each change; where it knows. */
  readonly health$?: Observable<FeedFailure | null>;
  /** The same, now. */
  readonly failure?: FeedFailure | null;
  /** Damaged and copied lines skipped, torn bytes cut off at open; where the feed has files. */
  readonly integrity?: {
    damagedLines: number;
    duplicateLines: number;
    repairedBytes: number;
  };
}

/** A range of seqs a reader does not get: dropped by retention, or on a damaged line. */
export interface RecordGap {
  from: number;
  to: number;
  reason: 'retention' | 'damaged';
}

/** Why a record feed cannot record. */
export interface FeedFailure {
  code: string;
  message: string;
  since: number;
}

/** What `POST /v1/terminals` hands over: a fleet also says which host's pane it is. */
export type AttachCommand = AttachRequest & { host?: string };

/**
 * What the HTTP app needs from whatever it serves: a local `Supervisor` satisfies it as it is,
 * and the fleet view implements it for every host at once. Reads are synchronous (the state is
 * held in memory); commands may go over the network. Errors are `PanewardError`s, whose code
 * decides the HTTP status.
 */
/**
 * A fleet host that stopped answering (its heartbeat expired, or its edge stopped) or that
 * answers again after it had stopped, with the terminals of that host, by qualified id.
 */
export interface HostChange {
  host: string;
  reachable: boolean;
  /** Why, in a sentence naming the host. */
  reason: string;
  terminalIds: string[];
}

export interface SupervisorPort {
  readonly journal: RecordFeed;
  /** Sample and append latencies for the metrics (a fleet view has none of its own). */
  readonly telemetry$: Observable<Telemetry>;
  ids(): string[];
  /** Throws `unknown_terminal` for an id it does not know. */
  get(id: string): TerminalState;
  history(id: string, limit?: number): JournalRecord[] | Promise<JournalRecord[]>;
  attach(request: AttachCommand): Promise<string>;
  submit(id: string, text: string, opts: { force?: boolean }): Promise<string>;
  waitForTurn(
    id: string,
    turnId: string,
    opts: { timeoutMs?: number; signal?: AbortSignal },
  ): Promise<TurnResult>;
  interrupt(id: string): Promise<void>;
  resume(id: string): Promise<void>;
  detach(id: string): void | Promise<void>;
  /** Takes an event a CLI's hook posted (docs/hooks.md); where the server takes them. */
  hookEvent?(tool: string, body: HookEventBody): Promise<HookAnswer>;
  /**
   * Takes an ending a completion observer tells about a terminal's open turn (docs/witness.md);
   * where the server takes them (a fleet view forwards it to the terminal's host).
   */
  observerEnding?(id: string, body: ObservationBody): Promise<ObservationAnswer>;
  /**
   * Starts an agent CLI in a new tmux window and attaches it (answered once it is ready or
   * blocked on a first-run dialog). Absent where nothing can be started (a fleet server).
   */
  spawn?(request: SpawnRequest): Promise<{ terminalId: string; spawned: Spawned }>;
  /** Answers the question on a terminal's screen (absent: refused, as on a fleet server). */
  answer?(
    id: string,
    request: { questionId: string; choice: string; by: AnsweredBy },
  ): Promise<AnswerResult>;
  /** Ends a terminal's CLI with its exit command, then its window (absent: refused). */
  stopTerminal?(input: StopInput): Promise<StopAnswer>;
  /** What paneward started in a terminal's pane; null for a pane it only attached. */
  spawnedOf?(id: string): Spawned | null;
  /** The id `%N` of a terminal's pane on the service's tmux server, when known. */
  paneIdOf?(id: string): string | null;
  /** The pane's latest capture as text and its observation time; null before the first. */
  screen(id: string): Promise<{ text: string; t: number } | null>;
  /**
   * A turn's payload (docs/contracts.md §6): `unknown_turn` for a turn not kept. Absent where
   * none are kept.
   */
  turnPayload?(id: string, turnId: string): TurnPayload | Promise<TurnPayload>;
  /**
   * paneward's own sampling health (`observer_lagging`), null before its first report. Absent
   * where no pane is observed: a fleet server (each host's is in its heartbeat).
   */
  observer?(): SourceHealth | null;
  /** A fleet server's hosts, for `/healthz` and per-host metrics; absent on a single server. */
  hostViews?(): FleetHost[];
  /**
   * A fleet server's hosts as they stop answering and answer again (notifications of `gone`
   * and `back`); absent on a single server.
   */
  readonly hostChanges$?: Observable<HostChange>;
  /** More to say in `/healthz` (the fleet names its hosts). */
  healthDetails?(): Record<string, unknown>;
  /** Extra fields of a terminal's view (the fleet names its host). */
  viewDetails?(id: string): Record<string, unknown>;
  /** The operations a terminal accepts now, when the supervisor knows more than its state. */
  operations?(id: string): Operations;
}
