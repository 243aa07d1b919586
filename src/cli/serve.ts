import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import { z } from 'zod';
import { PanewardError } from '../errors.js';
import { BUDGET_TOO_LONG, MAX_BUDGET_SECONDS } from '../internal/bounds.js';
import { describeZodError } from '../internal/zod-errors.js';
import { FleetEdge } from '../fleet/edge.js';
import { HostId } from '../fleet/schemas.js';
import { FleetView } from '../fleet/view.js';
import { startStatelyInspection } from '../inspect/stately.js';
import type { ProfileFactory } from '../profiles/types.js';
import { createHttpApp } from '../server/app.js';
import type { SupervisorPort } from '../server/port.js';
import {
  addChartOptions,
  chartFlagsGiven,
  chartSettingsOf,
  ChartOptionFields,
  checkChartOptions,
} from './chart-options.js';
import { untilStopSignal } from './signals.js';
import { createSupervisor, type Supervisor } from '../supervisor/supervisor.js';

import { DEFAULT_PORT } from './defaults.js';
export { DEFAULT_PORT, DEFAULT_URL } from './defaults.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);

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
    /** Names (besides loopback) the service answers to in `Host`: `--allowed-host`, repeatable. */
    allowedHost: z
      .array(
        z.string().regex(/^(?:[A-Za-z0-9.-]{1,253}|\[?[0-9A-Fa-f:.]{2,45}\]?)$/, {
          error: '--allowed-host must be a host name or an IP address, without port',
        }),
      )
      .default([]),
    discover: z.boolean().default(true),
    discoverInterval: z.coerce
      .number()
      .positive()
      .max(86_400, { error: '--discover-interval must be at most 86400 seconds' })
      .default(5),
    sessionBudget: z.coerce
      .number({ error: 'must be a number of seconds' })
      .positive()
      .max(MAX_BUDGET_SECONDS, { error: BUDGET_TOO_LONG })
      .optional(),
    pollInterval: z.coerce
      .number({ error: 'must be a number of seconds' })
      .positive()
      .max(3600, { error: '--poll-interval must be at most 3600 seconds' })
      .optional(),
    readUnverified: z.boolean().default(false),
    /** Where frames come from: `control` (one tmux -C client) or `polling`. */
    source: z.enum(['control', 'polling']).optional(),
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
    /** NATS server URL: publish to a fleet (with --host-id), or serve one (with --fleet). */
    nats: z
      .string()
      .regex(
        /^(?:(?:nats|tls):\/\/)?[^\s/]+(?::\d+)?(?:,(?:(?:nats|tls):\/\/)?[^\s/]+(?::\d+)?)*$/,
        {
          error: 'must be a NATS URL such as nats://127.0.0.1:4222',
        },
      )
      .optional(),
    hostId: HostId.optional(),
    fleet: z.boolean().default(false),
    /** A module whose `profiles` export adds tool profiles (id → factory). */
    profileModule: z.string().min(1).optional(),
    ...ChartOptionFields,
  })
  .superRefine(checkChartOptions)
  .refine((o) => !(o.socketName && o.socketPath), {
    error: 'cannot be combined with --socket-name',
    path: ['socketPath'],
  })
  .refine((o) => !o.fleet || o.nats !== undefined, {
    error: '--fleet needs --nats URL',
    path: ['nats'],
  })
  .refine((o) => !o.fleet || o.hostId === undefined, {
    error: 'cannot be combined with --fleet (a fleet server has no panes of its own)',
    path: ['hostId'],
  })
  .refine((o) => o.fleet || o.nats === undefined || o.hostId !== undefined, {
    error: '--nats needs --host-id NAME (this host in the fleet), or --fleet',
    path: ['hostId'],
  })
  .refine((o) => o.hostId === undefined || o.nats !== undefined, {
    error: '--host-id needs --nats URL',
    path: ['nats'],
  })
  .superRefine((o, ctx) => {
    if (!o.fleet) return;
    // A fleet server observes no pane: an option only a server with panes uses is a mistake.
    const given = {
      socketName: o.socketName !== undefined && '-L',
      socketPath: o.socketPath !== undefined && '-S',
      dataDir: o.dataDir !== undefined && '--data-dir',
      profileModule: o.profileModule !== undefined && '--profile-module',
      sessionBudget: o.sessionBudget !== undefined && '--session-budget',
      pollInterval: o.pollInterval !== undefined && '--poll-interval',
      source: o.source !== undefined && '--source',
      readUnverified: o.readUnverified && '--read-unverified',
      inspect: o.inspect !== false && '--inspect',
      inspectPaneText: o.inspectPaneText && '--inspect-pane-text',
      ...chartFlagsGiven(o),
    };
    for (const [field, flag] of Object.entries(given)) {
      if (flag === false) continue;
      ctx.addIssue({
        code: 'custom',
        path: [field],
        message: `${flag} cannot be combined with --fleet (a fleet server has no panes of its own)`,
      });
    }
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
  /** The supervisor of a server with panes; null for a fleet server. */
  supervisor: Supervisor | null;
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
  let sup: Supervisor | null = null;
  let edge: FleetEdge | null = null;
  let fleet: FleetView | null = null;
  let inspection: Awaited<ReturnType<typeof startStatelyInspection>> | null = null;
  let served: SupervisorPort;
  if (o.fleet) {
    fleet = new FleetView({ nats: o.nats!, logger: log });
    await fleet.ready(5_000);
    served = fleet;
  } else {
    const profiles = o.profileModule ? await loadProfiles(o.profileModule) : undefined;
    inspection =
      o.inspect === false
        ? null
        : await startStatelyInspection({
            ...(o.inspect === true ? {} : { port: o.inspect }),
            paneText: o.inspectPaneText,
          });
    try {
      sup = createSupervisor({
        ...(inspection ? { inspect: inspection.inspect } : {}),
        socketName: o.socketName,
        socketPath: o.socketPath,
        ...(o.dataDir ? { dataDir: o.dataDir } : {}),
        ...(profiles ? { profiles } : {}),
        config: {
          ...(o.sessionBudget === undefined ? {} : { sessionWallClockSeconds: o.sessionBudget }),
          ...(o.pollInterval === undefined ? {} : { pollIntervalSeconds: o.pollInterval }),
          ...chartSettingsOf(o),
        },
        readUnverifiedVersions: o.readUnverified,
        source: o.source ?? 'control',
      });
    } catch (error) {
      inspection?.stop();
      throw error;
    }
    if (o.discover) sup.discoverContinuously(o.discoverInterval);
    if (o.nats !== undefined) {
      try {
        edge = new FleetEdge({ supervisor: sup, nats: o.nats, hostId: o.hostId!, logger: log });
      } catch (error) {
        await sup.stop();
        inspection?.stop();
        throw error;
      }
    }
    served = sup;
  }
  // What was started, stopped again: the edge publishes what its journal holds first.
  const stopParts = async () => {
    if (edge) await edge.stop({ before: () => sup!.stop(), drainMs: 5000 });
    await sup?.stop();
    await fleet?.stop();
    inspection?.stop();
  };
  const http = createHttpApp(served, {
    ...(token ? { token } : {}),
    ...(o.cors ? { corsOrigins: o.cors } : {}),
    // A server bound to an address of its own answers to that address too.
    allowedHosts: [...o.allowedHost, ...(WILDCARD.has(o.host) ? [] : [o.host])],
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
    await stopParts();
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
    {
      url,
      ...(sup ? { dataDir: sup.journal.directory } : {}),
      ...(o.nats ? { nats: o.nats } : {}),
      ...(o.hostId ? { hostId: o.hostId } : {}),
      ...(o.fleet ? { fleet: true } : {}),
      terminals: served.ids().length,
      token: token !== null,
    },
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
        await stopParts();
        log.info('paneward serve stopped');
      })()),
  };
}

