import { z } from '@hono/zod-openapi';
import { Operations } from '../../terminal/operations.js';
import { JournalRecord } from '../record.js';
import { TerminalState } from '../terminal-state.js';
import { defineOperation, HostId, TERMINAL_ERRORS, TerminalId } from './contract.js';
import { Spawned } from '../spawn.js';

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

/** A terminal's public state and which operations it accepts now (every state read). */
// Schemas built before this module extended zod have no `.openapi()`: their shapes are reused.
export const TerminalView = z
  .object({
    ...TerminalState.shape,
    /** On a fleet server: the host whose pane it is. */
    host: FleetHost.optional(),
    /**
     * The pane's id `%N` on the service's tmux server, as resolved when it was attached (the
     * target may name it by its indexes instead); absent when unknown, and on a fleet server.
     */
    paneId: z
      .string()
      .regex(/^%\d+$/)
      .optional(),
    operations: Operations,
    /** A terminal paneward started (`spawn`): what it started and where its restarts stand. */
    spawned: Spawned.optional(),
  })
  .openapi('Terminal');
export type TerminalView = z.infer<typeof TerminalView>;

/** What `POST /v1/terminals {spawn}` answers: the terminal, and what was started. */
export const SpawnView = TerminalView.extend({ spawned: Spawned }).openapi('SpawnedTerminal');
export type SpawnView = z.infer<typeof SpawnView>;

export const TerminalList = z.object({ terminals: z.array(TerminalView) }).openapi('TerminalList');

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
      /**
       * What the journal found wrong with its files: damaged lines skipped (each counted once),
       * copies of records skipped (each record is delivered once), bytes of a torn last line cut
       * off at open. Absent where the feed has no files (a fleet server).
       */
      integrity: z
        .object({
          damagedLines: z.number().int(),
          duplicateLines: z.number().int(),
          repairedBytes: z.number().int(),
        })
        .optional(),
    }),
    /**
     * The observer's own health: null before its first report, and on a fleet server, which
     * observes no pane (each host's is under `fleet.hosts`).
     */
    observer: ObserverView.nullable(),
    /** On a fleet server: its NATS connection and every host it knows. */
    fleet: z
      .object({
        nats: z.object({
          connected: z.boolean(),
          /** Why NATS refuses the fleet server (credentials, TLS), while it does. */
          refusal: z.string().nullable().optional(),
        }),
        hosts: z.array(FleetHost),
      })
      .optional(),
  })
  .openapi('Health');

/** A screen as the HTTP API answers it: `text: null` before the first capture. */
export const Screen = z
  .object({ text: z.string().nullable(), t: z.number().nullable() })
  .openapi('Screen');

/** Every attached terminal (`GET /v1/terminals`). */
export const list = defineOperation({
  name: 'list',
  summary: 'Every attached terminal',
  input: z.strictObject({}),
  output: TerminalList,
  errors: ['internal'],
  http: { method: 'get', path: '/v1/terminals' },
  notServed: {
    fleet: "the fleet server reads every host's terminals from the state bucket, asking no host",
  },
});

/** One terminal's public state (`GET /v1/terminals/{id}`). */
export const state = defineOperation({
  name: 'state',
  summary: "A terminal's public state and the operations it accepts now",
  input: z.strictObject({ id: TerminalId }),
  output: TerminalView,
  errors: TERMINAL_ERRORS,
  http: { method: 'get', path: '/v1/terminals/{id}' },
  notServed: {
    fleet: "the fleet server reads every host's terminals from the state bucket, asking no host",
  },
});
