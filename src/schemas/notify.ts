import { z } from 'zod';

/** Format version of a notification; bumped when a field changes meaning. */
export const NOTIFY_FORMAT = 1;

/**
 * What a person is told about (docs/notify.md): the agent asks the operator something
 * (`question`), a turn ended (`turn_ended`), the terminal stalled (`stalled`), the agent CLI
 * exited (`exited`), the pane is gone or detached (`gone`).
 */
export const NotifyKind = z.enum(['question', 'turn_ended', 'stalled', 'exited', 'gone']);
export type NotifyKind = z.infer<typeof NotifyKind>;

/** The turn outcomes a `turn_ended` notification carries. */
export const NotifyOutcome = z.enum(['success', 'interrupted', 'known_failure']);

/**
 * One notification, as the webhook receives it (the JSON body of a POST) and as `--notify-exec`
 * receives it on stdin. It carries no pane text: the blocked prompt is the label the profile
 * gives the question (`surface.blockedPrompt`), never the screen.
 */
export const NotifyEvent = z.strictObject({
  version: z.literal(NOTIFY_FORMAT),
  kind: NotifyKind,
  /** When paneward saw it (ISO 8601, UTC). */
  at: z.iso.datetime({ offset: true }),
  /** The terminal's id (`host/id` on a fleet server). */
  terminalId: z.string(),
  /** The host it runs on, on a fleet server (absent on a single server). */
  host: z.string().optional(),
  tool: z.string(),
  /** The turn that ended (`turn_ended`), or the turn under way. */
  turnId: z.string().optional(),
  /** How the turn ended (`turn_ended` only). */
  outcome: NotifyOutcome.optional(),
  /** What the agent waits for (`question` only): `surface.blockedPrompt`; null if unnamed. */
  prompt: z.string().nullable().optional(),
  /** How many events of this kind for this terminal this one stands for (debounce); 1 alone. */
  coalesced: z.number().int().positive(),
  /** The terminal's state when it was sent. */
  state: z.object({
    readiness: z.enum(['waiting', 'unknown', 'stalled', 'ready', 'blocked', 'failed']),
    phase: z.enum(['unknown', 'ready', 'active']),
    availability: z.enum(['unknown', 'available', 'unavailable', 'tui_down', 'error']),
    lastTurn: z.object({
      result: z.enum(['none', 'success', 'interrupted', 'known_failure']),
      turnId: z.string().nullable(),
    }),
  }),
});
export type NotifyEvent = z.infer<typeof NotifyEvent>;

/** How a delivery to one sink ended (metrics and the journal's `notify.delivery` record). */
export const DeliveryOutcome = z.enum(['delivered', 'failed', 'dropped']);
export type DeliveryOutcome = z.infer<typeof DeliveryOutcome>;
