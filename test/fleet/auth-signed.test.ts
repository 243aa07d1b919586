// A locked fleet on a real nats-server and a real tmux pane of the stand-in agent: commands are
// signed with the fleet token and an edge refuses any other before it looks at them.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitFor } from '../../src/cli/client-api.js';
import { startServe } from '../../src/cli/serve.js';
import { SIGNATURE_HEADER, signCommand } from '../../src/fleet/auth.js';
import { FleetEdge, loopbackNats } from '../../src/fleet/edge.js';
import { commandSubject } from '../../src/fleet/names.js';
import { FleetView } from '../../src/fleet/view.js';
import type { Supervisor } from '../../src/index.js';
import { createHttpApp } from '../../src/server/app.js';
import type { AgentSession } from '../e2e/harness/session.js';
import { freePort, NatsServer, until } from './internal/harness.js';
import {
  reachable,
  type Reply,
  scrollback,
  sleep,
  standIn,
  supervise,
  TOKEN,
  WRONG,
} from './internal/locked-fleet.js';

describe('commands over NATS are signed with the fleet token', () => {
  let dir: string;
  let nats: NatsServer;
  let pane: AgentSession;
  let sup: Supervisor;
  let edge: FleetEdge;
  let view: FleetView;
  let attacker: NatsConnection;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-fleet-auth-'));
    nats = new NatsServer(await freePort(), join(dir, 'nats'));
    await nats.start();
    pane = await standIn(dir, 'signed');
    sup = await supervise(join(dir, 'a'), pane, 'a1');
    edge = new FleetEdge({ supervisor: sup, nats: nats.url, hostId: 'host-a', token: TOKEN });
    view = new FleetView({ nats: nats.url, token: TOKEN });
    await view.ready();
    await reachable(view, 'host-a');
    await until(
      'host-a/a1 ready',
      async () => (view.get('host-a/a1').readiness.status === 'ready' ? true : undefined),
      45_000,
    );
    // Anyone who can reach NATS: a plain client, no paneward code.
    attacker = await connect({ servers: nats.url });
  }, 120_000);

  afterAll(async () => {
    await attacker?.close();
    await view?.stop();
    await edge?.stop();
    await sup?.stop();
    await pane?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  const request = async (body: Record<string, unknown>, header?: string): Promise<Reply> => {
    const h = headers();
    if (header !== undefined) h.set(SIGNATURE_HEADER, header);
    const msg = await attacker.request(commandSubject('host-a'), JSON.stringify(body), {
      timeout: 5000,
      ...(header !== undefined ? { headers: h } : {}),
    });
    return msg.json<Reply>();
  };
  const envelope = (extra: Record<string, unknown>) => ({
    requestId: `attack-${Math.random().toString(36).slice(2)}`,
    expiresAt: Date.now() + 10_000,
    ...extra,
  });

  it('refuses an unsigned command with the reason, typing nothing and reading no screen', async () => {
    const before = edge.status();
    const marker = `UNSIGNED-${Date.now()}`;
    const typed = await request(
      envelope({ op: 'input', id: 'a1', body: { text: marker, force: true } }),
    );
    expect(typed).toEqual({
      ok: false,
      error: {
        code: 'unauthorized',
        message: expect.stringContaining(`carries no ${SIGNATURE_HEADER} header`),
        details: null,
      },
    });
    const read = await request(envelope({ op: 'screen', id: 'a1' }));
    expect(read.ok).toBe(false);
    expect(read.error!.code).toBe('unauthorized');
    expect(read).not.toHaveProperty('value');
    // A made-up signature, and one that is not even of the scheme.
    for (const forged of ['v1=AAAA', 'v1=' + 'A'.repeat(43), TOKEN]) {
      const r = await request(
        envelope({ op: 'input', id: 'a1', body: { text: marker, force: true } }),
        forged,
      );
      expect(r.error, forged).toMatchObject({
        code: 'unauthorized',
        message: expect.stringContaining('does not match'),
      });
    }
    // The stand-in echoes a prompt within milliseconds: give it time to show one.
    await sleep(1500);
    expect(await scrollback(pane)).not.toContain(marker);
    const after = edge.status();
    expect(after.commands).toBe(before.commands);
    expect(after.refusedCommands - before.refusedCommands).toBe(5);
  });

  it('refuses a command signed with another token, or for another host, and the fleet server says so', async () => {
    const marker = `WRONG-${Date.now()}`;
    const body = JSON.stringify(
      envelope({ op: 'input', id: 'a1', body: { text: marker, force: true } }),
    );
    const subject = commandSubject('host-a');
    for (const signature of [
      signCommand(WRONG, subject, body),
      // The right token for another host's subject: a signature seen there does not carry here.
      signCommand(TOKEN, commandSubject('host-b'), body),
    ]) {
      const h = headers();
      h.set(SIGNATURE_HEADER, signature);
      const r = (
        await attacker.request(subject, body, { timeout: 5000, headers: h })
      ).json<Reply>();
      expect(r.error).toMatchObject({
        code: 'unauthorized',
        message: expect.stringContaining('does not match'),
      });
    }

    // A fleet server with another token: 502 host_refused through the API, nothing typed.
    const wrong = new FleetView({ nats: nats.url, token: WRONG });
    const tokenless = new FleetView({ nats: nats.url });
    try {
      await wrong.ready();
      await tokenless.ready();
      await reachable(wrong, 'host-a');
      await reachable(tokenless, 'host-a');
      const http = createHttpApp(wrong);
      const res = await http.app.request(`/v1/terminals/${encodeURIComponent('host-a/a1')}/input`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: marker, force: true }),
      });
      http.close();
      expect(res.status).toBe(502);
      const e = ((await res.json()) as { error: { code: string; message: string } }).error;
      expect(e.code).toBe('host_refused');
      expect(e.message).toMatch(/host host-a refused the input command \(nothing was run\)/);
      expect(exitFor(res.status, e.code), 'the client commands: unauthorized').toBe(6);
      await expect(wrong.screen('host-a/a1')).rejects.toMatchObject({ code: 'host_refused' });
      await expect(tokenless.submit('host-a/a1', marker, { force: true })).rejects.toMatchObject({
        code: 'host_refused',
        message: expect.stringContaining('this fleet server has no fleet token'),
      });
    } finally {
      await wrong.stop();
      await tokenless.stop();
    }
    await sleep(1500);
    expect(await scrollback(pane)).not.toContain(marker);
  }, 40_000);

  it('runs a command signed with the fleet token: typed once, its screen read', async () => {
    const marker = `SIGNED-${Date.now()}`;
    const before = edge.status().commands;
    const turnId = await view.submit('host-a/a1', marker);
    expect(turnId).toMatch(/^turn-/);
    const result = await view.waitForTurn('host-a/a1', turnId, { timeoutMs: 15_000 });
    expect(result.result).toBe('completed');
    const screen = await view.screen('host-a/a1');
    expect(screen?.text).toContain(marker);
    expect((await scrollback(pane)).split(marker).length - 1, 'echo and reply').toBe(2);
    expect(edge.status().commands - before).toBe(3);
  }, 30_000);

  it('carries a completion observer’s ending to the host signed, and its refusal back', async () => {
    const unsigned = await request(
      envelope({
        op: 'observe',
        id: 'a1',
        body: { observer: 'ci', turnId: 'turn-1', reason: 'success' },
      }),
    );
    expect(unsigned.error).toMatchObject({ code: 'unauthorized' });
    // A turn that is not the open one: the host's 409 comes back through the fleet as it is.
    await expect(
      view.observerEnding('host-a/a1', { observer: 'ci', turnId: 'turn-999', reason: 'success' }),
    ).rejects.toMatchObject({
      code: 'refused',
      details: expect.objectContaining({ reason: 'not_current_turn' }),
    });
    // A turn held open at a permission prompt takes the observer's ending.
    const turnId = await view.submit('host-a/a1', 'ask: may the observer judge this?');
    await until(
      'the permission prompt',
      async () =>
        view.get('host-a/a1').surface.blockedPrompt === 'tool_permission' ? true : undefined,
      15_000,
    );
    const answer = await view.observerEnding('host-a/a1', {
      observer: 'ci',
      turnId,
      reason: 'known_failure',
      kind: 'denied_by_policy',
    });
    expect(answer).toEqual({ terminalId: 'host-a/a1', turnId, taken: 'turn_ended' });
    await pane.sendText('n');
    await pane.sendKeys('Enter');
    await until(
      'the observer’s outcome',
      async () => {
        const last = view.get('host-a/a1').lastTurn;
        return last.turnId === turnId && last.result !== 'none' ? last : undefined;
      },
      15_000,
    ).then((last) => expect(last).toMatchObject({ result: 'known_failure', witness: 'observer' }));
  }, 45_000);

  it('tells loopback NATS from any other', () => {
    for (const url of [
      'nats://127.0.0.1:4222',
      '127.0.0.1',
      'nats://user:pw@localhost:4222',
      'tls://[::1]:4222,nats://127.0.0.2:4223',
    ]) {
      expect(loopbackNats(url), url).toBe(true);
    }
    for (const url of [
      'nats://10.0.0.5:4222',
      'tls://nats.example.com:4222',
      'nats://127.0.0.1:4222,nats://nats.example.com:4222',
      'nats://127.0.0.1.example.com:4222',
    ]) {
      expect(loopbackNats(url), url).toBe(false);
    }
  });

  it('refuses an edge on a NATS off loopback without a fleet token, and a short token', () => {
    expect(
      () => new FleetEdge({ supervisor: sup, nats: 'nats://10.1.2.3:4222', hostId: 'host-x' }),
    ).toThrow(/field `token`: an edge on a NATS that is not on loopback/);
    expect(
      () => new FleetEdge({ supervisor: sup, nats: nats.url, hostId: 'host-x', token: 'short' }),
    ).toThrow(/field `token`: the fleet token must be at least 16 characters/);
  });
});

