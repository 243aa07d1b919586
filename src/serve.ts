import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import { PanewardError } from './errors.js';
import type { NatsAuth } from './fleet/auth.js';
import { FleetEdge } from './fleet/edge.js';
import { FleetView } from './fleet/view.js';
import { startStatelyInspection, type StatelyInspectionOptions } from './inspect/stately.js';
import { checkNotifyConfig, Notifier, type NotifyConfig } from './notify/notifier.js';
import { createHttpApp, type SpawnPresets } from './server/app.js';
import { errorJson } from './server/guards.js';
import type { SupervisorPort } from './service/port.js';
import {
  createSupervisor,
  type Supervisor,
  type SupervisorOptionsInput,
} from './supervisor/supervisor.js';

export { DEFAULT_PORT, DEFAULT_URL } from './service/address.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);

/** What to serve, decided (the CLI's `serve` parses its options into this). */
export interface ServeConfig {
  host: string;
  port: number;
  /** The bearer token every request must carry; null: none (loopback only). */
  token: string | null;
  corsOrigins?: string[];
  /** Names besides loopback the service answers to in `Host` (the bound address is added). */
  allowedHosts?: string[];
  logger: Logger;
  /**
   * A fleet server: every host on this NATS, no panes of its own; commands signed with `token`
   * (the fleet token), NATS logged in to with `natsAuth`.
   */
  fleet?: { nats: string; token?: string | null; natsAuth?: NatsAuth };
  /** What the dashboard's Start form fills in per tool (see `HttpOptions.spawnPresets`). */
  spawnPresets?: SpawnPresets;
  /** Notifications to webhooks and commands (docs/notify.md); on a fleet server, of every host. */
  notify?: NotifyConfig;
  /** A server with panes (ignored with `fleet`). */
  supervisor?: {
    options: SupervisorOptionsInput;
    /** Attach agent panes by themselves every so many seconds; null: never. */
    discoverSeconds: number | null;
    /** Relay the actor system to Stately's inspector. */
    inspect?: StatelyInspectionOptions;
    /** Publish to a fleet as this host (commands must be signed with `token`). */
    edge?: { nats: string; hostId: string; token?: string | null; natsAuth?: NatsAuth };
  };
}

export interface RunningServer {
  url: string;
  server: Server;
  /** The supervisor of a server with panes; null for a fleet server. */
  supervisor: Supervisor | null;
  stop(): Promise<void>;
  /** The parts `stop()` is still waiting on (empty before it starts and once it is done). */
  stopping(): string[];
}

/** Binding anything but loopback needs a bearer token: refused before anything starts. */
export function refuseOpenBind(host: string, token: string | null): void {
  if (!LOOPBACK.has(host) && token === null) {
    throw new PanewardError(
      'invalid_input',
      `serve: field \`host\`: binding ${host} (not loopback) needs a bearer token: --token-file FILE or PANEWARD_TOKEN`,
    );
  }
}

/**
 * A server whose NATS refuses its credentials or TLS at start does not start (a server that is
 * merely down is waited for, as ever): the refusal says what to give.
 */
async function refuseNatsRefusal(
  part: { firstAttempt(ms?: number): Promise<string | null> },
  stop: () => Promise<void>,
): Promise<void> {
  const refusal = await part.firstAttempt(5_000);
  if (refusal === null) return;
  await stop();
  throw new PanewardError('unauthorized', `serve: field \`nats\`: ${refusal}`);
}

/** Structured logs: JSON lines, or readable ones on a terminal (colours unless NO_COLOR). */
export function createLogger(level: string): Logger {
  if (process.stdout.isTTY) {
    return pino({ level }, pretty({ colorize: !process.env.NO_COLOR, sync: true }));
  }
  return pino({ level });
}

/**
 * The composition root: a supervisor (or a fleet view), the edge that publishes it to a fleet,
 * the inspector, all behind the HTTP API on one `node:http` server. What was started is stopped
 * again on failure, and by `stop()` in the right order (the edge publishes what its journal
 * holds first). Binding anything but loopback refuses to start without a bearer token.
 */
