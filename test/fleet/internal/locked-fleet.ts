// A locked fleet's parts: the fleet token, a pane of the stand-in agent and a supervisor of it.
import type { FleetView } from '../../../src/fleet/view.js';
import { createSupervisor, type Supervisor } from '../../../src/index.js';
import { startAgentSession, type AgentSession } from '../../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from '../../supervisor/internal/stand-in-profile.js';
import { until } from './harness.js';

export const TOKEN = 'fleet-token-0123456789abcdef';
export const WRONG = 'another-token-0123456789abcdef';
export const CONFIG = { pollIntervalSeconds: 0.1, settleSeconds: 0.3, stabilitySeconds: 0.3 };
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Reply {
  ok: boolean;
  value?: unknown;
  error?: { code: string; message: string };
}

/** A pane of the stand-in agent on a tmux server of its own. */
export async function standIn(dir: string, name: string): Promise<AgentSession> {
  const pane = await startAgentSession({
    socketName: `pw-fleet-${process.pid}-auth-${name}`,
    sessionName: name,
    cwd: dir,
    env: { STAND_IN_WORK_MS: '300' },
    command: [process.execPath, STAND_IN_AGENT],
  });
  await pane.waitForText(/❯/);
  return pane;
}

export const scrollback = (p: AgentSession) =>
  p.transport.run(['capture-pane', '-p', '-S', '-', '-t', p.target]);

/** A supervisor of one pane, attached as `id`. */
export async function supervise(dir: string, pane: AgentSession, id: string): Promise<Supervisor> {
  const sup = createSupervisor({
    socketName: pane.socketName,
    dataDir: dir,
    config: CONFIG,
    profiles: { stand_in: standInProfile },
  });
  await sup.attach({ target: pane.target, tool: 'stand_in', id });
  return sup;
}

export async function reachable(view: FleetView, host: string): Promise<void> {
  await until(
    `${host} in the fleet`,
    async () => (view.hostViews().some((h) => h.id === host && h.reachable) ? true : undefined),
    45_000,
  );
}
