import { PromptText } from '../schemas/prompt.js';
import { z } from '@hono/zod-openapi';
import { Operations } from '../supervisor/operations.js';
import { AttachRequest } from '../supervisor/supervisor.js';
import { JournalRecord } from '../schemas/record.js';
import { TerminalState } from '../schemas/terminal-state.js';

/** Every error the API answers with: a stable code, a sentence, and what it is about. */
export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'not_ready' }),
      message: z.string(),
      details: z.unknown().nullable(),
    }),
  })
  .openapi('Error');

/** A host of a fleet: it names subjects and keys, so no dot and no slash. */
export const HostId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, dash or underscore, at most 64');

/**
 * The observer's own health (`observer_lagging`): whether paneward falls behind sampling its
 * panes. A lag here is paneward's, never an agent's state.
 */
export const ObserverView = z.object({
  source: z.enum(['control', 'polling']),
  connection: z.string(),
  lagging: z.boolean(),
  lagMs: z.number(),
  backlog: z.number().int(),
  degraded: z.boolean(),
  pausedPanes: z.number().int(),
});
export type ObserverView = z.infer<typeof ObserverView>;

/** Where a host of a fleet stands, as the fleet server sees it. */
export const FleetHost = z
  .object({
    id: HostId,
    reachable: z.boolean(),
    reason: z.enum(['host_unreachable']).nullable(),
    /** Epoch ms its latest heartbeat arrived; null when none was seen. */
    lastHeartbeatAt: z.number().nullable(),
    /** From its latest heartbeat: its journal's last seq, the last one JetStream acknowledged. */
    durableSeq: z.number().int().nullable(),
    publishedSeq: z.number().int().nullable(),
    /** Its supervisor's observer as of its latest heartbeat; null while it is unreachable. */
    observer: ObserverView.nullable(),
  })
  .openapi('FleetHost');
export type FleetHost = z.infer<typeof FleetHost>;

/** A terminal's public state (contracts.md §3) and which operations it accepts now. */
// Schemas built before this module extended zod have no `.openapi()`: their shapes are reused.
export const TerminalView = z
  .object({
    ...TerminalState.shape,
    /** On a fleet server: the host whose pane it is. */
    host: FleetHost.optional(),
    operations: Operations,
  })
  .openapi('Terminal');
export type TerminalView = z.infer<typeof TerminalView>;

export const TerminalList = z.object({ terminals: z.array(TerminalView) }).openapi('TerminalList');

/** A terminal id; a fleet view qualifies it by its host: `host/id` (`host%2Fid` in a path). */
export const TerminalId = z
  .string()
  .regex(
    /^(?:[A-Za-z0-9_-]{1,64}\/)?[A-Za-z0-9._-]{1,64}$/,
    'letters, digits, dot, dash or underscore, at most 64 (in a fleet: host/id)',
  )
  .openapi({ param: { name: 'id', in: 'path' }, example: 't1' });

/** A name the service only compares (a tool, a version): printable, never a key to a terminal. */
const Printable = z
  .string()
  .min(1)
  .max(64)
  .regex(new RegExp(String.raw`^[^\x00-\x1f\x7f-\x9f]+$`), 'must not hold control characters');

export const AttachBody = z
  .strictObject({
    ...AttachRequest.shape,
    tool: Printable.optional(),
    toolVersion: Printable.optional(),
    /** In a fleet: the host whose tmux server has the pane (a single server refuses it). */
    host: HostId.optional(),
  })
  .openapi('AttachRequest');

/** Prompts are typed literally; a longer one, or one with control characters, is refused. */
export { MAX_PROMPT_CHARS } from '../schemas/prompt.js';
const Prompt = PromptText;

export const InputBody = z
  .strictObject({
    text: Prompt,
    /** Type it even when the terminal is not ready. */
    force: z.boolean().optional(),
  })
  .openapi('InputRequest');

export const InputAccepted = z.object({ turnId: z.string() }).openapi('InputAccepted');

export const TurnBody = z
  .strictObject({
    prompt: Prompt,
    /** How long to wait for the turn to end (default 600, at most a day). */
    timeoutSeconds: z.number().positive().max(86_400).default(600),
    force: z.boolean().optional(),
  })
  .openapi('TurnRequest');

/** A turn id as `input` answered it. */
export const TurnId = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be a turn id such as turn-3')
  .openapi({ param: { name: 'turnId', in: 'path' }, example: 'turn-3' });

export const TurnWaitQuery = z.strictObject({
  /** How long to wait for the turn to end (default 600, at most a day). */
  timeoutSeconds: z.coerce.number().positive().max(86_400).default(600),
});

export const TurnResponse = z
  .object({
    turnId: z.string(),
    /** How the turn's completion ended, or `timeout` when it had not ended in time. */
    result: z.enum(['completed', 'failed', 'timeout']),
    completion: TerminalState.shape.completion,
    lastTurn: TerminalState.shape.lastTurn,
  })
  .openapi('TurnResult');

export const HistoryQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(2000).default(100),
  /** Only records made at or after this time; reaches back past the terminal's kept records. */
  since: z.iso.datetime({ offset: true }).optional(),
});

export const History = z
  .object({
    records: z.array(JournalRecord),
    /**
     * With `since`: the time from which `records` holds every record of the terminal (`since`
     * itself, or later when older ones were not within reach or past `limit`).
     */
    completeSince: z.iso.datetime({ offset: true }).optional(),
  })
  .openapi('History');

export const EventsQuery = z.strictObject({
  /** Start after this record seq (as `Last-Event-ID` does). */
  since: z.coerce.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
});

export const Health = z
  .object({
    /** `unavailable` (503) while the journal cannot write: nothing new is recorded. */
    status: z.enum(['ok', 'unavailable']),
    terminals: z.number().int(),
    journal: z.object({
      lastSeq: z.number().int(),
      durableSeq: z.number().int(),
      /** Why the journal cannot write (a full disk, an I/O error), since when; null while it can. */
      failure: z
        .object({ code: z.string(), message: z.string(), since: z.number() })
        .nullable()
        .optional(),
    }),
    /**
     * The observer's own health: null before its first report, and on a fleet server, which
     * observes no pane (each host's is under `fleet.hosts`).
     */
    observer: ObserverView.nullable(),
    /** On a fleet server: its NATS connection and every host it knows. */
    fleet: z
      .object({ nats: z.object({ connected: z.boolean() }), hosts: z.array(FleetHost) })
      .optional(),
  })
  .openapi('Health');

export const Accepted = z.object({ ok: z.literal(true) }).openapi('Ok');

export const Screen = z
  .object({ text: z.string().nullable(), t: z.number().nullable() })
  .openapi('Screen');