export async function serve(config: ServeConfig): Promise<RunningServer> {
  refuseOpenBind(config.host, config.token);
  // A command that names no program, a header a POST cannot carry, ... are refused first.
  if (config.notify) checkNotifyConfig(config.notify);
  // The port is taken first: a port that is busy is refused before anything else starts, and
  // before anything is written to the data directory (no journal, no lock). Until the API is
  // ready a request is answered 503.
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  const server = createServer((req, res) => {
    if (handler) return handler(req, res);
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
    res.end(JSON.stringify(errorJson('not_ready', 'paneward is starting')));
  });
  await listen(server, config.host, config.port);
  try {
    return await serveOn(server, config, (listener) => (handler = listener));
  } catch (error) {
    server.close();
    server.closeAllConnections();
    throw error;
  }
}

/** Listens, or rejects naming the port when it cannot (in use, not allowed, no such address). */
async function listen(server: Server, host: string, port: number): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'EADDRINUSE'
        ? 'the port is in use by another process'
        : code === 'EACCES'
          ? 'not allowed (a port below 1024 needs privileges)'
          : code === 'EADDRNOTAVAIL'
            ? 'this machine has no such address'
            : null;
    if (why !== null) {
      throw new PanewardError(
        'invalid_input',
        `serve: field \`port\`: cannot listen on ${host}:${port}: ${why}; nothing was started or written; choose another with --port`,
        { cause: error },
      );
    }
    throw error;
  }
}

/** How a person names the tmux server a supervisor watches. */
function tmuxServerName(o: SupervisorOptionsInput): string {
  if (o.socketName !== undefined) return `tmux server -L ${o.socketName}`;
  if (o.socketPath !== undefined) return `tmux server -S ${o.socketPath}`;
  return 'default tmux server';
}

/**
 * A supervisor whose tmux server is not running serves no terminal until it runs: that is said
 * at once (a warning naming the socket and what happens next), and again when the server
 * appears. Discovery, which finds nothing meanwhile, attaches its agent panes then, as it would
 * have at start. Looked for every second until then.
 */
