import type { Command } from 'commander';
import { z } from 'zod';
import { isPanewardError, PanewardError } from '../errors.js';
import { detectPaneTool } from '../observe/discover.js';
import type { PaneTool } from '../observe/discover.js';
import { createExecaTransport } from '../observe/execa-transport.js';
import { getProfile, knownTools } from '../profiles/index.js';
import { sessionRecordReader } from '../profiles/session-records.js';
import { startRecorder } from '../observe/recorder.js';
import { Target } from '../schemas/target.js';

// Node timers wait at most 2^31-1 ms; a longer --duration or --interval would fire at once.
const MAX_DURATION_SECONDS = Math.floor((2 ** 31 - 1) / 1000);
const MAX_INTERVAL_MS = 2 ** 31 - 1;

const FLAGS: Record<string, string> = {
  output: '--output',
  tool: '--tool',
  toolVersion: '--tool-version',
  socketName: '--socket-name',
  socketPath: '--socket-path',
  interval: '--interval',
  duration: '--duration',
  ansi: '--ansi',
  sessionRecord: '--no-session-record',
};

/** Options of `paneward record`, as commander hands them over (strings). */
export const RecordOptions = z
  .object({
    target: Target,
    output: z.string().trim().min(1, { error: 'must name a file' }),
    tool: z
      .string()
      .regex(/^[a-z][a-z0-9_]*$/, {
        error: 'must be a profile id such as claude_code, codex, gemini_cli',
      })
      .optional(),
    toolVersion: z.string().trim().min(1).optional(),
    socketName: z
      .string()
      .min(1)
      .regex(/^[^/]+$/, { error: 'must be a name, not a path (use --socket-path)' })
      .optional(),
    socketPath: z.string().min(1).optional(),
    interval: z.coerce
      .number({ error: 'must be a number of milliseconds' })
      .int({ error: 'must be a whole number of milliseconds' })
      .min(10, { error: 'must be at least 10 ms' })
      .max(MAX_INTERVAL_MS, { error: `must be at most ${MAX_INTERVAL_MS} ms` })
      .default(250),
    duration: z.coerce
      .number({ error: 'must be a number of seconds' })
      .positive({ error: 'must be positive' })
      .max(MAX_DURATION_SECONDS, { error: `must be at most ${MAX_DURATION_SECONDS} seconds` })
      .optional(),
    ansi: z.boolean().default(false),
    sessionRecord: z.boolean().default(true),
  })
  .refine((o) => !(o.socketName && o.socketPath), {
    error: 'cannot be combined with --socket-name',
    path: ['socketPath'],
  });
export type RecordOptions = z.infer<typeof RecordOptions>;

/** Validates raw options; errors name the offending option. */
export function parseRecordOptions(raw: Record<string, unknown>): RecordOptions {
  const result = RecordOptions.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const key = String(issue?.path[0] ?? '');
  const flag = FLAGS[key] ?? key;
  const message =
    key === 'target' ? (issue?.message ?? 'invalid target') : `invalid ${flag}: ${issue?.message}`;
  throw new PanewardError('invalid_input', message, { details: result.error.issues });
}

/** Where `runRecord` reports progress, and what stops it besides the duration. */
export interface RecordIo {
  log(line: string): void;
  /** Stops the recording when aborted; default: SIGINT or SIGTERM. */
  signal?: AbortSignal;
}

/**
 * Records a pane until SIGINT/SIGTERM (or `io.signal`) or `--duration`. The pane must exist when
 * recording starts; after that its disappearance is recorded. Without `--tool`, the tool is the
 * known agent CLI whose process runs in the pane (`unsupported` if none).
 */
export async function runRecord(
  raw: Record<string, unknown>,
  io: RecordIo = { log: (line) => process.stderr.write(`${line}\n`) },
): Promise<void> {
  const options = parseRecordOptions(raw);
  const transport = createExecaTransport({
    socketName: options.socketName,
    socketPath: options.socketPath,
  });
  const stopper = new AbortController();
  const onSignal = (): void => stopper.abort();
  if (!io.signal) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  io.signal?.addEventListener('abort', onSignal, { once: true });
  if (io.signal?.aborted) onSignal();
  let timer: NodeJS.Timeout | undefined;
  try {
    // Also checks that the pane exists now. A stop during this setup leaves the file alone.
    let found: PaneTool | null = null;
    try {
      const profiles = options.tool ? [] : knownTools();
      found = await detectPaneTool(transport, options.target, profiles, {
        signal: stopper.signal,
      });
    } catch (error) {
      const aborted = isPanewardError(error) && error.code === 'aborted';
      if (!(aborted && stopper.signal.aborted)) throw error;
    }
    if (!found || stopper.signal.aborted) {
      io.log(`stopped before recording started; ${options.output} not written`);
      return;
    }
    const tool = options.tool ?? found.tool ?? 'unsupported';
    if (tool === 'unsupported' && !options.tool) {
      io.log(
        `no known agent CLI runs in ${options.target}; recording as "unsupported" (use --tool to choose)`,
      );
    }
    // The CLI's own session record, where paneward can read it (docs/witness.md).
    const reader = options.sessionRecord ? sessionRecordReader(tool) : undefined;
    const recorder = startRecorder({
      transport,
      target: options.target,
      tool,
      toolVersion: options.toolVersion,
      processNames: getProfile(tool).processNames,
      intervalMs: options.interval,
      file: options.output,
      includeAnsi: options.ansi,
      ...(reader ? { sessionRecord: reader } : {}),
    });
    io.log(
      `recording ${options.target} (${tool}${reader ? ', with its session record' : ''}) ` +
        `to ${options.output}; stop with Ctrl-C`,
    );
    if (options.duration !== undefined) timer = setTimeout(onSignal, options.duration * 1000);
    if (!stopper.signal.aborted) {
      await Promise.race([
        new Promise<void>((resolve) =>
          stopper.signal.addEventListener('abort', () => resolve(), { once: true }),
        ),
        recorder.done,
      ]);
    }
    await recorder.stop();
    io.log(`recording saved to ${options.output}`);
  } finally {
    clearTimeout(timer);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    io.signal?.removeEventListener('abort', onSignal);
    await transport.close();
  }
}

/** Adds `paneward record` to the program. */
export function registerRecord(program: Command): void {
  program
    .command('record')
    .description('Record a tmux pane as a terminal recording (JSON Lines).')
    .argument('<target>', 'the pane: session:window.pane or a pane id %N')
    .requiredOption('-o, --output <file>', 'the recording to write')
    .option(
      '--tool <id>',
      'profile id (claude_code, codex, gemini_cli, ...); detected when omitted',
    )
    .option('--tool-version <version>', 'tool version written to the header')
    .option('-L, --socket-name <name>', 'tmux socket name (tmux -L)')
    .option('-S, --socket-path <path>', 'tmux socket path (tmux -S)')
    .option('--interval <ms>', 'time between polls in milliseconds', '250')
    .option('--duration <seconds>', 'stop after this many seconds')
    .option('--ansi', 'also record the screen with escape sequences')
    .option(
      '--no-session-record',
      "leave out the CLI's own session record (recorded by default where paneward reads it)",
    )
    .action(async (target: string, opts: Record<string, unknown>) => {
      await runRecord({ ...opts, target });
    });
}
