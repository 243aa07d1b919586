import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Command } from 'commander';
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import { z } from 'zod';
import { PanewardError } from '../errors.js';
import { describeZodError } from '../internal/zod-errors.js';
import { startStatelyInspection } from '../inspect/stately.js';
import { untilStopSignal } from './signals.js';
import { createHttpApp } from '../server/app.js';
import { createSupervisor, type Supervisor } from '../supervisor/supervisor.js';

/** Where `paneward serve` listens by default, and what the client commands talk to. */
export const DEFAULT_PORT = 7420;
export const DEFAULT_URL = `http://127.0.0.1:${DEFAULT_PORT}`;

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** Options of `paneward serve`, as commander hands them over. */
export const ServeOptions = z
  .strictObject({
    host: z.string().min(1).default('127.0.0.1'),
    port: z.coerce
      .number({ error: 'must be a port number' })
      .int({ error: 'must be a whole number' })
      .min(0)
      .max(65535)
      .default(DEFAULT_PORT),
    tokenFile: z.string().min(1).optional(),
    dataDir: z.string().min(1).optional(),
    socketName: z.string().min(1).optional(),
    socketPath: z.string().min(1).optional(),
    logLevel: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info'),
    cors: z
      .array(z.string().url({ error: 'must be an origin such as https://example.com' }))
      .optional(),
    discover: z.boolean().default(true),
    discoverInterval: z.coerce.number().positive().default(5),
    sessionBudget: z.coerce.number({ error: 'must be a number of seconds' }).positive().optional(),
    pollInterval: z.coerce.number({ error: 'must be a number of seconds' }).positive().optional(),
    readUnverified: z.boolean().default(false),
    /** Where frames come from: `control` (one tmux -C client) or `polling`. */
    source: z.enum(['control', 'polling']).default('control'),
    /** Relay the actor system to Stately's inspector: true (port 8080) or the bridge's port. */
    inspect: z
      .union([
        z.boolean(),
        z.coerce
          .number({ error: 'must be a port number' })
          .int({ error: 'must be a whole number' })
          .min(1)
          .max(65535),
      ])
      .default(false),
    /** Send pane text and prompts to the inspector as well (default: only their length). */
    inspectPaneText: z.boolean().default(false),
  })
  .refine((o) => !(o.socketName && o.socketPath), {
    error: 'cannot be combined with --socket-name',
    path: ['socketPath'],
  });
export type ServeOptions = z.infer<typeof ServeOptions>;

/** The bearer token: `--token-file` first, else `PANEWARD_TOKEN`; null when neither is set. */
export function readToken(tokenFile: string | undefined, env = process.env): string | null {
  if (tokenFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(tokenFile, 'utf8').trim();
    } catch (error) {
      throw new PanewardError('invalid_input', `field \`tokenFile\`: cannot read ${tokenFile}`, {
        cause: error,
      });
    }
    if (text.length < 16) {
      throw new PanewardError(
        'invalid_input',
        'field `tokenFile`: the token must be at least 16 characters',
      );
    }
    return text;
  }
  const fromEnv = env.PANEWARD_TOKEN?.trim();
  if (fromEnv !== undefined && fromEnv !== '') {
    if (fromEnv.length < 16) {
      throw new PanewardError(
        'invalid_input',
        'PANEWARD_TOKEN: the token must be at least 16 characters',
      );
    }
    return fromEnv;
  }
  return null;
}

/** Structured logs: JSON lines, or readable ones on a terminal (colours unless NO_COLOR). */
export function createLogger(level: ServeOptions['logLevel']): Logger {
  if (process.stdout.isTTY) {
    return pino({ level }, pretty({ colorize: !process.env.NO_COLOR, sync: true }));
  }
  return pino({ level });
}

export interface RunningServer {
  url: string;
  server: Server;
  supervisor: Supervisor;
  stop(): Promise<void>;
}

/**
 * Starts `paneward serve`: a supervisor (re-adopting what its data directory had attached,
 * discovering agent panes unless told not to) behind the HTTP API. Binding anything but
 * loopback refuses to start without a bearer token.
 */
