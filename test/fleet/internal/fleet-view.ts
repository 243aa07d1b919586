// The fleet view behind the HTTP app and an edge of two stand-in panes, on a real nats-server:
// the fixture of the fleet view tests.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { FleetEdge } from '../../../src/fleet/edge.js';
import { FleetView } from '../../../src/fleet/view.js';
import { createSupervisor } from '../../../src/index.js';
import { createHttpApp } from '../../../src/server/app.js';
import { startAgentSession, type AgentSession } from '../../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from '../../supervisor/internal/stand-in-profile.js';
import { freePort, NatsServer, until } from './harness.js';

export const LIMITS = { duplicateWindowSeconds: 1 };

/** Starts nats-server, two panes of the stand-in agent, their supervisor and edge, and the view. */
export async function startFleetView() {
  const dir = mkdtempSync(join(tmpdir(), 'pw-fleet-view-'));
  const nats = new NatsServer(await freePort(), join(dir, 'nats'));
  await nats.start();
  const socketName = `pw-fleet-${process.pid}-view`;
  const panes: AgentSession[] = [];
  for (const sessionName of ['v0', 'v1']) {
    panes.push(
      await startAgentSession({
        socketName,
        sessionName,
        cwd: dir,
        env: { STAND_IN_WORK_MS: '700' },
        command: [process.execPath, STAND_IN_AGENT],
      }),
    );
  }
  await Promise.all(panes.map((p) => p.waitForText(/❯/)));
  const sup = createSupervisor({
    socketName,
    dataDir: join(dir, 'a'),
    config: { pollIntervalSeconds: 0.1, settleSeconds: 0.3, stabilitySeconds: 0.3 },
    profiles: { stand_in: standInProfile },
  });
  const edge = new FleetEdge({ supervisor: sup, nats: nats.url, hostId: 'host-a', limits: LIMITS });
  const view = new FleetView({ nats: nats.url, limits: LIMITS });
  await view.ready();
  const http = createHttpApp(view, { sse: { heartbeatMs: 200 } });
  const client = await connect({ servers: nats.url });
  await until(
    'host-a in the fleet',
    async () => (view.hostViews().some((h) => h.id === 'host-a' && h.reachable) ? true : undefined),
    15_000,
  );
  return { dir, nats, panes, sup, edge, view, http, client };
}
