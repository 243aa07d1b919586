import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Option, type Command } from 'commander';
import type { Logger } from 'pino';
import { z } from 'zod';
import { PanewardError } from '../errors.js';
import { BUDGET_TOO_LONG, MAX_BUDGET_SECONDS } from '../internal/bounds.js';
import { readTokenFile } from '../internal/token-file.js';
import { describeZodError } from '../internal/zod-errors.js';
import type { ProfileFactory } from '../profiles/types.js';
import { MIN_TOKEN_LENGTH, type NatsAuth } from '../fleet/auth.js';
import { HostId } from '../schemas/operations/index.js';
import { NOTIFY_DEFAULTS, type NotifyConfig } from '../notify/notifier.js';
import { MIN_NOTIFY_SECRET_LENGTH } from '../notify/signature.js';
import { parseCommand } from '../notify/sinks.js';
import { NotifyHeader, NotifyKindList } from '../schemas/notify.js';
import {
  createLogger,
  DEFAULT_PORT,
  DEFAULT_URL,
  refuseOpenBind,
  serve,
  type RunningServer,
} from '../serve.js';
import {
  addChartOptions,
  chartFlagsGiven,
  chartSettingsOf,
  ChartOptionFields,
  checkChartOptions,
} from './chart-options.js';
import { SHUTDOWN_DEADLINE_MS, stopWithin, untilStopSignal } from './signals.js';

