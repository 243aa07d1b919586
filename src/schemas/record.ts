import { z } from 'zod';
import { ChartSettings } from './kernel.js';
import { DeliveryOutcome, NotifyKind } from './notify.js';

/** Format version of every record; bumped when a record's meaning changes. */
export const RECORD_FORMAT = 1;

export const ChartName = z.enum([
  'readiness',
  'completion',
  'turnPhase',
  'lastTurn',
  'diagnostics',
  'watchdog',
]);
export type ChartName = z.infer<typeof ChartName>;

/** Where a session record said something: its file, offset, and the record's own event name. */
export const RecordPlace = z.object({
  file: z.string(),
  offset: z.number().int().nonnegative(),
  event: z.string(),
});

/** What a CLI's hook told (docs/hooks.md): its event name, never any text. */
export const HookPlace = z.object({ hook: z.string() });

/** Which completion observer told it (docs/witness.md): its name, never any text. */
export const ObserverPlace = z.object({ observer: z.string() });

/** One state change of one chart, with the rule that caused it where one did. */
export const ChartTransition = z.object({
  machine: ChartName,
  from: z.string(),
  to: z.string(),
  event: z.string(),
  turnId: z.string().optional(),
  rule: z.string().optional(),
  unknownElapsedSeconds: z.number().optional(),
  elapsedStalledSeconds: z.number().optional(),
  candidateElapsedSeconds: z.number().optional(),
});
export type ChartTransition = z.infer<typeof ChartTransition>;

/** What a change was decided on: the profile and its rule for a frame, or the timer that fired. */
export const RecordEvidence = z.object({
  profile: z.string(),
  profileVersion: z.string().nullable(),
  /** The profile's detector, or `timer:<name>` / `command:<name>` when no frame was involved. */
  detector: z.string(),
  rule: z.string(),
  /** sha256 of the screen text (first 16 hex digits); null when no frame was involved. */
  screenHash: z.string().nullable(),
});
export type RecordEvidence = z.infer<typeof RecordEvidence>;

const TurnSource = z.enum(['explicit_input', 'surface_inference']);
const Seconds = z.number();

const Base = {
  v: z.literal(RECORD_FORMAT),
  /** Supervisor-wide, strictly increasing, never reused (continues across restarts). */
  seq: z.number().int().positive(),
  at: z.iso.datetime({ offset: true }),
  terminalId: z.string().nullable(),
};

export const TerminalRequestFields = z.object({
  target: z.string(),
  tool: z.string(),
  toolVersion: z.string().nullable(),
  watchdogBudgetSeconds: z.number().nonnegative(),
  /** The pane's id (`%N`) when it was known at attach: one pane is one terminal, whatever it was called. */
  paneId: z.string().optional(),
  /** The terminal's own chart settings, when it was attached with some. */
  config: ChartSettings.optional(),
  /** Its completion authority (docs/witness.md), when it was attached with one. */
  completionAuthority: z.enum(['surface', 'markers', 'both']).optional(),
});
export type TerminalRequestFields = z.infer<typeof TerminalRequestFields>;

/** Everything a restarted supervisor needs to carry on with one terminal. */
export const RestoreFacts = z.object({
  request: TerminalRequestFields,
  lastTurn: z
    .object({
      result: z.enum(['success', 'interrupted', 'known_failure']),
      source: TurnSource,
      turnId: z.string(),
      at: Seconds,
    })
    .nullable(),
  openTurn: z
    .object({
      turn: z.object({ id: z.string(), source: TurnSource, startedAt: Seconds }),
      hadEvidence: z.boolean(),
    })
    .nullable(),
  watchdog: z.object({ sessionStartedAt: Seconds, fired: z.boolean() }).nullable(),
});
export type RestoreFacts = z.infer<typeof RestoreFacts>;

