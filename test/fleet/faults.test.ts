// Three edge supervisors (separate processes, each with its own tmux server and stand-in agent
// panes) and one fleet server, on a real nats-server with JetStream. Under load, one edge is
// killed with SIGKILL and restarted, NATS is stopped for 30 s and started again, and one edge is
// cut off from NATS and let back. Afterwards every journal record of every edge is in the stream
// exactly once, the fleet's state of each terminal equals its edge's, and the commands sent to
// the fleet during each outage failed with a clear error and never ran.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journalDir, readRecords } from '../../src/journal/segments.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT } from '../supervisor/internal/stand-in-profile.js';
import {
  api,
  BIN,
  freePort,
  NatsServer,
  PROFILES,
  Proxy,
  readStream,
  Serve,
  until,
} from './internal/harness.js';
import type { Host, Edge } from './internal/faulted-fleet.js';
import { HOSTS, PANES, OUTAGE_MS, enc, comparable } from './internal/faulted-fleet.js';

describe('a fleet of three edges on a real nats-server, under faults', () => {
  let dir: string;
  let nats: NatsServer;
  let fleet: Serve;
  const edges = new Map<Host, Edge>();
  let loadOn = false;
  let load: Promise<void> = Promise.resolve();
  const typed = { load: 0 };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-fleet-faults-'));
    nats = new NatsServer(await freePort(), join(dir, 'nats'));
    await nats.start();
    for (const host of HOSTS) {
      const socketName = `pw-fleet-${process.pid}-${host}`;
      const sessions: AgentSession[] = [];
      for (let i = 0; i < PANES; i++) {
        sessions.push(
          await startAgentSession({
            socketName,
            sessionName: `pw${i}`,
            cwd: dir,
            env: { STAND_IN_WORK_MS: '400' },
            command: [process.execPath, STAND_IN_AGENT],
          }),
        );
      }
      const proxy = new Proxy(() => nats.port);
      await proxy.start();
      const dataDir = join(dir, host);
      const serve = new Serve(await freePort(), [
        '--data-dir',
        dataDir,
        '-L',
        socketName,
        '--no-discover',
        '--poll-interval',
        '0.2',
        '--nats',
        `nats://127.0.0.1:${proxy.port}`,
        '--host-id',
        host,
        '--profile-module',
        PROFILES,
        ...(process.env.PW_FLEET_DEBUG ? ['--log-level', 'debug'] : []),
      ]);
      edges.set(host, { host, dataDir, sessions, proxy, serve });
    }
    await Promise.all([...edges.values()].map((e) => e.serve.start()));
    fleet = new Serve(await freePort(), ['--fleet', '--nats', nats.url]);
    await fleet.start();
  }, 120_000);

  afterAll(async () => {
    if (process.env.PW_FLEET_DEBUG) {
      for (const e of edges.values()) console.log(`--- ${e.host}\n${e.serve.log}`);
      console.log(`--- fleet\n${fleet?.log}`);
    }
    loadOn = false;
    await load;
    await fleet?.stop();
    for (const e of edges.values()) {
      await e.serve.stop();
      await e.proxy.close();
      await e.sessions[0]?.close();
    }
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  /** Types a prompt into every ready pane of every running edge, through the edge's own API. */
  const drive = async () => {
    while (loadOn) {
      await Promise.all(
        [...edges.values()].map(async (e) => {
          if (!e.serve.child) return;
          try {
            const { body } = await api(e.serve.url, 'GET', '/v1/terminals', undefined, 3000);
            for (const t of body.terminals as Array<{
              terminalId: string;
              operations: { sendInput: { allowed: string } };
            }>) {
              if (t.operations.sendInput.allowed !== 'yes') continue;
              const r = await api(
                e.serve.url,
                'POST',
                `/v1/terminals/${t.terminalId}/input`,
                { text: `load ${++typed.load}` },
                3000,
              );
              void r;
            }
          } catch {
            // The edge is being killed or restarted.
          }
        }),
      );
      await new Promise((r) => setTimeout(r, 300));
    }
  };

  const fleetTerminals = async () =>
    (await api(fleet.url, 'GET', '/v1/terminals')).body.terminals as Array<
      Record<string, unknown> & {
        terminalId: string;
        host: { id: string; reachable: boolean; reason: string | null };
        diagnostics: { availability: string; error: { kind: string; message: string } | null };
      }
    >;

  const hostReachable = (host: Host, reachable: boolean) =>
    until(
      `${host} ${reachable ? 'reachable' : 'unreachable'} in the fleet`,
      async () => {
        const mine = (await fleetTerminals()).filter((t) => t.host.id === host);
        if (mine.length !== PANES) return undefined;
        const ok = mine.every((t) =>
          reachable
            ? t.host.reachable && t.diagnostics.availability === 'available'
            : !t.host.reachable &&
              t.host.reason === 'host_unreachable' &&
              t.diagnostics.availability === 'unavailable' &&
              t.diagnostics.error?.kind === 'host_unreachable',
        );
        return ok ? mine : undefined;
      },
      40_000,
      500,
    );

  /** A prompt sent through the fleet while its host cannot be reached: 503, never typed. */
  const refused = async (host: Host, marker: string, pattern: RegExp) => {
    const r = await api(fleet.url, 'POST', `/v1/terminals/${enc(`${host}/p0`)}/input`, {
      text: marker,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(503);
    expect(r.body.error.code).toBe('host_unreachable');
    expect(r.body.error.message).toMatch(pattern);
    return r.body.error.message as string;
  };

  it('loses no record, repeats none, converges to each edge state, and runs no command sent during an outage', async () => {
    const started = Date.now();
    // Panes: p0 of each host attached through the fleet (routed to its edge), p1 locally.
    for (const e of edges.values()) {
      await until(
        `${e.host} in the fleet`,
        async () => {
          const h = (await api(fleet.url, 'GET', '/healthz')).body.fleet.hosts as Array<{
            id: string;
            reachable: boolean;
          }>;
          return h.some((x) => x.id === e.host && x.reachable) ? true : undefined;
        },
        20_000,
      );
      if (e.host === 'host-b') {
        // As a person would: `paneward attach --host` through the fleet server.
        const { stdout } = await promisify(execFile)(
          process.execPath,
          [
            ...[BIN, 'attach', e.sessions[0]!.target, '--host', e.host],
            ...['--tool', 'stand_in', '--id', 'p0', '--url', fleet.url],
          ],
          { encoding: 'utf8', timeout: 60_000 },
        );
        expect(stdout.trim()).toBe(`host-b/p0 ${e.sessions[0]!.target} stand_in`);
      } else {
        const viaFleet = await api(fleet.url, 'POST', '/v1/terminals', {
          host: e.host,
          target: e.sessions[0]!.target,
          tool: 'stand_in',
          id: 'p0',
        });
        expect(viaFleet.status, JSON.stringify(viaFleet.body)).toBe(201);
        expect(viaFleet.body.terminalId).toBe(`${e.host}/p0`);
      }
      const local = await api(e.serve.url, 'POST', '/v1/terminals', {
        target: e.sessions[1]!.target,
        tool: 'stand_in',
        id: 'p1',
      });
      expect(local.status).toBe(201);
    }
    // The fleet refuses to attach without a host, naming the field.
    const noHost = await api(fleet.url, 'POST', '/v1/terminals', { target: 'pw0:0.0' });
    expect(noHost.status).toBe(400);
    expect(noHost.body.error.message).toContain('`host`');
    for (const host of HOSTS) await hostReachable(host, true);
    await until(
      'every pane ready in the fleet',
      async () =>
        (await fleetTerminals()).every(
          (t) => (t as { readiness?: { status: string } }).readiness?.status === 'ready',
        )
          ? true
          : undefined,
      20_000,
    );

    // `paneward send host-b/p0 ... --wait` through the fleet server answers the turn's outcome.
    const once = `ONCE-${Date.now()}`;
    // (Not execFileSync: the proxies in front of NATS live in this process.)
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [BIN, 'send', 'host-b/p0', once, '--wait', '--timeout', '60', '--url', fleet.url],
      { encoding: 'utf8', timeout: 90_000 },
    );
    // The turn id first (so a script that retries knows it was typed), then the outcome.
    const [turnLine, outcome] = stdout.trim().split('\n');
    expect(turnLine).toMatch(/^turn-\d+$/);
    expect(outcome).toBe(`${turnLine} success`);

    loadOn = true;
    load = drive();
    const marks: Array<{ host: Host; marker: string; message: string }> = [];

    // 1. kill -9 an edge, then restart it on the same data directory.
    const a = edges.get('host-a')!;
    await new Promise((r) => setTimeout(r, 3000));
    await a.serve.kill();
    // The server drops the dead edge's subscription as its connection closes.
    await new Promise((r) => setTimeout(r, 1000));
    const killMark = `MARK-KILL-${Date.now()}`;
    marks.push({
      host: 'host-a',
      marker: killMark,
      message: await refused('host-a', killMark, /host-a/),
    });
    await hostReachable('host-a', false);
    await a.serve.start();
    await hostReachable('host-a', true);

    // 2. NATS stopped for 30 s under load, then started again.
    await new Promise((r) => setTimeout(r, 2000));
    const beforeOutage = await Promise.all(
      [...edges.values()].map(
        async (e) => (await api(e.serve.url, 'GET', '/healthz')).body.journal.durableSeq as number,
      ),
    );
    await nats.stop();
    const outageStarted = Date.now();
    await until(
      'the fleet to notice NATS is gone',
      async () =>
        (await api(fleet.url, 'GET', '/healthz')).body.fleet.nats.connected ? undefined : true,
      15_000,
    );
    const natsMark = `MARK-NATS-${Date.now()}`;
    marks.push({
      host: 'host-b',
      marker: natsMark,
      message: await refused('host-b', natsMark, /no connection to NATS/),
    });
    await new Promise((r) => setTimeout(r, Math.max(0, OUTAGE_MS - (Date.now() - outageStarted))));
    // The edges went on supervising and journaling.
    const duringOutage = await Promise.all(
      [...edges.values()].map(
        async (e) => (await api(e.serve.url, 'GET', '/healthz')).body.journal.durableSeq as number,
      ),
    );
    duringOutage.forEach((seq, i) => expect(seq).toBeGreaterThan(beforeOutage[i]!));
    await nats.start();
    for (const host of HOSTS) await hostReachable(host, true);

    // 3. Cut one edge off from NATS, then let it back.
    const c = edges.get('host-c')!;
    c.proxy.cut();
    await hostReachable('host-c', false);
    const cutMark = `MARK-CUT-${Date.now()}`;
    marks.push({
      host: 'host-c',
      marker: cutMark,
      message: await refused('host-c', cutMark, /host-c is unreachable/),
    });
    await new Promise((r) => setTimeout(r, 3000));
    c.proxy.heal();
    await hostReachable('host-c', true);

    // Quiet: the load stops, every turn ends.
    loadOn = false;
    await load;
    await new Promise((r) => setTimeout(r, 2000));

    // The fleet's state of every terminal equals its edge's.
    await until(
      "the fleet's state to equal each edge's",
      async () => {
        const f = new Map((await fleetTerminals()).map((t) => [t.terminalId, t]));
        for (const e of edges.values()) {
          const local = (await api(e.serve.url, 'GET', '/v1/terminals')).body.terminals as Array<
            Record<string, unknown> & { terminalId: string }
          >;
          if (local.length !== PANES) return undefined;
          for (const s of local) {
            const mirrored = f.get(`${e.host}/${s.terminalId}`);
            if (!mirrored) return undefined;
            if (JSON.stringify(comparable(mirrored)) !== JSON.stringify(comparable(s))) {
              return undefined;
            }
          }
        }
        return f.size === HOSTS.length * PANES ? true : undefined;
      },
      30_000,
      500,
    );

    // Each edge stops (SIGTERM): it publishes what its journal holds before it exits. Then
    // every journal record of every edge is in the stream exactly once, as it was journaled.
    for (const e of edges.values()) {
      await e.serve.stop();
      expect(e.serve.lastExit, `${e.host} exit`).toEqual({ code: 0, signal: null });
    }
    const counts: Record<string, { journal: number; stream: number }> = {};
    const stream = await readStream(nats.url);
    for (const e of edges.values()) {
      const journal = readRecords(journalDir(e.dataDir), 0);
      const mine = stream.filter((m) => m.subject.split('.')[1] === e.host).map((m) => m.record);
      const seqs = mine.map((r) => r.seq);
      expect(new Set(seqs).size, `${e.host}: a record published twice`).toBe(seqs.length);
      expect(seqs, `${e.host}: stream order`).toEqual([...seqs].sort((x, y) => x - y));
      const bySeq = new Map(mine.map((r) => [r.seq, r]));
      for (const r of journal) expect(bySeq.get(r.seq), `${e.host} seq ${r.seq}`).toEqual(r);
      expect(mine.length).toBe(journal.length);
      counts[e.host] = { journal: journal.length, stream: mine.length };
    }

    // What was refused was never typed; what was sent once ran once.
    for (const m of marks) {
      const screens = await Promise.all(
        edges
          .get(m.host)!
          .sessions.map((s) => s.transport.run(['capture-pane', '-p', '-S', '-', '-t', s.target])),
      );
      expect(screens.join('\n'), m.marker).not.toContain(m.marker);
    }
    const b = await edges
      .get('host-b')!
      .sessions[0]!.transport.run([
        'capture-pane',
        '-p',
        '-S',
        '-',
        '-t',
        edges.get('host-b')!.sessions[0]!.target,
      ]);
    expect(b.match(new RegExp(`reply \\d+: ${once}`, 'g'))?.length, 'the prompt sent once').toBe(1);

    const total = stream.length;
    console.log(
      `fleet faults: ${total} stream messages; per host ${JSON.stringify(counts)}; ` +
        `${typed.load} load prompts; refused during outages: ${marks
          .map((m) => `${m.host}: "${m.message}"`)
          .join('; ')}; ${Math.round((Date.now() - started) / 1000)} s`,
    );
    expect(total).toBe(Object.values(counts).reduce((s, c) => s + c.stream, 0));
  }, 400_000);
});