export { DEFAULT_PORT, DEFAULT_URL, createLogger, type RunningServer };

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
    /** The strict gate: do not read a CLI newer than its verified versions. */
    verifiedOnly: z.boolean().default(false),
    /** Accepted for old scripts: reading newer versions is the default. */
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
    /** The fleet token that signs commands (else PANEWARD_FLEET_TOKEN, else the bearer token). */
    fleetTokenFile: z.string().min(1).optional(),
    /** How to log in to NATS: a user (password from a file or PANEWARD_NATS_PASSWORD), ... */
    natsUser: z.string().min(1).optional(),
    natsPasswordFile: z.string().min(1).optional(),
    /** ... a token (from a file or PANEWARD_NATS_TOKEN), a creds file or an nkey seed file. */
    natsTokenFile: z.string().min(1).optional(),
    natsCreds: z.string().min(1).optional(),
    natsNkey: z.string().min(1).optional(),
    /** TLS to NATS: the CA of its certificate, and a client certificate with its key. */
    natsCa: z.string().min(1).optional(),
    natsCert: z.string().min(1).optional(),
    natsKey: z.string().min(1).optional(),
    /** A module whose `profiles` export adds tool profiles (id → factory). */
    profileModule: z.string().min(1).optional(),
    /** Webhooks told of questions, ended turns, stalls, exits and gone panes (docs/notify.md). */
    notify: z
      .array(
        z
          .string()
          .url({ error: '--notify must be an http:// or https:// URL' })
          .regex(/^https?:\/\//i, { error: '--notify must be an http:// or https:// URL' })
          .refine(
            (u) => {
              const url = new URL(u);
              return url.username === '' && url.password === '';
            },
            {
              error:
                '--notify must not carry a user or password (user:password@); a secret can go in the path or query',
            },
          ),
      )
      .default([]),
    /** Commands run for the same events (no shell: a JSON array, or words split on spaces). */
    notifyExec: z
      .array(
        z.string().superRefine((cmd, ctx) => {
          try {
            parseCommand(cmd, 'notifyExec');
          } catch (error) {
            ctx.addIssue({
              code: 'custom',
              message: (error as Error).message.replace(/^field `notifyExec`: /, ''),
            });
          }
        }),
      )
      .default([]),
    notifyDebounce: z.coerce
      .number({ error: 'must be a number of seconds' })
      .min(0)
      .max(3600, { error: '--notify-debounce must be at most 3600 seconds' })
      .default(NOTIFY_DEFAULTS.debounceMs / 1000),
    notifyTimeout: z.coerce
      .number({ error: 'must be a number of seconds' })
      .positive()
      .max(300, { error: '--notify-timeout must be at most 300 seconds' })
      .default(NOTIFY_DEFAULTS.timeoutMs / 1000),
    notifyRetries: z.coerce
      .number({ error: 'must be a whole number' })
      .int({ error: 'must be a whole number' })
      .min(0)
      .max(10, { error: '--notify-retries must be at most 10' })
      .default(NOTIFY_DEFAULTS.retries),
    notifyQueue: z.coerce
      .number({ error: 'must be a whole number' })
      .int({ error: 'must be a whole number' })
      .min(1)
      .max(100_000, { error: '--notify-queue must be at most 100000' })
      .default(NOTIFY_DEFAULTS.queueSize),
    /** The file holding the key that signs each webhook POST (never the key itself: `ps`). */
    notifySecretFile: z.string().min(1).optional(),
    /** `Name: value` headers sent with each webhook POST (repeatable). */
    notifyHeader: z
      .array(NotifyHeader)
      .default([])
      .superRefine((headers, ctx) => {
        const seen = new Set<string>();
        for (const [i, h] of headers.entries()) {
          const lower = h.name.toLowerCase();
          if (seen.has(lower)) {
            ctx.addIssue({
              code: 'custom',
              path: [i],
              message: `--notify-header ${h.name} is given twice`,
            });
          }
          seen.add(lower);
        }
      }),
    /** A file of `Name: value` headers, one a line, sent with each webhook POST. */
    notifyHeaderFile: z.string().min(1).optional(),
    /** Only these kinds are told (comma-separated, repeatable); absent: every kind. */
    notifyKinds: NotifyKindList.optional(),
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
    const flags = {
      fleetTokenFile: '--fleet-token-file',
      natsUser: '--nats-user',
      natsPasswordFile: '--nats-password-file',
      natsTokenFile: '--nats-token-file',
      natsCreds: '--nats-creds',
      natsNkey: '--nats-nkey',
      natsCa: '--nats-ca',
      natsCert: '--nats-cert',
      natsKey: '--nats-key',
    } as const;
    const given = (Object.keys(flags) as Array<keyof typeof flags>).filter(
      (f) => o[f] !== undefined,
    );
    if (o.nats === undefined) {
      for (const f of given) {
        ctx.addIssue({ code: 'custom', path: [f], message: `${flags[f]} needs --nats URL` });
      }
      return;
    }
    const logins = (['natsUser', 'natsTokenFile', 'natsCreds', 'natsNkey'] as const).filter(
      (f) => o[f] !== undefined,
    );
    if (logins.length > 1) {
      ctx.addIssue({
        code: 'custom',
        path: [logins[1]!],
        message: `${flags[logins[1]!]} cannot be combined with ${flags[logins[0]!]} (one way to log in to NATS)`,
      });
    }
    if (o.natsPasswordFile !== undefined && o.natsUser === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['natsPasswordFile'],
        message: '--nats-password-file needs --nats-user',
      });
    }
    if ((o.natsCert === undefined) !== (o.natsKey === undefined)) {
      const missing = o.natsCert === undefined ? 'natsCert' : 'natsKey';
      ctx.addIssue({
        code: 'custom',
        path: [missing],
        message: `${flags[missing]} is needed: a client certificate goes with its key`,
      });
    }
  })
  .superRefine((o, ctx) => {
    // What shapes a webhook POST needs a webhook; a filter needs somewhere to send.
    if (o.notify.length === 0) {
      if (o.notifySecretFile !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['notifySecretFile'],
          message: '--notify-secret-file needs --notify URL (it signs webhook POSTs)',
        });
      }
      if (o.notifyHeader.length > 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['notifyHeader'],
          message: '--notify-header needs --notify URL (it is sent with webhook POSTs)',
        });
      }
      if (o.notifyHeaderFile !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['notifyHeaderFile'],
          message: '--notify-header-file needs --notify URL (its headers go with webhook POSTs)',
        });
      }
    }
    if (o.notifyKinds !== undefined && o.notify.length + o.notifyExec.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['notifyKinds'],
        message: '--notify-kinds needs --notify URL or --notify-exec CMD',
      });
    }
  })
  .superRefine((o, ctx) => {
    if (o.verifiedOnly && o.readUnverified) {
      ctx.addIssue({
        code: 'custom',
        path: ['readUnverified'],
        message:
          '--read-unverified contradicts --verified-only (newer releases are read by default)',
      });
    }
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
      verifiedOnly: o.verifiedOnly && '--verified-only',
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
    const text = readTokenFile(tokenFile, 'field `tokenFile`');
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

/** A secret kept in a file (trimmed), else in an environment variable; null when neither. */
function readSecret(
  file: string | undefined,
  field: string,
  variable: string,
  env = process.env,
): string | null {
  if (file !== undefined) {
    // A regular file of at most 4 KB, opened so that a FIFO cannot hang the service.
    const text = readTokenFile(file, `field \`${field}\``);
    if (text !== '') return text;
    throw new PanewardError('invalid_input', `field \`${field}\`: ${file} is empty`);
  }
  const fromEnv = env[variable]?.trim();
  return fromEnv === undefined || fromEnv === '' ? null : fromEnv;
}

/**
 * The key that signs webhook POSTs: the whole of `--notify-secret-file` (a regular file of at
 * most 4 KB, opened so that a FIFO cannot hang the service), trimmed; null without the option.
 */
export function readNotifySecret(file: string | undefined): string | null {
  if (file === undefined) return null;
  const secret = readSecret(file, 'notifySecretFile', '', {});
  if (secret === null || secret.length < MIN_NOTIFY_SECRET_LENGTH) {
    throw new PanewardError(
      'invalid_input',
      `field \`notifySecretFile\`: the secret in ${file} must be at least ${MIN_NOTIFY_SECRET_LENGTH} characters`,
    );
  }
  return secret;
}

/** The largest `--notify-header-file` read: headers, a long bearer token among them. */
export const MAX_NOTIFY_HEADER_FILE_BYTES = 64 * 1024;

/**
 * The headers of `--notify-header-file`: one `Name: value` a line (blank lines skipped), each
 * checked as `--notify-header` checks one, the error naming the option, the file and the line;
 * a name given twice, in the file or beside a `--notify-header`, is refused. Read once, as a
 * secret file is (a regular file, opened so that a FIFO cannot hang the service); its mode is
 * not checked, as no secret file's is: keep it `0600`. None without the option.
 */
export function readNotifyHeaderFile(
  file: string | undefined,
  given: readonly NotifyHeader[] = [],
): NotifyHeader[] {
  if (file === undefined) return [];
  const field = 'field `notifyHeaderFile`';
  const text = readTokenFile(file, field, {
    what: 'the headers',
    kind: 'a header file',
    maxBytes: MAX_NOTIFY_HEADER_FILE_BYTES,
    // Untrimmed, so that the lines are counted as an editor counts them.
    trim: false,
  });
  if (text.trim() === '') throw new PanewardError('invalid_input', `${field}: ${file} is empty`);
  const seen = new Set(given.map((h) => h.name.toLowerCase()));
  const out: NotifyHeader[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const where = `--notify-header-file ${file} line ${i + 1}`;
    const parsed = NotifyHeader.safeParse(line);
    if (!parsed.success) {
      const why = parsed.error.issues[0]!.message.replace(/^--notify-header /, '');
      throw new PanewardError('invalid_input', `${field}: ${where}: ${why}`);
    }
    const lower = parsed.data.name.toLowerCase();
    if (seen.has(lower)) {
      throw new PanewardError(
        'invalid_input',
        `${field}: ${where}: ${parsed.data.name} is given twice (in the file or by --notify-header)`,
      );
    }
    seen.add(lower);
    out.push(parsed.data);
  }
  return out;
}

/**
 * The fleet token: `--fleet-token-file`, else `PANEWARD_FLEET_TOKEN`, else the service's bearer
 * token (so one token set on every host and the fleet server serves both).
 */
export function readFleetToken(
  o: Pick<ServeOptions, 'fleetTokenFile'>,
  serviceToken: string | null,
  env = process.env,
): string | null {
  const token = readSecret(o.fleetTokenFile, 'fleetTokenFile', 'PANEWARD_FLEET_TOKEN', env);
  if (token !== null && token.length < MIN_TOKEN_LENGTH) {
    throw new PanewardError(
      'invalid_input',
      `field \`fleetTokenFile\`: the fleet token must be at least ${MIN_TOKEN_LENGTH} characters`,
    );
  }
  return token ?? serviceToken;
}

/** The NATS login and TLS the options give (secrets from their files or the environment). */
export function natsAuthOf(o: ServeOptions, env = process.env): NatsAuth {
  const auth: NatsAuth = {};
  for (const field of ['natsCreds', 'natsNkey', 'natsCa', 'natsCert', 'natsKey'] as const) {
    const file = o[field];
    if (file === undefined) continue;
    // Only a regular file is read (a FIFO would block the service for good).
    let regular = false;
    try {
      regular = statSync(file).isFile();
    } catch (error) {
      throw new PanewardError('invalid_input', `field \`${field}\`: cannot read ${file}`, {
        cause: error,
      });
    }
    if (!regular) {
      throw new PanewardError('invalid_input', `field \`${field}\`: ${file} is not a regular file`);
    }
  }
  if (o.natsUser !== undefined) {
    const password = readSecret(
      o.natsPasswordFile,
      'natsPasswordFile',
      'PANEWARD_NATS_PASSWORD',
      env,
    );
    if (password === null) {
      throw new PanewardError(
        'invalid_input',
        'field `natsPasswordFile`: --nats-user needs its password: --nats-password-file FILE or PANEWARD_NATS_PASSWORD',
      );
    }
    auth.user = o.natsUser;
    auth.password = password;
  } else if (o.natsCreds !== undefined) {
    auth.credsFile = o.natsCreds;
  } else if (o.natsNkey !== undefined) {
    auth.nkeySeedFile = o.natsNkey;
  } else {
    const token = readSecret(o.natsTokenFile, 'natsTokenFile', 'PANEWARD_NATS_TOKEN', env);
    if (token !== null) auth.token = token;
  }
  if (o.natsCa !== undefined || o.natsCert !== undefined) {
    auth.tls = {
      ...(o.natsCa !== undefined ? { caFile: o.natsCa } : {}),
      ...(o.natsCert !== undefined ? { certFile: o.natsCert, keyFile: o.natsKey! } : {}),
    };
  }
  return auth;
}

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
