// A fleet server with --notify tells of a host's terminals, naming the host: a real nats-server,
// an edge over a stand-in agent on real tmux, and a real webhook receiver.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServer } from '../../src/cli/serve.js';
import { FleetEdge } from '../../src/fleet/edge.js';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { verifyNotification } from '../../src/notify/signature.js';
import { NotifyEvent } from '../../src/schemas/notify.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { freePort, NatsServer } from '../fleet/internal/harness.js';
import { STAND_IN_AGENT, standInProfile } from '../supervisor/internal/stand-in-profile.js';
import { startReceiver } from './internal/receiver.js';

describe('paneward serve --fleet --notify', () => {
  let dir: string;
  let nats: NatsServer;
  let agent: AgentSession;
  let sup: Supervisor;
  let edge: FleetEdge;
  let fleet: RunningServer | null = null;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-fleet-notify-'));
    nats = new NatsServer(await freePort(), join(dir, 'nats'));
    await nats.start();
    agent = await startAgentSession({
      cwd: dir,
      env: { STAND_IN_WORK_MS: '500' },
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
    sup = createSupervisor({
      socketName: agent.socketName,
      dataDir: join(dir, 'a'),
      config: { pollIntervalSeconds: 0.1, settleSeconds: 0.3, stabilitySeconds: 0.3 },
      profiles: { stand_in: standInProfile },
    });
    edge = new FleetEdge({ supervisor: sup, nats: nats.url, hostId: 'host-a' });
  }, 60_000);

  afterAll(async () => {
    await fleet?.stop();
    await edge?.stop({ before: () => sup.stop(), drainMs: 2000 });
    await agent?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('tells of a turn that ended on a host, naming the host, signed, with its header, only that kind', async () => {
    const rx = await startReceiver();
    const secret = 'fleet-notify-secret-0123456789';
    writeFileSync(join(dir, 'notify.key'), `${secret}\n`, { mode: 0o600 });
    fleet = await startServe({
      fleet: true,
      nats: nats.url,
      port: '0',
      logLevel: 'silent',
      notify: [rx.url],
      notifySecretFile: join(dir, 'notify.key'),
      notifyHeader: ['X-Fleet: lab'],
      notifyKinds: ['turn_ended'],
    });
    const id = await sup.attach({ target: agent.target, tool: 'stand_in', id: 'f1' });
    const end = Date.now() + 20_000;
    while (sup.get(id).readiness.status !== 'ready') {
      if (Date.now() > end) throw new Error('the pane never became ready');
      await new Promise((r) => setTimeout(r, 50));
    }
    const turnId = await sup.submit(id, 'Run the tests', {});
    const deadline = Date.now() + 20_000;
    while (!rx.received.some((r) => (r.body as NotifyEvent).kind === 'turn_ended')) {
      if (Date.now() > deadline) {
        throw new Error(`no turn_ended; got ${JSON.stringify(rx.received.map((r) => r.body))}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const ended = NotifyEvent.parse(
      rx.received.find((r) => (r.body as NotifyEvent).kind === 'turn_ended')!.body,
    );
    expect(ended).toMatchObject({
      kind: 'turn_ended',
      host: 'host-a',
      terminalId: 'host-a/f1',
      tool: 'stand_in',
      turnId,
      outcome: 'success',
    });
    const got = rx.received.find((r) => (r.body as NotifyEvent).kind === 'turn_ended')!;
    expect(got.headers['x-fleet']).toBe('lab');
    const signature = got.headers['x-paneward-signature'] as string;
    expect(verifyNotification(secret, signature, got.raw)).toBeNull();
    expect(verifyNotification('another-secret-0123456789', signature, got.raw)).toBe('mismatch');
    // Only the kind asked for: the terminal detached on its host is not told as `gone`.
    await sup.detach(id);
    await new Promise((r) => setTimeout(r, 1500));
    expect(rx.received.map((r) => (r.body as NotifyEvent).kind)).toEqual(['turn_ended']);
    const metrics = await (await fetch(`${fleet.url}/metrics`)).text();
    expect(metrics).toMatch(/^paneward_notify_delivered_total\{sink="webhook:1"\} [1-9]\d*$/m);
    await rx.close();
  }, 90_000);
});
