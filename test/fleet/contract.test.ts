import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, ensureFleet } from '../../src/fleet/connection.js';
import { commandSubject } from '../../src/fleet/names.js';
import type { Heartbeat } from '../../src/fleet/schemas.js';
import { FleetView } from '../../src/fleet/view.js';
import { freePort, NatsServer, until } from './internal/harness.js';

/**
 * An edge (of another version, or not an edge at all) that answers a command with something
 * its contract does not allow: the fleet view says so, and takes nothing from the answer.
 */
describe('the fleet view checks an edge answer against the command contract', () => {
  let dir: string;
  let nats: NatsServer;
  let nc: NatsConnection;
  let view: FleetView;
  const answers: unknown[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'paneward-fleet-contract-'));
    nats = new NatsServer(await freePort(), join(dir, 'nats'));
    await nats.start();
    nc = await connect({ servers: nats.url });
    const h = await ensureFleet(nc, DEFAULT_LIMITS);
    const beat: Heartbeat = {
      host: 'h1',
      pid: process.pid,
      startedAt: Date.now(),
      at: Date.now(),
      terminals: 0,
      durableSeq: 0,
      publishedSeq: 0,
      observer: null,
    };
    await h.hosts.put('h1', JSON.stringify(beat));
    nc.subscribe(commandSubject('h1'), {
      callback: (_err, msg) => {
        answers.push(msg.json());
        // An attach answered without the terminal's state.
        msg.respond(JSON.stringify({ ok: true, value: { terminalId: 't1' } }));
      },
    });
    view = new FleetView({ nats: nats.url });
    await view.ready();
    await until(
      'host h1 reachable',
      async () => (view.hostViews().some((x) => x.id === 'h1' && x.reachable) ? true : undefined),
      10_000,
    );
  }, 30_000);

  afterAll(async () => {
    await view?.stop();
    await nc?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses an attach answered without the state, naming the field, and keeps no terminal', async () => {
    await expect(view.attach({ target: 's:0.0', host: 'h1' })).rejects.toMatchObject({
      code: 'internal',
      message: expect.stringMatching(
        /host h1 answered the attach command with something else.*state/,
      ),
    });
    expect(answers).toMatchObject([{ op: 'attach', body: { target: 's:0.0' } }]);
    expect(view.ids()).toEqual([]);
  });
});
