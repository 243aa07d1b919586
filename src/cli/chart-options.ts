import type { Command } from 'commander';
import { z } from 'zod';
import {
  chartSettingsConflict,
  MAX_TIMEOUT_SECONDS,
  MAX_WINDOW_SECONDS,
  type ChartSettings,
} from '../schemas/kernel.js';

const seconds = (flag: string, max: number, min: 'positive' | 'nonnegative') => {
  const n = z.coerce.number({ error: `${flag} must be a number of seconds` });
  return (
    min === 'positive'
      ? n.positive({ error: `${flag} must be more than 0 seconds` })
      : n.nonnegative({ error: `${flag} must not be negative` })
  )
    .max(max, { error: `${flag} must be at most ${max} seconds` })
    .optional();
};

/** The chart options `serve` and `watch` share, as commander hands them over. */
export const ChartOptionFields = {
  stallMode: z
    .enum(['continuous', 'gap'], { error: '--stall-mode must be continuous or gap' })
    .optional(),
  stallTimeout: seconds('--stall-timeout', MAX_TIMEOUT_SECONDS, 'positive'),
  stalledIsTerminal: z.boolean().optional(),
  settle: seconds('--settle', MAX_WINDOW_SECONDS, 'nonnegative'),
  stability: seconds('--stability', MAX_WINDOW_SECONDS, 'nonnegative'),
  staleActive: seconds('--stale-active', MAX_TIMEOUT_SECONDS, 'positive'),
  completionAuthority: z
    .enum(['surface', 'markers', 'both'], {
      error: '--completion-authority must be surface, markers or both',
    })
    .optional(),
};

type ChartOptions = {
  [K in keyof typeof ChartOptionFields]?: z.infer<(typeof ChartOptionFields)[K]>;
};

/** The chart settings the options ask for (only those given). */
export function chartSettingsOf(o: ChartOptions): ChartSettings {
  return {
    ...(o.stallMode === undefined ? {} : { stallMode: o.stallMode }),
    ...(o.stallTimeout === undefined ? {} : { stallTimeoutSeconds: o.stallTimeout }),
    ...(o.stalledIsTerminal === undefined ? {} : { stalledIsTerminal: o.stalledIsTerminal }),
    ...(o.settle === undefined ? {} : { settleSeconds: o.settle }),
    ...(o.stability === undefined ? {} : { stabilitySeconds: o.stability }),
    ...(o.staleActive === undefined ? {} : { staleActiveSeconds: o.staleActive }),
  };
}

const FLAGS = {
  stallMode: '--stall-mode',
  stallTimeout: '--stall-timeout',
  stalledIsTerminal: '--stalled-is-terminal',
  settle: '--settle',
  stability: '--stability',
  staleActive: '--stale-active',
  completionAuthority: '--completion-authority',
} as const;

/** Each chart option given, as its flag (false when not given). */
export function chartFlagsGiven(o: ChartOptions): Record<keyof ChartOptions, string | false> {
  const out = {} as Record<keyof ChartOptions, string | false>;
  for (const key of Object.keys(FLAGS) as Array<keyof ChartOptions>) {
    out[key] = o[key] !== undefined && FLAGS[key];
  }
  return out;
}

/** Refinement: the stale-active window is longer than the settle window (default 1 s). */
export function checkChartOptions(o: ChartOptions, ctx: z.RefinementCtx): void {
  const why = chartSettingsConflict({
    settleSeconds: o.settle ?? 1,
    staleActiveSeconds: o.staleActive,
  });
  if (why !== null)
    ctx.addIssue({ code: 'custom', path: ['staleActive'], message: `--stale-active ${why}` });
}

/** Adds the chart options to a command. */
export function addChartOptions(command: Command): Command {
  return command
    .option(
      '--stall-mode <mode>',
      'how an unknown screen stalls: continuous (after --stall-timeout of unknown screens) or gap (only after that long with no sample)',
    )
    .option('--stall-timeout <seconds>', 'unknown screens for this long read stalled (default 30)')
    .option('--stalled-is-terminal', 'a stalled readiness or turn fails instead of waiting')
    .option(
      '--settle <seconds>',
      'a finished reply must hold still this long to be a success (default 1)',
    )
    .option('--stability <seconds>', 'the state is stable after this long unchanged (default 1)')
    .option(
      '--stale-active <seconds>',
      'a turn whose CLI sits at an unchanged idle prompt this long ends with no outcome (default: --settle + 3)',
    )
    .option(
      '--completion-authority <mode>',
      "who decides a turn's outcome: surface (the screen), markers (the CLI's session record or hooks) or both (default where the CLI's record or hooks can be read; docs/witness.md)",
    );
}