describe('serve with a bearer token: its edge takes only commands signed with it', () => {
  it('refuses a plain client and runs what the fleet server (same token file) sends', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pw-fleet-serve-token-'));
    const nats = new NatsServer(await freePort(), join(dir, 'nats'));
    const parts: Array<() => Promise<void>> = [];
    try {
      await nats.start();
      const pane = await standIn(dir, 'served');
      parts.push(() => pane.close());
      const tokenFile = join(dir, 'token');
      writeFileSync(tokenFile, `${TOKEN}\n`);
      const common = { port: 0, logLevel: 'silent', tokenFile, nats: nats.url };
      const edge = await startServe({
        ...common,
        hostId: 'host-s',
        dataDir: join(dir, 's'),
        socketName: pane.socketName,
        discover: false,
        profileModule: fileURLToPath(new URL('./internal/profiles.ts', import.meta.url)),
      });
      parts.push(() => edge.stop());
      await edge.supervisor!.attach({ target: pane.target, tool: 'stand_in', id: 's1' });
      const fleet = await startServe({ ...common, fleet: true });
      parts.push(() => fleet.stop());
      const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
      const id = encodeURIComponent('host-s/s1');
      await until(
        'host-s/s1 ready through the fleet server',
        async () => {
          const r = await fetch(`${fleet.url}/v1/terminals/${id}`, { headers: auth });
          const s = (await r.json()) as { readiness?: { status: string } };
          return s.readiness?.status === 'ready' ? true : undefined;
        },
        20_000,
      );

      const plain = await connect({ servers: nats.url });
      const refused = await plain.request(
        commandSubject('host-s'),
        JSON.stringify({
          requestId: 'plain-client-1',
          expiresAt: Date.now() + 10_000,
          op: 'input',
          id: 's1',
          body: { text: 'PLAIN-CLIENT', force: true },
        }),
        { timeout: 5000 },
      );
      await plain.close();
      expect(refused.json<Reply>().error).toMatchObject({ code: 'unauthorized' });

      const marker = `SERVED-${Date.now()}`;
      const sent = await fetch(`${fleet.url}/v1/terminals/${id}/input`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ text: marker }),
      });
      expect(sent.status).toBe(202);
      await until(
        'the prompt typed',
        async () => ((await scrollback(pane)).includes(marker) ? true : undefined),
        10_000,
      );
      expect(await scrollback(pane)).not.toContain('PLAIN-CLIENT');
    } finally {
      for (const stop of parts.reverse()) await stop().catch(() => {});
      await nats.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
