// A locked fleet on a real nats-server: NATS itself asks for credentials (accounts, a token) and
// TLS, and paneward logs in with them.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe } from '../../src/cli/serve.js';
import { FleetEdge } from '../../src/fleet/edge.js';
import { commandSubject } from '../../src/fleet/names.js';
import { FleetView } from '../../src/fleet/view.js';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import type { AgentSession } from '../e2e/harness/session.js';
import { standInProfile } from '../supervisor/internal/stand-in-profile.js';
import { freePort, NatsServer, until } from './internal/harness.js';
import { reachable, scrollback, standIn, supervise, TOKEN } from './internal/locked-fleet.js';

describe('NATS with accounts: paneward logs in, anyone else sees nothing of the fleet', () => {
  let dir: string;
  let nats: NatsServer;
  let pane: AgentSession;
  let sup: Supervisor;
  let edge: FleetEdge;
  let view: FleetView;
  const EDGE = { user: 'edge', password: 'edge-secret-0123' };
  const FLEET = { user: 'fleet', password: 'fleet-secret-0123' };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-fleet-accounts-'));
    const conf = join(dir, 'nats.conf');
    writeFileSync(
      conf,
      `accounts {
  PANEWARD {
    jetstream: enabled
    users: [
      { user: ${EDGE.user}, password: "${EDGE.password}" }
      { user: ${FLEET.user}, password: "${FLEET.password}" }
    ]
  }
  OTHER { users: [ { user: guest, password: "guest-secret-0123" } ] }
}
`,
    );
    nats = new NatsServer(await freePort(), join(dir, 'nats'), ['-c', conf]);
    await nats.start();
    pane = await standIn(dir, 'accounts');
    sup = await supervise(join(dir, 'a'), pane, 'd1');
    edge = new FleetEdge({
      supervisor: sup,
      nats: nats.url,
      hostId: 'host-d',
      token: TOKEN,
      natsAuth: EDGE,
    });
    expect(await edge.firstAttempt()).toBeNull();
    view = new FleetView({ nats: nats.url, token: TOKEN, natsAuth: FLEET });
    expect(await view.firstAttempt()).toBeNull();
    await view.ready();
    await reachable(view, 'host-d');
  }, 60_000);

  afterAll(async () => {
    await view?.stop();
    await edge?.stop();
    await sup?.stop();
    await pane?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('serves the fleet to paneward logged in with its users', async () => {
    await until(
      'host-d/d1 ready',
      async () => (view.get('host-d/d1').readiness.status === 'ready' ? true : undefined),
      60_000,
    );
    const marker = `ACCOUNT-${Date.now()}`;
    const turnId = await view.submit('host-d/d1', marker);
    await until(
      'the prompt typed',
      async () => ((await scrollback(pane)).includes(marker) ? true : undefined),
      20_000,
    );
    expect(turnId).toMatch(/^turn-/);
  }, 90_000);

  it('refuses a client without credentials, and shows another account nothing', async () => {
    await expect(connect({ servers: nats.url, timeout: 3000 })).rejects.toThrow(
      /Authorization Violation/,
    );
    const guest = await connect({
      servers: nats.url,
      user: 'guest',
      pass: 'guest-secret-0123',
      timeout: 3000,
    });
    try {
      // Another account: no JetStream of paneward's, no edge behind the command subject.
      await expect(jetstreamManager(guest, { timeout: 2000 })).rejects.toThrow(
        /JetStream not enabled/,
      );
      const kv = await new Kvm(jetstream(guest, { timeout: 2000 })).open('paneward_state');
      await expect(kv.get('host-d.d1')).rejects.toThrow();
      // The same read as the fleet's own user sees the pane's state.
      const own = await connect({
        servers: nats.url,
        ...{ user: FLEET.user, pass: FLEET.password },
      });
      try {
        const mine = await new Kvm(jetstream(own)).open('paneward_state');
        expect((await mine.get('host-d.d1'))?.string()).toContain('"terminalId":"d1"');
      } finally {
        await own.close();
      }
      await expect(
        guest.request(commandSubject('host-d'), '{}', { timeout: 2000 }),
      ).rejects.toThrow(/no responders/);
    } finally {
      await guest.close();
    }
  });

  it('says why NATS refuses an edge or fleet server without its credentials, and serve does not start', async () => {
    const noCreds = new FleetView({ nats: nats.url, token: TOKEN });
    try {
      const refusal = await noCreds.firstAttempt();
      expect(refusal).toMatch(/^NATS refused the credentials \(Authorization Violation\)/);
      expect(noCreds.healthDetails()).toMatchObject({
        fleet: { nats: { connected: false, refusal } },
      });
    } finally {
      await noCreds.stop();
    }
    const wrongPassword = new FleetView({
      nats: nats.url,
      natsAuth: { user: FLEET.user, password: 'not-the-password' },
    });
    try {
      expect(await wrongPassword.firstAttempt()).toMatch(/NATS refused the credentials/);
    } finally {
      await wrongPassword.stop();
    }

    const passwordFile = join(dir, 'fleet.password');
    writeFileSync(passwordFile, `${FLEET.password}\n`);
    const base = { fleet: true, nats: nats.url, port: 0, logLevel: 'silent' };
    await expect(startServe({ ...base })).rejects.toMatchObject({
      code: 'unauthorized',
      message: expect.stringMatching(/`nats`: NATS refused the credentials .*--nats-user/),
    });
    // An edge refused by NATS does not start either, and leaves its data directory free.
    const edgeOpts = {
      nats: nats.url,
      hostId: 'host-e',
      dataDir: join(dir, 'e'),
      socketName: `pw-fleet-${process.pid}-auth-none`,
      discover: false,
      port: 0,
      logLevel: 'silent',
      fleetTokenFile: passwordFile,
    };
    await expect(startServe(edgeOpts)).rejects.toMatchObject({
      code: 'unauthorized',
      message: expect.stringContaining('NATS refused the credentials'),
    });
    const edgePassword = join(dir, 'edge.password');
    writeFileSync(edgePassword, EDGE.password);
    const servedEdge = await startServe({
      ...edgeOpts,
      natsUser: EDGE.user,
      natsPasswordFile: edgePassword,
    });
    await servedEdge.stop();
    const running = await startServe({
      ...base,
      natsUser: FLEET.user,
      natsPasswordFile: passwordFile,
    });
    try {
      const health = (await (await fetch(`${running.url}/healthz`)).json()) as {
        fleet: { nats: { connected: boolean } };
      };
      expect(health.fleet.nats.connected).toBe(true);
    } finally {
      await running.stop();
    }
  }, 40_000);

  it('refuses NATS options that do not go together, naming the option', async () => {
    for (const [opts, field, words] of [
      [{ natsUser: 'u', port: 0 }, 'natsUser', /--nats-user needs --nats URL/],
      [
        { nats: nats.url, fleet: true, natsUser: 'u', natsCreds: '/x' },
        'natsCreds',
        /cannot be combined with --nats-user/,
      ],
      [
        { nats: nats.url, fleet: true, natsCert: '/x' },
        'natsKey',
        /--nats-key is needed: a client certificate goes with its key/,
      ],
      [
        { nats: nats.url, fleet: true, natsCreds: join(dir, 'no-such.creds') },
        'natsCreds',
        /cannot read/,
      ],
      [
        { nats: nats.url, fleet: true, natsUser: 'u', port: 0 },
        'natsPasswordFile',
        /needs its password/,
      ],
    ] as const) {
      await expect(startServe({ ...opts }), JSON.stringify(opts)).rejects.toMatchObject({
        code: 'invalid_input',
        message: expect.stringMatching(new RegExp(`\`${field}\`[^]*${words.source}`)),
      });
    }
  });
});

