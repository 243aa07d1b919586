import { z } from 'zod';

// tmux turns ':' and '.' in session names into '_', so they can never be part of one.
const SESSION = String.raw`[^:.\x00-\x1f\x7f]+`;
const WINDOW = String.raw`[^:.\x00-\x1f\x7f]+`;
const PANE = String.raw`\d+`;
const TARGET_RE = new RegExp(String.raw`^(?:%\d+|${SESSION}:${WINDOW}\.${PANE})$`);

/**
 * A tmux pane target: `session:window.pane` (window by index or name, pane by index) or a pane
 * id `%N`.
 */
export const Target = z
  .string({ error: 'target must be a string' })
  .trim()
  .min(1, { error: 'target must not be empty', abort: true })
  .regex(TARGET_RE, {
    error: (issue) =>
      `target must be "session:window.pane" or a pane id "%N", got ${JSON.stringify(issue.input)}`,
  });
export type Target = z.infer<typeof Target>;

/** Splits a `session:window.pane` target; a pane id `%N` gives `{ paneId }`. */
export function splitTarget(
  target: Target,
): { paneId: string } | { session: string; window: string; pane: number } {
  if (target.startsWith('%')) return { paneId: target };
  const colon = target.lastIndexOf(':');
  const dot = target.lastIndexOf('.');
  return {
    session: target.slice(0, colon),
    window: target.slice(colon + 1, dot),
    pane: Number(target.slice(dot + 1)),
  };
}
