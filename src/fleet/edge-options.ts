import type { Logger } from 'pino';
import { PanewardError } from '../errors.js';
import { describeZodError } from '../internal/zod-errors.js';
import type { Supervisor } from '../supervisor/supervisor.js';
import type { FleetLimits } from './connection.js';
import { MIN_TOKEN_LENGTH, type NatsAuth } from './auth.js';
import { HostId } from './schemas.js';

export interface EdgeOptions {
  /** The supervisor whose journal and terminals this host shares; it needs a data directory. */
  supervisor: Supervisor;
  /** NATS server URL(s), e.g. `nats://127.0.0.1:4222`. */
  nats: string | string[];
  /** This host's name in the fleet: letters, digits, dash or underscore. */
  hostId: string;
  limits?: Partial<FleetLimits>;
  logger?: Logger;
  /** Records read from the journal and in flight to JetStream at once; default 512. */
  publishWindow?: number;
  /** How often the heartbeat is written; default a quarter of its time to live. */
  heartbeatSeconds?: number;
  /**
   * The fleet token: commands must be signed with it (the fleet server holds the same one), and
   * a command that is not is refused unrun. Needed unless NATS is on loopback.
   */
  token?: string | null;
  /** How to log in to NATS and check its certificate. */
  natsAuth?: NatsAuth;
}

const LOOPBACK_NATS =
  /^(?:(?:nats|tls):\/\/)?(?:[^@/]*@)?(?:127\.\d+\.\d+\.\d+|localhost|\[::1\])(?::\d+)?$/;

/** Whether every server of a NATS URL list is on this machine's loopback. */
export function loopbackNats(servers: string): boolean {
  return servers.split(',').every((u) => LOOPBACK_NATS.test(u.trim()));
}

/** What an edge has done so far. */
export interface EdgeStatus {
  connected: boolean;
  /** The last journal seq JetStream acknowledged (with every one before it). */
  publishedSeq: number;
  durableSeq: number;
  /** Publishes JetStream dropped as repeats of a message id it had. */
  duplicates: number;
  commands: number;
  /** Commands refused for want of the fleet token's signature. */
  refusedCommands: number;
  /** Why NATS refuses this edge's connection (credentials, TLS); null otherwise. */
  natsRefusal: string | null;
}

/**
 * The options an edge cannot run with are refused here, before anything starts: a host name
 * that is not one, no data directory, a short token, or no token on a NATS off loopback.
 */
export function checkEdgeOptions(options: EdgeOptions): {
  hostId: string;
  dir: string;
  servers: string;
  token: string | null;
} {
  const host = HostId.safeParse(options.hostId);
  if (!host.success) {
    throw new PanewardError(
      'invalid_input',
      `edge: field \`hostId\`: ${describeZodError(host.error).replace(/^field `\(line\)`: /, '')}`,
    );
  }
  const dir = options.supervisor.journal.directory;
  if (dir === null) {
    throw new PanewardError(
      'invalid_input',
      'edge: field `supervisor`: a fleet edge needs a durable journal (a data directory)',
    );
  }
  const servers = Array.isArray(options.nats) ? options.nats.join(',') : options.nats;
  const token = options.token ?? null;
  if (token !== null && token.length < MIN_TOKEN_LENGTH) {
    throw new PanewardError(
      'invalid_input',
      `edge: field \`token\`: the fleet token must be at least ${MIN_TOKEN_LENGTH} characters`,
    );
  }
  if (token === null && !loopbackNats(servers)) {
    // Anyone who may publish on that NATS could otherwise type into every pane of this host.
    throw new PanewardError(
      'invalid_input',
      `edge: field \`token\`: an edge on a NATS that is not on loopback (${servers}) needs a fleet token: --fleet-token-file FILE, PANEWARD_FLEET_TOKEN, or the service's own token`,
    );
  }
  return { hostId: host.data, dir, servers, token };
}
