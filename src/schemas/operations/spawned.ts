import { z } from '@hono/zod-openapi';

export const RestartPolicy = z.enum(['never', 'on-failure']);
export type RestartPolicy = z.infer<typeof RestartPolicy>;

/** How a terminal whose policy is `on-failure` backs off between restarts, and when it gives up. */
export const RestartLimits = z.strictObject({
  /** Delay before the first restart, doubled for each restart in the window. */
  initialSeconds: z.number().positive().max(3600).default(1),
  /** The cap of that delay. */
  maxSeconds: z.number().positive().max(3600).default(60),
  /** At most this many restarts within `windowSeconds`; one more failure gives up. */
  limit: z.number().int().min(1).max(100).default(5),
  windowSeconds: z.number().positive().max(86_400).default(600),
});
export type RestartLimits = z.infer<typeof RestartLimits>;

/** Where restarts of a spawned terminal stand. */
export const RestartStatus = z.object({
  policy: RestartPolicy,
  /** Restarts so far. */
  restarts: z.number().int().nonnegative(),
  /** Set once restarts gave up (the limit was reached): why. */
  gaveUp: z.object({ reason: z.string(), at: z.string() }).nullable(),
  /** How the CLI last ended, when it did. */
  lastExit: z
    .object({ status: z.number().int().nullable(), signal: z.string().nullable(), at: z.string() })
    .nullable(),
});

/** What paneward knows of a terminal it started. */
export const Spawned = z
  .object({
    tool: z.string(),
    paneId: z.string(),
    session: z.string(),
    window: z.string(),
    cwd: z.string(),
    /** The command as started (the executable first); environment values are never shown. */
    argv: z.array(z.string()),
    /** The names of the environment variables it was given. */
    envNames: z.array(z.string()),
    worktree: z.object({ path: z.string(), branch: z.string() }).nullable(),
    restart: RestartStatus,
  })
  .openapi('Spawned');
export type Spawned = z.infer<typeof Spawned>;
