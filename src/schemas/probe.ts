import { z } from 'zod';

/** Can tmux itself be reached, and does the target exist (docs/statecharts.md §6)? */
export const TransportOutcome = z.enum(['tmux_up', 'tmux_missing', 'probe_error']);
export type TransportOutcome = z.infer<typeof TransportOutcome>;

/** Is the agent's process alive under the pane? */
export const ProcessOutcome = z.enum([
  'tui_up',
  'tui_down',
  'unsupported_tool',
  'probe_error',
  'unknown',
]);
export type ProcessOutcome = z.infer<typeof ProcessOutcome>;

/** What came of parsing the capture. */
export const ParseOutcome = z.enum([
  'parsed',
  'skipped_tui_down',
  'unsupported_tool',
  'transport_unavailable',
  'probe_error',
  'parse_error',
]);
export type ParseOutcome = z.infer<typeof ParseOutcome>;

export const ProbeErrorInfo = z.object({ kind: z.string(), message: z.string() });
export type ProbeErrorInfo = z.infer<typeof ProbeErrorInfo>;

/** The outcome of one diagnostics probe cycle. */
export const ProbeOutcome = z.object({
  transport: TransportOutcome,
  process: ProcessOutcome,
  parse: ParseOutcome,
  error: ProbeErrorInfo.nullable().default(null),
});
export type ProbeOutcome = z.infer<typeof ProbeOutcome>;
