// A fleet host that stops answering is told as `gone`, once per terminal, and as `back` when it
// answers again: a real nats-server, an edge process (`paneward serve --nats --host-id`) over two
// panes of a stand-in agent on real tmux, a fleet server process with a webhook (a real HTTP
// receiver) and a command (a real program), and the edge stopped by its PID.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotifyEvent } from '../../src/schemas/notify.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../e2e/harness/session.js';
import { api, freePort, NatsServer, PROFILES, Serve, until } from '../fleet/internal/harness.js';
import { STAND_IN_AGENT } from '../supervisor/internal/stand-in-profile.js';
import { startReceiver } from './internal/receiver.js';

const CAPTURE = fileURLToPath(new URL('./internal/capture-event.mjs', import.meta.url));
/** The hosts bucket's expiry and the edge's heartbeat period (docs/fleet.md). */
const HEARTBEAT_TTL_MS = 10_000;
const HEARTBEAT_EVERY_MS = 2_500;
const TERMINALS = ['host-a/p0', 'host-a/p1'];

describe('a fleet host that stops answering is told', () => {
  let dir: string;
  let nats: NatsServer;
  const panes: AgentSession[] = [];
  let edge: Serve;
  let fleet: Serve;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  const events = () => rx.received.map((r) => NotifyEvent.parse(r.body));
  const ran = () =>
    existsSync(join(dir, 'exec.jsonl'))
      ? readFileSync(join(dir, 'exec.jsonl'), 'utf8')
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as { stdin: string; env: Record<string, string> })
      : [];
  const ofKind = (kind: string) => events().filter((e) => e.kind === kind);
  const reachable = async () => {
    const { body } = await api(fleet.url, 'GET', '/healthz');
    return (body.fleet.hosts as Array<{ id: string; reachable: boolean }>).find(
      (h) => h.id === 'host-a',
    )?.reachable;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-fleet-gone-'));
    nats = new NatsServer(await freePort(), join(dir, 'nats'));
    await nats.start();
    const socketName = uniqueSocketName('fleet-gone');
    for (const i of [0, 1]) {
      const pane = await startAgentSession({
        socketName,
        sessionName: `p${i}`,
        cwd: dir,
        env: {},
        command: [process.execPath, STAND_IN_AGENT],
      });
      await pane.waitForText(/❯/);
      panes.push(pane);
    }
    edge = new Serve(await freePort(), [
      '--data-dir',
      join(dir, 'host-a'),
      '-L',
      socketName,
      '--no-discover',
      '--poll-interval',
      '0.2',
      '--nats',
      nats.url,
      '--host-id',
      'host-a',
      '--profile-module',
      PROFILES,
    ]);
    await edge.start();
    for (const [i, pane] of panes.entries()) {
      const r = await api(edge.url, 'POST', '/v1/terminals', {
        target: pane.target,
        tool: 'stand_in',
        id: `p${i}`,
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    rx = await startReceiver();
    fleet = new Serve(await freePort(), [
      '--fleet',
      '--nats',
      nats.url,
      '--notify',
      rx.url,
      '--notify-exec',
      JSON.stringify([process.execPath, CAPTURE, join(dir, 'exec.jsonl')]),
    ]);
    await fleet.start();
    await until(
      'both terminals of host-a in the fleet, host-a reachable',
      async () => {
        const { body } = await api(fleet.url, 'GET', '/v1/terminals');
        const ids = (body.terminals as Array<{ terminalId: string }>).map((t) => t.terminalId);
        return TERMINALS.every((t) => ids.includes(t)) && (await reachable()) ? true : undefined;
      },
      30_000,
    );
  }, 120_000);

  afterAll(async () => {
    await fleet?.stop();
    await edge?.stop();
    await rx?.close();
    await panes[0]?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('killed: `gone` for each terminal once its heartbeat expires, naming the host and why; not repeated', async () => {
    expect(events()).toEqual([]);
    const pid = edge.child!.pid!;
    const killedAt = Date.now();
    // SIGKILL by its PID: the edge says no goodbye, its heartbeat only expires.
    await edge.kill();
    expect(() => process.kill(pid, 0)).toThrow();
    await rx.waitFor(2, HEARTBEAT_TTL_MS + 5_000);
    const gone = rx.received.slice(0, 2);
    for (const g of gone) {
      // Not before the heartbeat written last before the kill could expire; soon after it did.
      expect(g.at - killedAt).toBeGreaterThanOrEqual(HEARTBEAT_TTL_MS - HEARTBEAT_EVERY_MS - 500);
      expect(g.at - killedAt).toBeLessThanOrEqual(HEARTBEAT_TTL_MS + 3_000);
    }
    const told = gone.map((g) => NotifyEvent.parse(g.body));
    expect(told.map((e) => e.terminalId).sort()).toEqual(TERMINALS);
    for (const e of told) {
      expect(e).toMatchObject({
        version: 1,
        kind: 'gone',
        host: 'host-a',
        tool: 'stand_in',
        coalesced: 1,
        state: { availability: 'unavailable', readiness: 'unknown' },
      });
      expect(e.reason).toMatch(/^host host-a stopped answering: no heartbeat for \d+ s$/);
    }
    expect(await reachable()).toBe(false);
    // The command got the same events, with the reason in its variables.
    await until('two commands run', async () => (ran().length >= 2 ? true : undefined), 10_000);
    expect(
      ran()
        .map((r) => [r.env.PANEWARD_EVENT_KIND, r.env.PANEWARD_EVENT_TERMINAL])
        .sort(),
    ).toEqual(TERMINALS.map((t) => ['gone', t]));
    expect(ran()[0]!.env.PANEWARD_EVENT_REASON).toMatch(/^host host-a stopped answering/);
    expect(ran()[0]!.env.PANEWARD_EVENT_HOST).toBe('host-a');
    // Still gone a while later: told once, not again.
    await new Promise((r) => setTimeout(r, 5_000));
    expect(events().map((e) => e.kind)).toEqual(['gone', 'gone']);
    expect(ran()).toHaveLength(2);
  }, 60_000);

  it('started again: `back` once for each terminal; stopped by SIGTERM: `gone` at once, its edge stopped', async () => {
    await edge.start();
    await rx.waitFor(4, 20_000);
    const back = ofKind('back');
    expect(back.map((e) => e.terminalId).sort()).toEqual(TERMINALS);
    for (const e of back) {
      expect(e).toMatchObject({ host: 'host-a', reason: 'host host-a answers again' });
    }
    await new Promise((r) => setTimeout(r, 3_000));
    expect(events().map((e) => e.kind)).toEqual(['gone', 'gone', 'back', 'back']);

    // A stopping edge removes its heartbeat: the fleet knows at once, not after the expiry.
    const stoppedAt = Date.now();
    await edge.stop();
    await rx.waitFor(6, 8_000);
    const again = rx.received.slice(4);
    for (const g of again) expect(g.at - stoppedAt).toBeLessThan(HEARTBEAT_TTL_MS - 2_000);
    const told = again.map((g) => NotifyEvent.parse(g.body));
    expect(told.map((e) => [e.kind, e.terminalId]).sort()).toEqual(
      TERMINALS.map((t) => ['gone', t]),
    );
    for (const e of told) expect(e.reason).toBe('host host-a stopped answering: its edge stopped');
    await new Promise((r) => setTimeout(r, HEARTBEAT_TTL_MS + 1_000));
    expect(events()).toHaveLength(6);
  }, 60_000);

  it("the fleet server's own loss of NATS tells nothing of the hosts it could not see", async () => {
    await edge.start();
    await rx.waitFor(8, 20_000);
    expect(
      events()
        .slice(6)
        .map((e) => e.kind),
    ).toEqual(['back', 'back']);
    // NATS down for longer than a heartbeat's expiry: neither side hears the other.
    await nats.stop();
    await new Promise((r) => setTimeout(r, HEARTBEAT_TTL_MS + 2_000));
    await nats.start();
    await until(
      'host-a reachable again',
      async () => ((await reachable()) ? true : undefined),
      30_000,
    );
    // One more expiry (the edge may be heard later than the fleet server reconnects): still nothing.
    await new Promise((r) => setTimeout(r, HEARTBEAT_TTL_MS + 2_000));
    expect(events()).toHaveLength(8);
  }, 90_000);
});