/** The watchdog's cancel record (docs/contracts.md §4). */
export const WatchdogCancel = z.object({
  aggregateType: z.literal('runtime_control'),
  aggregateId: z.string(),
  eventKind: z.literal('runtime.watchdog.cancel'),
  reason: z.literal('wall_clock_exceeded'),
  sessionStartedAt: z.string(),
  firedAt: z.string(),
  elapsedSeconds: z.number().int(),
  configuredBudgetSeconds: z.number().int(),
});
export type WatchdogCancel = z.infer<typeof WatchdogCancel>;

/** Who gave an answer to a question (docs/questions.md). */
export const AnsweredBy = z.object({
  /** `fleet`: a fleet server sent it to this host's edge, as the `answer` command. */
  via: z.enum(['http', 'cli', 'mcp', 'dashboard', 'library', 'fleet']),
  /** A short hash of the request's bearer token (a fleet answer: the fleet server's); or null. */
  tokenId: z.string().nullable(),
  /** A fleet answer only: how the fleet server was asked (its route, the CLI, the dashboard). */
  client: z.enum(['http', 'cli', 'dashboard']).optional(),
});
export type AnsweredBy = z.infer<typeof AnsweredBy>;

/**
 * One record of the record stream (docs/contracts.md §4): every public-state change with the chart
 * transitions that caused it and their evidence, turn lifecycle, anomalies, watchdog events,
 * and the supervisor's own lifecycle. Discriminated by `kind`.
 */
