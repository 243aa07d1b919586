import { performance } from 'node:perf_hooks';
import type { SchedulerLike } from 'rxjs';
import { isPanewardError, PanewardError } from '../../errors.js';
import { ControlClient } from '../control-client.js';
import type { TmuxTransport } from '../transport.js';
import type { Connection, ConnectionEvent } from './connection-machine.js';

/** What the connection loop needs of the source. */
export interface ConnectionHost {
  readonly signal: AbortSignal;
  readonly transport: TmuxTransport;
  readonly client: { socketName?: string; socketPath?: string; tmuxBinary?: string };
  readonly scheduler: SchedulerLike;
  /** The connection as the source holds it (see `connection-machine.ts`). */
  connection(): Connection;
  dispatch(event: ConnectionEvent): void;
  /** The session of every watched pane (null when not known yet). */
  watchedSessions(): Iterable<string | null>;
  /** There is no tmux server: every pane is told. */
  serverMissing(message: string): void;
  /** A client started: the source sets it up (before `attached`). */
  attach(client: ControlClient): Promise<void>;
  /** The connection is `connected`: the source looks at every pane again. */
  attached(): void;
  /** The client ended. */
  detach(client: ControlClient): void;
}

/**
 * The connection loop: lists the sessions (is there a server?), starts a control client on the
 * session holding most watched panes, and when it ends starts another, waiting as the
 * connection machine says. Ends when the host's signal aborts.
 */
export async function runConnection(host: ConnectionHost): Promise<void> {
  const signal = host.signal;
  while (!signal.aborted) {
    host.dispatch({ type: 'start' });
    let sessions: Map<string, number>;
    try {
      sessions = await listSessions(host.transport, signal, host.watchedSessions());
    } catch (error) {
      if (signal.aborted) return;
      if (isPanewardError(error) && error.code === 'tmux_missing') {
        host.dispatch({ type: 'no_server' });
        host.serverMissing(error.message);
      } else {
        host.dispatch({ type: 'failed' });
      }
      await sleep(host, host.connection().waitMs ?? 0);
      continue;
    }
    let client: ControlClient;
    try {
      client = await ControlClient.start({
        ...host.client,
        session: bestSession(sessions),
        signal,
      });
    } catch {
      if (signal.aborted) return;
      host.dispatch({ type: 'failed' });
      await sleep(host, host.connection().waitMs ?? 0);
      continue;
    }
    if (signal.aborted) {
      await client.close();
      return;
    }
    const connectedAt = performance.now();
    await host.attach(client);
    host.dispatch({ type: 'attached' });
    host.attached();
    await client.exited;
    host.detach(client);
    if (signal.aborted) return;
    host.dispatch({ type: 'exited', ranMs: performance.now() - connectedAt });
    await sleep(host, host.connection().waitMs ?? 0);
  }
}

/** Sessions by id with how many watched panes each held at their last sample. */
async function listSessions(
  transport: TmuxTransport,
  signal: AbortSignal,
  watched: Iterable<string | null>,
): Promise<Map<string, number>> {
  const out = await transport.run(['list-sessions', '-F', '#{session_id}'], {
    signal,
    timeoutMs: 5000,
  });
  const sessions = new Map<string, number>();
  for (const id of out.split('\n')) if (id.startsWith('$')) sessions.set(id, 0);
  for (const id of watched) {
    if (id && sessions.has(id)) sessions.set(id, (sessions.get(id) ?? 0) + 1);
  }
  if (sessions.size === 0) throw new PanewardError('tmux_missing', 'tmux server has no sessions');
  return sessions;
}

/** The session holding most watched panes: their output is what `%output` reports. */
function bestSession(sessions: Map<string, number>): string {
  let best: string | null = null;
  let most = -1;
  for (const [id, n] of sessions) {
    if (n > most) [best, most] = [id, n];
  }
  return best ?? '';
}

function sleep(host: ConnectionHost, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const signal = host.signal;
    if (signal.aborted) return resolve();
    const sub = host.scheduler.schedule(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      sub.unsubscribe();
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