describe('NATS over TLS with a token', () => {
  let dir: string;
  let nats: NatsServer;
  let ca: string;
  const NATS_TOKEN = 'nats-token-0123456789';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-fleet-tls-'));
    const at = (f: string) => join(dir, f);
    ca = at('ca.pem');
    const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
    // A CA of its own, and the server's certificate for 127.0.0.1 signed by it.
    openssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=pw-test-ca',
      '-keyout',
      at('ca.key'),
      '-out',
      ca,
    );
    openssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      '/CN=127.0.0.1',
      '-keyout',
      at('server.key'),
      '-out',
      at('server.csr'),
    );
    writeFileSync(at('san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
    openssl(
      'x509',
      '-req',
      '-in',
      at('server.csr'),
      '-CA',
      ca,
      '-CAkey',
      at('ca.key'),
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      at('san.ext'),
      '-out',
      at('server.pem'),
    );
    writeFileSync(
      at('nats.conf'),
      `tls { cert_file: "${at('server.pem')}", key_file: "${at('server.key')}" }
authorization { token: "${NATS_TOKEN}" }
`,
    );
    nats = new NatsServer(await freePort(), at('nats'), ['-c', at('nats.conf')]);
    await nats.start();
  }, 60_000);

  afterAll(async () => {
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('connects an edge and a fleet view with the CA and the token; without the CA it says why', async () => {
    const sup = createSupervisor({
      socketName: `pw-fleet-${process.pid}-tls-none`,
      dataDir: join(dir, 'a'),
      profiles: { stand_in: standInProfile },
    });
    const natsAuth = { token: NATS_TOKEN, tls: { caFile: ca } };
    const edge = new FleetEdge({
      supervisor: sup,
      nats: `tls://127.0.0.1:${nats.port}`,
      hostId: 'host-t',
      token: TOKEN,
      natsAuth,
    });
    const view = new FleetView({ nats: `tls://127.0.0.1:${nats.port}`, token: TOKEN, natsAuth });
    const untrusted = new FleetView({
      nats: `tls://127.0.0.1:${nats.port}`,
      natsAuth: { token: NATS_TOKEN },
    });
    try {
      expect(await edge.firstAttempt()).toBeNull();
      expect(await view.firstAttempt()).toBeNull();
      await view.ready();
      await reachable(view, 'host-t');
      // A signed command crosses TLS and is answered by the edge's supervisor (no such pane).
      await expect(
        view.attach({ host: 'host-t', target: '%999', tool: 'stand_in' }),
      ).rejects.toMatchObject({
        code: 'invalid_input',
        message: expect.stringContaining('target'),
      });
      expect(edge.status()).toMatchObject({ commands: 1, refusedCommands: 0 });
      expect(await untrusted.firstAttempt()).toMatch(
        /^the TLS connection to NATS failed .*--nats-ca/,
      );
    } finally {
      await untrusted.stop();
      await view.stop();
      await edge.stop();
      await sup.stop();
    }
  }, 40_000);
});
