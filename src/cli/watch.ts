import { Option, type Command } from 'commander';
import { z } from 'zod';
import { execa } from 'execa';
import { isPanewardError, PanewardError } from '../errors.js';
import { CliExit, EXIT } from './exit.js';
import { BUDGET_TOO_LONG, MAX_BUDGET_SECONDS } from '../internal/bounds.js';
import { scheduleLong } from '../internal/long-timer.js';
import { describeZodError } from '../internal/zod-errors.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import { Target } from '../schemas/target.js';
import { operationsFor } from '../terminal/operations.js';
import { createSupervisor, type Supervisor } from '../supervisor/supervisor.js';
import { tmuxArgs, tmuxEnv } from '../observe/tmux-locale.js';
import {
  addChartOptions,
  chartSettingsOf,
  ChartOptionFields,
  checkChartOptions,
} from './chart-options.js';
import { terminalTable } from './table.js';
import {
  asyncScheduler,
  distinctUntilChanged,
  interval,
  map,
  merge,
  skipWhile,
  throttleTime,
  type Subscription,
} from 'rxjs';
import { briefPrinter } from './format.js';

/** Options of `paneward watch`, as commander hands them over. */
export const WatchOptions = z
  .object({
    targets: z.array(Target),
    tool: z.string().min(1).optional(),
    socketName: z.string().min(1).optional(),
    socketPath: z.string().min(1).optional(),
    discover: z.boolean().default(false),
    duration: z.coerce
      .number()
      .positive()
      .max(MAX_BUDGET_SECONDS, {
        error: `--duration must be at most ${MAX_BUDGET_SECONDS} seconds (30 days)`,
      })
      .optional(),
    /** `table` (a live table, for a terminal), `brief` (one line per change) or `json`. */
    format: z
      .enum(['auto', 'table', 'brief', 'json'], { error: 'must be table, brief or json' })
      .default('auto'),
    /** Keep the journal here (durable; terminals attached there before are re-adopted). */
    dataDir: z.string().min(1).optional(),
    /** Wall-clock budget per attached session, in seconds: arms the watchdog (it may type Escape). */
    sessionBudget: z.coerce
      .number({ error: 'must be a number of seconds' })
      .positive({ error: 'must be positive' })
      .max(MAX_BUDGET_SECONDS, { error: BUDGET_TOO_LONG })
      .optional(),
    /** The strict gate: do not read a CLI newer than its verified versions. */
    verifiedOnly: z.boolean().default(false),
    /** Accepted for old scripts: reading newer versions is the default. */
    readUnverified: z.boolean().default(false),
    /** Where frames come from: `control` (one tmux -C client) or `polling`. */
    source: z.enum(['control', 'polling']).default('control'),
    ...ChartOptionFields,
  })
  .superRefine(checkChartOptions)
  .refine((o) => !(o.verifiedOnly && o.readUnverified), {
    message: '--read-unverified contradicts --verified-only (newer releases are read by default)',
    path: ['readUnverified'],
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
  /** Draw a live table (a terminal): default when stdout is a TTY and the format is `auto`. */
  tty?: { rows: () => number; write: (text: string) => void; color: boolean };
}

/** How often discovery looks for new agent panes, and the table is redrawn at least. */
const DISCOVER_SECONDS = 2;
const REDRAW_MS = 1000;

const defaultIo = (): WatchIo => ({
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
  ...(process.stdout.isTTY
    ? {
        tty: {
          rows: () => process.stdout.rows ?? 40,
          write: (t: string) => void process.stdout.write(t),
          color: !process.env.NO_COLOR,
        },
      }
    : {}),
});

/**
 * Supervises panes live until stopped or `--duration` seconds have passed: a table that
 * redraws in place on a terminal, one line per change otherwise (every line names the pane,
 * and why it is not ready when it cannot be). With `--discover`, agent panes are picked up as
 * they appear.
 */
export async function runWatch(
  raw: Record<string, unknown>,
  io: WatchIo = defaultIo(),
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
    config: {
      ...(o.sessionBudget === undefined ? {} : { sessionWallClockSeconds: o.sessionBudget }),
      ...chartSettingsOf(o),
    },
    verifiedOnly: o.verifiedOnly,
    source: o.source,
    ...(o.completionAuthority ? { completionAuthority: o.completionAuthority } : {}),
  });
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  if (!io.signal) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  io.signal?.addEventListener('abort', onSignal, { once: true });
  const timer =
    o.duration === undefined
      ? undefined
      : scheduleLong(asyncScheduler, onSignal, o.duration * 1000);
  const format = o.format === 'auto' ? (io.tty ? 'table' : 'brief') : o.format;
  const subs: Subscription[] = [];
  try {
    // Before anything is attached (after the data directory is known good): with no tmux
    // server there is nothing to watch, and saying "watching" would wait forever.
    await requireTmuxServer(o);
    for (const target of o.targets) {
      await sup.attach({ target, ...(o.tool ? { tool: o.tool } : {}) });
    }
    if (o.discover) {
      sup.discoverContinuously(DISCOVER_SECONDS, (error) =>
        io.err(
          `paneward: discovery failed: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
      if (o.targets.length === 0) io.err('paneward: watching for panes that run a known agent CLI');
    }
    // paneward's own overload goes to stderr as paneward's, never into a terminal's state.
    subs.push(
      sup.observer$
        .pipe(
          map((h) => h.lagging),
          distinctUntilChanged(),
          skipWhile((lagging) => !lagging),
        )
        .subscribe((lagging) => {
          const h = sup.observer();
          io.err(
            lagging
              ? `paneward: observer_lagging: ${h?.lagMs ?? 0} ms behind, ${h?.backlog ?? 0} ${h?.backlog === 1 ? 'pane' : 'panes'} waiting; states may be late (paneward's load, not the agents')`
              : 'paneward: caught up',
          );
        }),
    );
    // A journal that cannot write (a full disk), and its recovery, are said on stderr.
    subs.push(
      sup.journal.health$.pipe(skipWhile((failure) => failure === null)).subscribe((failure) => {
        io.err(
          failure
            ? `paneward: ${failure.message}; nothing new is recorded until it can write again`
            : 'paneward: the journal can write again',
        );
      }),
    );
    if (format === 'table' && io.tty) subs.push(drawTable(sup, io.tty));
    else {
      const print = livePrinter(format === 'json' ? 'json' : 'brief', io.out);
      const followed = new Set<string>();
      subs.push(
        sup.terminals$.subscribe((ids) => {
          for (const id of ids) {
            if (followed.has(id)) continue;
            followed.add(id);
            subs.push(sup.state$(id).subscribe({ next: print, error: () => {} }));
          }
        }),
      );
    }
    if (!stop.signal.aborted) {
      await new Promise<void>((resolve) =>
        stop.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
    }
  } finally {
    timer?.unsubscribe();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    for (const s of subs) s.unsubscribe();
    await sup.stop();
  }
}

/**
 * What `watch` prints of each state, one line per change. A state with no observation time is
 * the placeholder a terminal's pipeline starts from before its pane was read (on every start
 * and restart of its runtime): it says nothing about the pane, and printed as a stray
 * `0.000s` line among the times of day.
 */
export function livePrinter(
  format: 'json' | 'brief',
  out: (line: string) => void,
): (s: TerminalState) => void {
  const print =
    format === 'json' ? (s: TerminalState) => out(JSON.stringify(s)) : briefPrinter(out);
  return (s) => {
    if (s.t > 0) print(s);
  };
}

/** How the socket paneward watches is named to a person. */
function socketLabel(o: { socketName?: string; socketPath?: string }): string {
  if (o.socketPath) return `socket ${o.socketPath} (-S)`;
  if (o.socketName) return `socket ${o.socketName} (-L ${o.socketName})`;
  return 'the default socket';
}

/**
 * Refuses to watch when no tmux server answers on the socket (`tmux_missing`, said plainly with
 * the socket and what to do), or tmux is not installed.
 */
async function requireTmuxServer(o: { socketName?: string; socketPath?: string }): Promise<void> {
  const socket = [
    ...(o.socketPath ? ['-S', o.socketPath] : []),
    ...(o.socketName && !o.socketPath ? ['-L', o.socketName] : []),
  ];
  const r = await execa('tmux', tmuxArgs([...socket, 'list-sessions', '-F', '#{session_name}']), {
    env: tmuxEnv(),
    extendEnv: false,
    reject: false,
    timeout: 5000,
    stdin: 'ignore',
  });
  if ((r as { code?: string }).code === 'ENOENT') {
    throw new PanewardError('tmux_missing', 'tmux is not installed (no tmux on PATH)');
  }
  if (r.exitCode === 0) return;
  const said = `${r.stderr}`.trim();
  if (/no server running|error connecting to|No such file or directory|no sessions/i.test(said)) {
    const start = `tmux ${socket.join(' ')}${socket.length ? ' ' : ''}new-session`;
    throw new PanewardError(
      'tmux_missing',
      `no tmux server on ${socketLabel(o)}: start one (${start}), or name the socket the agents run on with -L or -S`,
    );
  }
  throw new PanewardError(
    'tmux_failed',
    `tmux cannot list its sessions: ${said || r.shortMessage}`,
  );
}

/** The live table: redrawn in place on every change (at most 4 times a second) and every second. */
function drawTable(sup: Supervisor, tty: NonNullable<WatchIo['tty']>): Subscription {
  let lines = 0;
  const draw = () => {
    const views = sup.ids().map((id) => {
      const s = sup.get(id);
      return { ...s, operations: operationsFor(s) };
    });
    const rows = terminalTable(views, Date.now() / 1000, tty.color).slice(
      0,
      Math.max(1, tty.rows() - 1),
    );
    // Back to the table's first line, then each line cleared as it is written again.
    const up = lines > 0 ? `\u001b[${lines}F` : '';
    tty.write(`${up}${rows.map((r) => `\u001b[2K${r}\n`).join('')}\u001b[J`);
    lines = rows.length;
  };
  return merge(sup.terminals$, interval(REDRAW_MS), sup.journal.records$)
    .pipe(throttleTime(250, undefined, { leading: true, trailing: true }))
    .subscribe(() => draw());
}

export function registerWatch(program: Command): void {
  addChartOptions(program.command('watch'))
    .description(
      'Supervise tmux panes live: a live table on a terminal, one line per change otherwise.',
    )
    .argument('[targets...]', 'panes as session:window.pane or %N')
    .option('--tool <id>', 'profile of the named panes (detected from their processes otherwise)')
    .option('-L, --socket-name <name>', 'tmux socket name')
    .option('-S, --socket-path <path>', 'tmux socket path')
    .option('--discover', 'attach every pane that runs a known agent CLI, as they appear')
    .option('--duration <seconds>', 'stop after this many seconds')
    .option(
      '--format <format>',
      'table, brief (one line per change) or json (default: table on a terminal, brief otherwise)',
    )
    .option('--data-dir <dir>', 'keep the journal in this data directory (default: in memory)')
    .option(
      '--session-budget <seconds>',
      'arm the session watchdog: interrupt a turn still running after this long',
    )
    .option(
      '--source <kind>',
      'control (one tmux -C client per server, panes captured when they change) or polling',
      'control',
    )
    .option(
      '--verified-only',
      'do not read an agent CLI newer than the versions paneward was verified against (default: read with the newest vocabulary, marked unverified)',
    )
    .addOption(new Option('--read-unverified').hideHelp())
    .action(async (targets: string[], opts: Record<string, unknown>) => {
      try {
        await runWatch({ ...opts, targets });
      } catch (error) {
        // No tmux server: nothing could be watched; the exit code of an unreachable server.
        if (isPanewardError(error) && error.code === 'tmux_missing') {
          process.stderr.write(`paneward: ${error.message}\n`);
          throw new CliExit(EXIT.unreachable);
        }
        throw error;
      }
    });
}
