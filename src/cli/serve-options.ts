import { z } from 'zod';
import { BUDGET_TOO_LONG, MAX_BUDGET_SECONDS } from '../internal/bounds.js';
import { HostId } from '../schemas/operations/index.js';
import { NOTIFY_DEFAULTS } from '../notify/notifier.js';
import { parseCommand } from '../notify/sinks.js';
import { NotifyHeader, NotifyKindList } from '../schemas/notify.js';
import { DEFAULT_PORT } from '../serve.js';
import { chartFlagsGiven, ChartOptionFields, checkChartOptions } from './chart-options.js';

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
