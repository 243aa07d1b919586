import type { Command } from 'commander';
import { z } from 'zod';
import { PanewardError } from '../errors.js';
import { describeZodError } from '../internal/zod-errors.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import { Target } from '../schemas/target.js';
import { createSupervisor } from '../supervisor/supervisor.js';
import { briefPrinter } from './format.js';

/** Options of `paneward watch`, as commander hands them over. */
export const WatchOptions = z
  .object({
    targets: z.array(Target),
    tool: z.string().min(1).optional(),
    socketName: z.string().min(1).optional(),
    socketPath: z.string().min(1).optional(),
    discover: z.boolean().default(false),
    duration: z.coerce.number().positive().optional(),
    format: z.enum(['json', 'brief']).default('brief'),
    /** Keep the journal here (durable; terminals attached there before are re-adopted). */
    dataDir: z.string().min(1).optional(),
    /** Wall-clock budget per attached session, in seconds: arms the watchdog (it may type Escape). */
    sessionBudget: z.coerce
      .number({ error: 'must be a number of seconds' })
      .positive({ error: 'must be positive' })
      .optional(),
  })
  .refine((o) => o.targets.length > 0 || o.discover, {
    error: 'name at least one target, or use --discover',
    path: ['targets'],
  });
export type WatchOptions = z.infer<typeof WatchOptions>;

export interface WatchIo {
  out(line: string): void;
  err(line: string): void;
  /** Stops watching when aborted; default: SIGINT or SIGTERM. */
  signal?: AbortSignal;
}

/**
 * Supervises panes live and prints every change of their public state until stopped or
 * `--duration` seconds have passed.
 */
export async function runWatch(
  raw: Record<string, unknown>,
  io: WatchIo = {
    out: (l) => process.stdout.write(`${l}\n`),
    err: (l) => process.stderr.write(`${l}\n`),
  },
): Promise<void> {
  const parsed = WatchOptions.safeParse(raw);
  if (!parsed.success) {
    throw new PanewardError('invalid_input', `watch: ${describeZodError(parsed.error)}`, {
      details: parsed.error.issues,
    });
  }
  const o = parsed.data;
  const sup = createSupervisor({
    socketName: o.socketName,
    socketPath: o.socketPath,
    // Without --data-dir the records stay in memory: several watches never contend for a lock.
    dataDir: o.dataDir ?? null,
    config: o.sessionBudget === undefined ? {} : { sessionWallClockSeconds: o.sessionBudget },
  });
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  if (!io.signal) {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  io.signal?.addEventListener('abort', onSignal, { once: true });
  const timer = o.duration === undefined ? undefined : setTimeout(onSignal, o.duration * 1000);
  const print =
    o.format === 'brief' ? briefPrinter(io.out) : (s: TerminalState) => io.out(JSON.stringify(s));
  try {
    const ids: string[] = sup.ids();
    for (const target of o.targets) {
      ids.push(sup.attach({ target, tool: o.tool ?? (await sup.detectTool(target)) }));
    }
    if (o.discover) ids.push(...(await sup.discover()));
    if (ids.length === 0) io.err('paneward: no pane runs a known agent CLI');
    for (const id of ids) sup.state$(id).subscribe(print);
    if (!stop.signal.aborted) {
      await new Promise<void>((resolve) =>
        stop.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
    }
  } finally {
    clearTimeout(timer);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await sup.stop();
  }
}

export function registerWatch(program: Command): void {
  program
    .command('watch')
    .description('Supervise tmux panes live and print every change of their public state.')
    .argument('[targets...]', 'panes as session:window.pane or %N')
    .option('--tool <id>', 'profile of the named panes (claude_code, codex, gemini_cli)')
    .option('-L, --socket-name <name>', 'tmux socket name')
    .option('-S, --socket-path <path>', 'tmux socket path')
    .option('--discover', 'also attach every pane that runs a known agent CLI')
    .option('--duration <seconds>', 'stop after this many seconds')
    .option('--format <format>', 'brief (one short line) or json (the full state)', 'brief')
    .option('--data-dir <dir>', 'keep the journal in this data directory (default: in memory)')
    .option(
      '--session-budget <seconds>',
      'arm the session watchdog: interrupt a turn still running after this long',
    )
    .action(async (targets: string[], opts: Record<string, unknown>) => {
      await runWatch({ ...opts, targets });
    });
}