/** The `profiles` export (or default export) of a module: tool id → profile factory. */
async function loadProfiles(file: string): Promise<Record<string, ProfileFactory>> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(resolve(file)).href)) as Record<string, unknown>;
  } catch (error) {
    throw new PanewardError(
      'invalid_input',
      `serve: field \`profileModule\`: cannot load ${file}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const profiles = (mod.profiles ?? mod.default) as Record<string, unknown> | undefined;
  const ok =
    profiles !== null &&
    typeof profiles === 'object' &&
    Object.keys(profiles).length > 0 &&
    Object.values(profiles).every((f) => typeof f === 'function');
  if (!ok) {
    throw new PanewardError(
      'invalid_input',
      `serve: field \`profileModule\`: ${file} must export \`profiles\`, an object of tool id → profile factory`,
    );
  }
  return profiles as Record<string, ProfileFactory>;
}

export function registerServe(program: Command): void {
  addChartOptions(program.command('serve'))
    .description('Serve the HTTP API (and SSE record stream) of a supervisor.')
    .option('--host <host>', 'address to bind (other than loopback needs a token)', '127.0.0.1')
    .option('--port <port>', 'port to listen on', String(DEFAULT_PORT))
    .option('--token-file <file>', 'bearer token clients must send (else PANEWARD_TOKEN)')
    .option('--data-dir <dir>', 'data directory of the journal (default $XDG_STATE_HOME/paneward)')
    .option('-L, --socket-name <name>', 'tmux socket name')
    .option('-S, --socket-path <path>', 'tmux socket path')
    .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent', 'info')
    .option('--cors <origin...>', 'allow these origins (CORS is off otherwise)')
    .option(
      '--allowed-host <name>',
      'also answer to this name in Host (repeatable; default: loopback names only, and the --host address)',
      (name: string, all: string[] = []) => [...all, name],
    )
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
      'control (the default: one tmux -C client per server, panes captured when they change) or polling',
    )
    .option(
      '--read-unverified',
      'read the screens of an agent CLI newer than the versions paneward was verified against (default: reported unrecognised)',
    )
    .option(
      '--nats <url>',
      'NATS server(s), comma-separated: publish to a fleet (with --host-id) or serve it (--fleet)',
    )
    .option('--host-id <name>', "this host's name in the fleet")
    .option('--fleet', 'serve every host of the fleet on --nats (no panes of its own)')
    .option('--profile-module <file>', 'a module whose `profiles` export adds tool profiles')
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