export const JournalRecord = z.discriminatedUnion('kind', [
  z.object({ ...Base, kind: z.literal('supervisor.started'), pid: z.number().int() }),
  z.object({
    ...Base,
    kind: z.literal('terminal.attached'),
    ...TerminalRequestFields.shape,
    readopted: z.boolean(),
  }),
  z.object({ ...Base, kind: z.literal('terminal.detached') }),
  z.object({
    ...Base,
    kind: z.literal('terminal.restarted'),
    attempt: z.number().int().positive(),
    delaySeconds: z.number().nonnegative(),
    error: z.string(),
  }),
  /** paneward started the pane's CLI (`spawn`); environment values are never recorded. */
  z.object({
    ...Base,
    kind: z.literal('terminal.spawned'),
    tool: z.string(),
    paneId: z.string(),
    session: z.string(),
    window: z.string(),
    cwd: z.string(),
    argv: z.array(z.string()),
    envNames: z.array(z.string()),
    worktree: z.object({ path: z.string(), branch: z.string() }).nullable(),
    restart: z.enum(['never', 'on-failure']),
  }),
  /** A spawned CLI died and was started again in the same pane (restart policy `on-failure`). */
  z.object({
    ...Base,
    kind: z.literal('terminal.respawned'),
    attempt: z.number().int().positive(),
    delaySeconds: z.number().nonnegative(),
    /** How it ended: its exit status, or the signal that killed it. */
    exitStatus: z.number().int().nullable(),
    signal: z.string().nullable(),
    /** Started with the CLI's resume option (continuing the last conversation). */
    resumed: z.boolean(),
  }),
  /** A spawned CLI died once more than its restart limit allows: it stays down. */
  z.object({
    ...Base,
    kind: z.literal('terminal.respawn_gave_up'),
    restarts: z.number().int().nonnegative(),
    exitStatus: z.number().int().nullable(),
    signal: z.string().nullable(),
    reason: z.string(),
  }),
  z.object({
    ...Base,
    kind: z.literal('state'),
    /** Observation time of the change (seconds). */
    t: Seconds,
    /** The public-state fields that changed, as dotted paths, with their new values. */
    changed: z.record(z.string(), z.unknown()),
    transitions: z.array(ChartTransition),
    evidence: RecordEvidence.nullable(),
  }),
  z.object({
    ...Base,
    kind: z.literal('turn.started'),
    turnId: z.string(),
    source: TurnSource,
    startedAt: Seconds,
  }),
  z.object({
    ...Base,
    kind: z.literal('turn.ended'),
    turnId: z.string(),
    source: TurnSource,
    /** `none`: another turn took its place before it showed an outcome. */
    outcome: z.enum(['success', 'interrupted', 'known_failure', 'none']),
    t: Seconds,
    /** Which witness decided it (docs/witness.md); absent under the screen alone. */
    witness: z.enum(['surface', 'record', 'hook', 'observer', 'both']).optional(),
    /** The session record's evidence: file, byte offset (or entry), the record's event name. */
    record: RecordPlace.optional(),
    /** The hook event that told it, when a hook took part (docs/hooks.md). */
    hook: z.object({ event: z.string() }).optional(),
    /** The completion observer that told it, when one took part (docs/witness.md). */
    observer: z.object({ name: z.string() }).optional(),
  }),
  z.object({
    ...Base,
    kind: z.literal('turn.reopened'),
    turnId: z.string(),
    source: TurnSource,
    startedAt: Seconds,
    t: Seconds,
  }),
  z.discriminatedUnion('anomaly', [
    z.object({
      ...Base,
      kind: z.literal('anomaly'),
      anomaly: z.enum(['stalled_entered', 'stalled_recovered']),
      phase: z.enum(['readiness', 'completion']),
      t: Seconds,
      elapsedUnknownSeconds: z.number().optional(),
      elapsedStalledSeconds: z.number().optional(),
      recoveredTo: z.string().optional(),
      parserFamily: z.string(),
    }),
    /** The pane runs a version of the CLI its profile was not verified against. */
    z.object({
      ...Base,
      kind: z.literal('anomaly'),
      anomaly: z.literal('version_unverified'),
      t: Seconds,
      tool: z.string(),
      toolVersion: z.string(),
      verifiedVersions: z.array(z.string()),
      /** Newer than every verified version (otherwise older, or between two). */
      newer: z.boolean(),
      /** How its screens are read: not at all (`unrecognised`), or with the nearest vocabulary. */
      screensRead: z.enum(['unrecognised', 'nearest_vocabulary']),
      /** Where the version came from: the attach request, or the running CLI's package.json. */
      source: z.enum(['attach', 'process']),
    }),
    /**
     * Frames that matched none of the profile's known shapes, counted since the previous such
     * record (at most one a minute per terminal while they go on).
     */
    z.object({
      ...Base,
      kind: z.literal('anomaly'),
      anomaly: z.literal('unrecognised_screen'),
      t: Seconds,
      tool: z.string(),
      toolVersion: z.string().nullable(),
      frames: z.number().int().positive(),
      /** Observation time of the first of them. */
      firstT: Seconds,
      /** sha256 (first 16 hex digits) of the latest unrecognised screen. */
      screenHash: z.string(),
    }),
    /**
     * The screen and the session record (or a hook) disagreed about a turn for longer than the
     * witness's window (docs/witness.md): who decided, and what each showed.
     */
    z.object({
      ...Base,
      kind: z.literal('anomaly'),
      anomaly: z.literal('witness_disagreement'),
      t: Seconds,
      turnId: z.string(),
      /** The record's ending, or `open` when it had not ended the turn. */
      record: z.enum(['success', 'interrupted', 'known_failure', 'open']),
      screen: z.object({
        phase: z.enum(['unknown', 'ready', 'active']),
        successCandidate: z.boolean(),
      }),
      decided: z.enum(['surface', 'record', 'hook', 'observer', 'both']),
      /**
       * The record's place, the hook's event (`{hook}`) or the observer's name (`{observer}`)
       * that ended the turn.
       */
      evidence: z.union([RecordPlace, HookPlace, ObserverPlace]).nullable(),
    }),
    /**
     * A completion observer (docs/witness.md) threw, failed, or handed over something that is
     * not an ending: nothing it said about that turn was taken.
     */
    z.object({
      ...Base,
      kind: z.literal('anomaly'),
      anomaly: z.literal('completion_observer_problem'),
      t: Seconds,
      observer: z.string(),
      turnId: z.string(),
      /** What went wrong, at most 160 characters (a longer reason is replaced by its length). */
      why: z.string(),
    }),
    /**
     * The session record held a piece its reader does not know: the record's witness stepped
     * aside and the screen alone decides this terminal's outcomes (docs/witness.md).
     */
    z.object({
      ...Base,
      kind: z.literal('anomaly'),
      anomaly: z.literal('session_record_unknown'),
      t: Seconds,
      tool: z.string(),
      file: z.string(),
      offset: z.number().int().nonnegative(),
      /** What the reader did not know (a line type, a stop reason), never the record's text. */
      why: z.string(),
    }),
    /**
     * Part of the session record passed over unread while the witness goes on (docs/
     * session-records.md): a line longer than the cap, or a record path that is not a regular
     * file (a FIFO, a device, a socket), never opened.
     */
    z.object({
      ...Base,
      kind: z.literal('anomaly'),
      anomaly: z.literal('session_record_skipped'),
      t: Seconds,
      tool: z.string(),
      file: z.string(),
      /** Where the line passed over starts; 0 for a path refused. */
      offset: z.number().int().nonnegative(),
      what: z.enum(['long_line', 'not_regular']),
      /** The same in words (kind, offset, length), never the record's text. */
      why: z.string(),
    }),
  ]),
  /**
   * How a notification (docs/notify.md) to one sink ended: delivered, failed after its attempts,
   * or dropped from a full queue. It names the sink by its position, never its URL or command,
   * and carries no pane text.
   */
  z.object({
    ...Base,
    kind: z.literal('notify.delivery'),
    /** `webhook:<n>` or `exec:<n>`: the n-th `--notify` or `--notify-exec`, from 1. */
    sink: z.string(),
    event: NotifyKind,
    outcome: DeliveryOutcome,
    attempts: z.number().int().nonnegative(),
    turnId: z.string().optional(),
    /** Why the last attempt failed (`HTTP 500`, `timeout after 5 s`, `exit status 2`, ...). */
    error: z.string().optional(),
  }),
  z.object({
    ...Base,
    kind: z.literal('watchdog.window'),
    reason: z.enum(['started', 'resumed']),
    sessionStartedAt: Seconds,
    budgetSeconds: z.number().nonnegative(),
  }),
  z.object({ ...Base, kind: z.literal('watchdog.cancel'), ...WatchdogCancel.shape }),
  z.object({
    ...Base,
    kind: z.literal('question.answered'),
    questionId: z.string(),
    questionKind: z.enum(['tool_permission', 'trust_folder', 'login', 'other']),
    choice: z.string(),
    /**
     * Who answered: the route, CLI, MCP, dashboard or a fleet server, and the server's token id
     * if it has one.
     */
    by: AnsweredBy,
    /**
     * `closed`: the dialog was gone on a fresh frame; `still_open`: it was not (answer_failed);
     * `unconfirmed`: a choice the CLI confirms in a second dialog was typed, but that
     * confirmation was not seen, not confirmed, or not seen to close (answer_failed).
     */
    outcome: z.enum(['closed', 'still_open', 'typing_failed', 'unconfirmed']),
  }),
  z.object({
    ...Base,
    kind: z.literal('checkpoint'),
    nextTurn: z.number().int().positive(),
    /** Each terminal's next turn number (turn ids count per terminal); absent in older journals. */
    turns: z.record(z.string(), z.number().int().positive()).optional(),
    /** No terminal's turn number goes below it (the journal's ids once counted per journal). */
    turnFloor: z.number().int().positive().optional(),
    terminals: z.record(z.string(), RestoreFacts),
  }),
]);
export type JournalRecord = z.infer<typeof JournalRecord>;
export type RecordKind = JournalRecord['kind'];

type Distribute<T> = T extends unknown ? Omit<T, 'v' | 'seq' | 'at'> : never;
/** A record before the stream gives it its format version, `seq` and `at`. */
export type RecordDraft = Distribute<JournalRecord>;