export async function startServe(
  raw: Record<string, unknown>,
  logger?: Logger,
): Promise<RunningServer> {
  const parsed = ServeOptions.safeParse(raw);
  if (!parsed.success) {
    throw new PanewardError('invalid_input', `serve: ${describeZodError(parsed.error)}`, {
      details: parsed.error.issues,
    });
  }
  const o = parsed.data;
  const token = readToken(o.tokenFile);
  if (!LOOPBACK.has(o.host) && token === null) {
    throw new PanewardError(
      'invalid_input',
      `serve: field \`host\`: binding ${o.host} (not loopback) needs a bearer token: --token-file FILE or PANEWARD_TOKEN`,
    );
  }
  const log = logger ?? createLogger(o.logLevel);
  const inspection =
    o.inspect === false
      ? null
      : await startStatelyInspection({
          ...(o.inspect === true ? {} : { port: o.inspect }),
          paneText: o.inspectPaneText,
        });
  let sup: Supervisor;
  try {
    sup = createSupervisor({
      ...(inspection ? { inspect: inspection.inspect } : {}),
      socketName: o.socketName,
      socketPath: o.socketPath,
      ...(o.dataDir ? { dataDir: o.dataDir } : {}),
      config: {
        ...(o.sessionBudget === undefined ? {} : { sessionWallClockSeconds: o.sessionBudget }),
        ...(o.pollInterval === undefined ? {} : { pollIntervalSeconds: o.pollInterval }),
      },
      readUnverifiedVersions: o.readUnverified,
      source: o.source,
    });
  } catch (error) {
    inspection?.stop();
    throw error;
  }
  if (o.discover) sup.discoverContinuously(o.discoverInterval);
  const http = createHttpApp(sup, {
    ...(token ? { token } : {}),
    ...(o.cors ? { corsOrigins: o.cors } : {}),
    logger: log,
  });
  const server = createServer(http.listener);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(o.port, o.host, () => resolve());
    });
  } catch (error) {
    // Nothing half-started is left: the supervisor (and its journal's lock) stops again.
    http.close();
    await sup.stop();
    inspection?.stop();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      throw new PanewardError(
        'invalid_input',
        `serve: field \`port\`: cannot listen on ${o.host}:${o.port} (${code === 'EADDRINUSE' ? 'in use' : code}); choose another with --port`,
        { cause: error },
      );
    }
    throw error;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : o.port;
  const host = o.host.includes(':') ? `[${o.host}]` : o.host;
  const url = `http://${host}:${port}`;
  log.info(
    { url, dataDir: sup.journal.directory, terminals: sup.ids().length, token: token !== null },
    'paneward serve listening',
  );
  if (inspection) {
    log.info(
      { inspector: inspection.pageUrl, socket: inspection.socketUrl, paneText: o.inspectPaneText },
      `live actors: open ${inspection.pageUrl} (it embeds https://stately.ai/inspect)`,
    );
  }
  let stopping: Promise<void> | null = null;
  return {
    url,
    server,
    supervisor: sup,
    stop: () =>
      (stopping ??= (async () => {
        server.close();
        server.closeAllConnections();
        http.close();
        await sup.stop();
        inspection?.stop();
        log.info('paneward serve stopped');
      })()),
  };
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Serve the HTTP API (and SSE record stream) of a supervisor.')
    .option('--host <host>', 'address to bind (other than loopback needs a token)', '127.0.0.1')
    .option('--port <port>', 'port to listen on', String(DEFAULT_PORT))
    .option('--token-file <file>', 'bearer token clients must send (else PANEWARD_TOKEN)')
    .option('--data-dir <dir>', 'data directory of the journal (default $XDG_STATE_HOME/paneward)')
    .option('-L, --socket-name <name>', 'tmux socket name')
    .option('-S, --socket-path <path>', 'tmux socket path')
    .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent', 'info')
    .option('--cors <origin...>', 'allow these origins (CORS is off otherwise)')
    .option('--no-discover', 'do not attach agent panes by themselves')
    .option('--discover-interval <seconds>', 'how often to look for new agent panes', '5')
    .option('--session-budget <seconds>', 'arm the watchdog of every attached session')
    .option('--poll-interval <seconds>', 'time between two samples of a pane')
    .option(
      '--inspect [port]',
      "relay the live actors to Stately's inspector through a local bridge (default port 8080; needs @statelyai/inspect)",
    )
    .option('--inspect-pane-text', 'also send pane text and prompts to the inspector')
    .option(
      '--source <kind>',
      'control (one tmux -C client per server, panes captured when they change) or polling',
      'control',
    )
    .option(
      '--read-unverified',
      'read the screens of an agent CLI newer than the versions paneward was verified against (default: reported unrecognised)',
    )
    .action(async (opts: Record<string, unknown>) => {
      const signals = untilStopSignal();
      try {
        const running = await startServe(opts);
        await signals.stopped;
        await running.stop();
      } finally {
        signals.release();
      }
    });
}