async function awaitTmuxServer(
  sup: Supervisor,
  options: SupervisorOptionsInput,
  discoverSeconds: number | null,
  log: Logger,
): Promise<{ stop(): void }> {
  if ((await sup.tmuxServerRunning()) !== false) return { stop: () => {} };
  const which = tmuxServerName(options);
  const socket = options.socketName ?? options.socketPath ?? null;
  log.warn(
    { socket },
    `no ${which} is running: serving 0 terminals for now; ` +
      (discoverSeconds === null
        ? 'once it runs, attach its panes with `paneward attach` (discovery is off)'
        : `once it runs, its agent panes are attached (looked for every ${discoverSeconds} s)`),
  );
  let looking = false;
  const timer = setInterval(() => {
    if (looking) return;
    looking = true;
    void sup
      .tmuxServerRunning()
      .catch(() => null)
      .then((running) => {
        looking = false;
        if (running !== true) return;
        clearInterval(timer);
        log.info(
          { socket },
          `the ${which} is running now` +
            (discoverSeconds === null ? '' : ': its agent panes are being attached'),
        );
      });
  }, 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** Everything but the port: started once the port is taken, stopped again when a part fails. */
async function serveOn(
  server: Server,
  config: ServeConfig,
  mount: (listener: (req: IncomingMessage, res: ServerResponse) => void) => void,
): Promise<RunningServer> {
  const log = config.logger;
  let sup: Supervisor | null = null;
  let edge: FleetEdge | null = null;
  let fleet: FleetView | null = null;
  let inspection: Awaited<ReturnType<typeof startStatelyInspection>> | null = null;
  let watch: { stop(): void } = { stop: () => {} };
  let served: SupervisorPort;
  if (config.fleet) {
    fleet = new FleetView({ ...config.fleet, logger: log });
    await refuseNatsRefusal(fleet, () => fleet!.stop());
    await fleet.ready(5_000);
    served = fleet;
  } else {
    const s = config.supervisor ?? { options: {}, discoverSeconds: null };
    inspection = s.inspect ? await startStatelyInspection(s.inspect) : null;
    try {
      sup = createSupervisor({
        ...s.options,
        ...(inspection ? { inspect: inspection.inspect } : {}),
      });
    } catch (error) {
      inspection?.stop();
      throw error;
    }
    const started = sup;
    watch = await awaitTmuxServer(sup, s.options, s.discoverSeconds, log).catch(async (error) => {
      await started.stop();
      inspection?.stop();
      throw error;
    });
    if (s.discoverSeconds !== null) {
      sup.discoverContinuously(s.discoverSeconds, (error) =>
        log.warn(
          { err: error },
          `discovery failed: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
    }
    if (s.edge) {
      try {
        edge = new FleetEdge({ supervisor: sup, ...s.edge, logger: log });
        const started = edge;
        await refuseNatsRefusal(edge, () => started.stop());
      } catch (error) {
        watch.stop();
        await sup.stop();
        inspection?.stop();
        throw error;
      }
    }
    served = sup;
  }
  // The parts that are still stopping, by name (what a shutdown cut short names).
  const pending = new Set<string>();
  const stopParts = async () => {
    const part = async (name: string, stop: () => Promise<void> | void) => {
      pending.add(name);
      try {
        await stop();
      } finally {
        pending.delete(name);
      }
    };
    // In parallel: one part that hangs (a tmux that answers nothing) holds up no other.
    const results = await Promise.allSettled([
      edge
        ? part('fleet edge and supervisor', () =>
            edge!.stop({ before: () => sup!.stop(), drainMs: 5000 }),
          )
        : sup
          ? part('supervisor', () => sup!.stop())
          : null,
      fleet ? part('fleet view', () => fleet!.stop()) : null,
      inspection ? part('inspector', () => inspection!.stop()) : null,
    ]);
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  };
  const http = createHttpApp(served, {
    ...(config.token ? { token: config.token } : {}),
    ...(config.corsOrigins ? { corsOrigins: config.corsOrigins } : {}),
    // A server bound to an address of its own answers to that address too.
    allowedHosts: [
      ...(config.allowedHosts ?? []),
      ...(WILDCARD.has(config.host) ? [] : [config.host]),
    ],
    ...(config.spawnPresets ? { spawnPresets: config.spawnPresets } : {}),
    logger: log,
  });
  const sup0 = sup;
  const notifier =
    config.notify && config.notify.webhooks.length + config.notify.commands.length > 0
      ? new Notifier(served, config.notify, {
          logger: log,
          // A fleet server has no journal of its own: its outcomes are in the metrics and logs.
          ...(sup0 ? { append: (d) => void sup0.journal.append(d).catch(() => null) } : {}),
        })
      : null;
  notifier?.register(http.metrics.registry);
  mount(http.listener);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  log.info(
    {
      url,
      ...(sup ? { dataDir: sup.journal.directory } : {}),
      ...(config.fleet
        ? {
            nats: config.fleet.nats,
            fleet: true,
            fleetToken: (config.fleet.token ?? null) !== null,
          }
        : {}),
      ...(config.supervisor?.edge
        ? {
            nats: config.supervisor.edge.nats,
            hostId: config.supervisor.edge.hostId,
            fleetToken: (config.supervisor.edge.token ?? null) !== null,
          }
        : {}),
      terminals: served.ids().length,
      token: config.token !== null,
      ...(notifier
        ? {
            notify: notifier.sinks.map((k) => `${k.name} ${k.describe}`),
            // Whether webhooks are signed, which headers (names only) and kinds: never a value.
            notifySigned: (config.notify?.secret ?? null) !== null,
            ...(config.notify?.headers?.length
              ? { notifyHeaders: config.notify.headers.map((h) => h.name) }
              : {}),
            ...(config.notify?.kinds ? { notifyKinds: config.notify.kinds } : {}),
          }
        : {}),
    },
    'paneward serve listening',
  );
  if (inspection) {
    log.info(
      {
        inspector: inspection.pageUrl,
        socket: inspection.socketUrl,
        paneText: config.supervisor?.inspect?.paneText ?? false,
      },
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
        watch.stop();
        server.close();
        server.closeAllConnections();
        http.close();
        // Deliveries under way are cut short: the journal their outcomes go to is closing.
        await notifier?.stop();
        await stopParts();
        log.info('paneward serve stopped');
      })()),
    stopping: () => [...pending],
  };
}
