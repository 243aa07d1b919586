import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Option, type Command } from 'commander';
import type { Logger } from 'pino';
import { PanewardError } from '../errors.js';
import { describeZodError } from '../internal/zod-errors.js';
import type { ProfileFactory } from '../profiles/types.js';
import { type NotifyConfig } from '../notify/notifier.js';
import {
  createLogger,
  DEFAULT_PORT,
  DEFAULT_URL,
  refuseOpenBind,
  serve,
  type RunningServer,
} from '../serve.js';
import { addChartOptions, chartSettingsOf } from './chart-options.js';
import { SHUTDOWN_DEADLINE_MS, stopWithin, untilStopSignal } from './signals.js';
import { ServeOptions } from './serve-options.js';
import {
  natsAuthOf,
  readFleetToken,
  readNotifyHeaderFile,
  readNotifySecret,
  readToken,
} from './serve-secrets.js';

export { DEFAULT_PORT, DEFAULT_URL, createLogger, type RunningServer };

/**
 * `paneward serve` with options as commander hands them over: checked, then served by the
 * composition root (`src/serve.ts`). Binding anything but loopback refuses to start without a
 * bearer token.
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
  refuseOpenBind(o.host, token);
  const notify: NotifyConfig = {
    webhooks: o.notify,
    commands: o.notifyExec,
    debounceMs: o.notifyDebounce * 1000,
    timeoutMs: o.notifyTimeout * 1000,
    retries: o.notifyRetries,
    queueSize: o.notifyQueue,
    secret: readNotifySecret(o.notifySecretFile),
    headers: [...o.notifyHeader, ...readNotifyHeaderFile(o.notifyHeaderFile, o.notifyHeader)],
    ...(o.notifyKinds ? { kinds: o.notifyKinds } : {}),
  };
  const common = {
    host: o.host,
    notify,
    port: o.port,
    token,
    ...(o.cors ? { corsOrigins: o.cors } : {}),
    allowedHosts: o.allowedHost,
    logger: logger ?? createLogger(o.logLevel),
  };
  const fleetToken = o.nats === undefined ? null : readFleetToken(o, token);
  const natsAuth = o.nats === undefined ? {} : natsAuthOf(o);
  if (o.fleet) return serve({ ...common, fleet: { nats: o.nats!, token: fleetToken, natsAuth } });
  const profiles = o.profileModule ? await loadProfiles(o.profileModule) : undefined;
  return serve({
    ...common,
    supervisor: {
      options: {
        socketName: o.socketName,
        socketPath: o.socketPath,
        ...(o.dataDir ? { dataDir: o.dataDir } : {}),
        ...(profiles ? { profiles } : {}),
        config: {
          ...(o.sessionBudget === undefined ? {} : { sessionWallClockSeconds: o.sessionBudget }),
          ...(o.pollInterval === undefined ? {} : { pollIntervalSeconds: o.pollInterval }),
          ...chartSettingsOf(o),
        },
        verifiedOnly: o.verifiedOnly,
        source: o.source ?? 'control',
        ...(o.completionAuthority ? { completionAuthority: o.completionAuthority } : {}),
      },
      discoverSeconds: o.discover ? o.discoverInterval : null,
      ...(o.inspect === false
        ? {}
        : {
            inspect: {
              ...(o.inspect === true ? {} : { port: o.inspect }),
              paneText: o.inspectPaneText,
            },
          }),
      ...(o.nats !== undefined
        ? { edge: { nats: o.nats, hostId: o.hostId!, token: fleetToken, natsAuth } }
        : {}),
    },
  });
}

/** The `profiles` export (or default export) of a module: tool id → profile factory. */
async function loadProfiles(file: string): Promise<Record<string, ProfileFactory>> {
  let mod: Record<string, unknown>;
  try {
    const url = pathToFileURL(resolve(file)).href;
    // A TypeScript module is loaded through tsx, whether the command runs from dist/ or src/.
    mod = (
      /\.[cm]?ts$/.test(file)
        ? await (await import('tsx/esm/api')).tsImport(url, import.meta.url)
        : await import(url)
    ) as Record<string, unknown>;
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
      '--verified-only',
      'do not read an agent CLI newer than the versions paneward was verified against (default: read with the newest vocabulary, marked unverified)',
    )
    .addOption(new Option('--read-unverified').hideHelp())
    .option(
      '--nats <url>',
      'NATS server(s), comma-separated: publish to a fleet (with --host-id) or serve it (--fleet)',
    )
    .option('--host-id <name>', "this host's name in the fleet")
    .option('--fleet', 'serve every host of the fleet on --nats (no panes of its own)')
    .option(
      '--fleet-token-file <file>',
      'token that signs fleet commands, the same on every edge and the fleet server (else PANEWARD_FLEET_TOKEN, else the bearer token)',
    )
    .option(
      '--nats-user <name>',
      'NATS user (password: --nats-password-file or PANEWARD_NATS_PASSWORD)',
    )
    .option('--nats-password-file <file>', "the NATS user's password")
    .option('--nats-token-file <file>', 'NATS token (else PANEWARD_NATS_TOKEN)')
    .option('--nats-creds <file>', 'NATS credentials file (user JWT and nkey seed)')
    .option('--nats-nkey <file>', 'file holding a NATS nkey user seed')
    .option('--nats-ca <file>', "CA certificate of the NATS server's TLS certificate")
    .option('--nats-cert <file>', 'client certificate for NATS TLS (with --nats-key)')
    .option('--nats-key <file>', "the client certificate's key")
    .option('--profile-module <file>', 'a module whose `profiles` export adds tool profiles')
    .option(
      '--notify <url>',
      'POST a JSON notification to this webhook when an agent asks, a turn ends, a terminal stalls, its CLI exits or its pane goes (repeatable; docs/notify.md)',
      (url: string, all: string[] = []) => [...all, url],
    )
    .option(
      '--notify-exec <cmd>',
      'run this command (no shell: a JSON array, or words split on spaces) for the same events, the event on stdin and in PANEWARD_EVENT_* (repeatable)',
      (cmd: string, all: string[] = []) => [...all, cmd],
    )
    .option(
      '--notify-debounce <seconds>',
      'coalesce events of one kind for one terminal within this window (default 2; 0: none)',
    )
    .option(
      '--notify-timeout <seconds>',
      'time a webhook attempt or a command may take (default 5)',
    )
    .option('--notify-retries <n>', 'webhook attempts after a failed one (default 3)')
    .option(
      '--notify-queue <n>',
      'notifications waiting per sink before more are dropped (default 100)',
    )
    .option(
      '--notify-secret-file <file>',
      'sign each webhook POST with the key in this file: X-Paneward-Signature: t=<unix>,v1=<HMAC-SHA256 of "<t>.<body>">',
    )
    .option(
      '--notify-header <header>',
      "send this 'Name: value' header with each webhook POST (repeatable)",
      (h: string, all: string[] = []) => [...all, h],
    )
    .option(
      '--notify-header-file <file>',
      "send the headers in this file, one 'Name: value' a line, with each webhook POST",
    )
    .option(
      '--notify-kinds <kinds>',
      'tell only these kinds, comma-separated: question, turn_ended, stalled, exited, gone, back (default: all)',
      (k: string, all: string[] = []) => [...all, k],
    )
    .action(async (opts: Record<string, unknown>) => {
      const signals = untilStopSignal();
      try {
        const running = await startServe(opts);
        const signal = await signals.stopped;
        await stopWithin(running, { ms: SHUTDOWN_DEADLINE_MS, signal, release: signals.release });
      } finally {
        signals.release();
      }
    });
}
