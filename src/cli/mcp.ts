import { Option, type Command } from 'commander';
import type { Readable, Writable } from 'node:stream';
import { z } from 'zod';
import { PanewardError } from '../errors.js';
import { BUDGET_TOO_LONG, MAX_BUDGET_SECONDS } from '../internal/bounds.js';
import { describeZodError } from '../internal/zod-errors.js';
import { Target } from '../schemas/target.js';
import type { McpBackend } from '../mcp/backend.js';
import { untilStopSignal } from './signals.js';
import { packageVersion } from './version.js';

/** Options of `paneward mcp`, as commander hands them over. */
export const McpOptions = z
  .object({
    targets: z.array(Target),
    url: z.string().min(1).optional(),
    tokenFile: z.string().min(1).optional(),
    socketName: z.string().min(1).optional(),
    socketPath: z.string().min(1).optional(),
    tool: z.string().min(1).optional(),
    /** Attach every pane that runs a known agent CLI, as they appear (embedded only). */
    discover: z.boolean().optional(),
    dataDir: z.string().min(1).optional(),
    sessionBudget: z.coerce
      .number({ error: 'must be a number of seconds' })
      .positive({ error: 'must be positive' })
      .max(MAX_BUDGET_SECONDS, { error: BUDGET_TOO_LONG })
      .optional(),
    source: z.enum(['control', 'polling']).default('control'),
    /** The strict gate: do not read a CLI newer than its verified versions. */
    verifiedOnly: z.boolean().default(false),
    /** Accepted for old scripts: reading newer versions is the default. */
    readUnverified: z.boolean().default(false),
  })
  .refine((o) => !(o.verifiedOnly && o.readUnverified), {
    message: '--read-unverified contradicts --verified-only (newer releases are read by default)',
    path: ['readUnverified'],
  })
  .refine(
    (o) =>
      o.url === undefined ||
      (o.targets.length === 0 &&
        !o.socketName &&
        !o.socketPath &&
        !o.dataDir &&
        o.discover === undefined &&
        o.sessionBudget === undefined),
    {
      error:
        '--url serves the terminals of a running paneward service: panes, sockets, --data-dir, --discover and --session-budget belong to an embedded supervisor (without --url)',
      path: ['url'],
    },
  );
export type McpOptions = z.infer<typeof McpOptions>;

export interface McpIo {
  stdin: Readable;
  stdout: Writable;
  err(line: string): void;
  env: NodeJS.ProcessEnv;
}

const defaultIo = (): McpIo => ({
  stdin: process.stdin,
  stdout: process.stdout,
  err: (l) => process.stderr.write(`${l}\n`),
  env: process.env,
});

/**
 * `paneward mcp`: a Model Context Protocol server on stdin/stdout until the client closes its
 * end (or a stop signal). Over a running service with `--url` (or `PANEWARD_URL` when no pane
 * or socket is named), else over a supervisor of its own on the tmux socket named. Only the
 * protocol goes to stdout; every word for a person goes to stderr.
 */
export async function runMcp(raw: Record<string, unknown>, io: McpIo = defaultIo()): Promise<void> {
  const parsed = McpOptions.safeParse(raw);
  if (!parsed.success) {
    throw new PanewardError('invalid_input', `mcp: ${describeZodError(parsed.error)}`, {
      details: parsed.error.issues,
    });
  }
  const o = parsed.data;
  // Anything printed with console.log would corrupt the protocol on stdout.
  const log = console.log;
  console.log = (...args: unknown[]) => console.error(...args);
  const [{ StdioServerTransport }, { createMcpServer }, backends] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('../mcp/server.js'),
    import('../mcp/backend.js'),
  ]);
  const embedded =
    o.url === undefined &&
    (io.env.PANEWARD_URL === undefined ||
      o.targets.length > 0 ||
      Boolean(o.socketName || o.socketPath || o.dataDir) ||
      o.discover !== undefined);
  let backend: McpBackend;
  if (embedded) {
    const { createSupervisor } = await import('../supervisor/supervisor.js');
    const sup = createSupervisor({
      socketName: o.socketName,
      socketPath: o.socketPath,
      dataDir: o.dataDir ?? null,
      config: o.sessionBudget === undefined ? {} : { sessionWallClockSeconds: o.sessionBudget },
      verifiedOnly: o.verifiedOnly,
      source: o.source,
    });
    try {
      for (const target of o.targets) {
        await sup.attach({ target, ...(o.tool ? { tool: o.tool } : {}) });
      }
    } catch (error) {
      await sup.stop();
      console.log = log;
      throw error;
    }
    // Without panes named, every agent pane of the socket is served, as they appear.
    if (o.discover ?? o.targets.length === 0) {
      sup.discoverContinuously(2, (error) =>
        io.err(
          `paneward mcp: discovery failed: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
    }
    const socket = o.socketPath ?? o.socketName;
    const where = `its own supervisor on ${socket ? `tmux socket ${socket}` : 'the default tmux socket'}`;
    backend = backends.embeddedBackend(sup, where, {
      socket: { socketName: o.socketName, socketPath: o.socketPath },
    });
  } else {
    const { ApiClient } = await import('./client-api.js');
    const api = new ApiClient({ url: o.url, tokenFile: o.tokenFile }, io.env);
    backend = backends.remoteBackend(api);
  }
  const server = createMcpServer(backend, packageVersion());
  const transport = new StdioServerTransport(io.stdin, io.stdout);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    io.stdin.once('end', () => resolve());
    io.stdin.once('close', () => resolve());
  });
  const signals = untilStopSignal();
  try {
    await server.connect(transport);
    io.err(`paneward mcp: serving ${backend.where} over stdio`);
    await Promise.race([closed, signals.stopped]);
  } finally {
    signals.release();
    await server.close().catch(() => {});
    await backend.close();
    console.log = log;
  }
}

export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description(
      'Serve paneward to an AI agent as a Model Context Protocol server on stdio: list terminals, read one, send a prompt and wait for its outcome, interrupt, resume.',
    )
    .argument(
      '[targets...]',
      'panes to attach (session:window.pane or %N); none: every agent pane, as they appear',
    )
    .option('--url <url>', 'use a running paneward service (PANEWARD_URL) instead of supervising')
    .option('--token-file <file>', 'with --url: bearer token (else PANEWARD_TOKEN)')
    .option('-L, --socket-name <name>', 'tmux socket name')
    .option('-S, --socket-path <path>', 'tmux socket path')
    .option('--tool <id>', 'profile of the named panes (detected from their processes otherwise)')
    .option('--discover', 'also attach every pane that runs a known agent CLI, as they appear')
    .option('--no-discover', 'serve only the panes named')
    .option('--data-dir <dir>', 'keep the journal in this data directory (default: in memory)')
    .option(
      '--session-budget <seconds>',
      'arm the session watchdog: interrupt a turn still running after this long',
    )
    .option('--source <kind>', 'control or polling', 'control')
    .option(
      '--verified-only',
      'do not read an agent CLI newer than the versions paneward was verified against (default: read with the newest vocabulary, marked unverified)',
    )
    .addOption(new Option('--read-unverified').hideHelp())
    .action(async (targets: string[], opts: Record<string, unknown>) => {
      await runMcp({ ...opts, targets });
    });
}
