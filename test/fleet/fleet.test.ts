// The fleet view behind the HTTP app, and an edge answering commands, in one process on a real
// nats-server and real tmux panes of the stand-in agent.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FleetEdge } from '../../src/fleet/edge.js';
import { commandSubject } from '../../src/fleet/names.js';
import type { FleetView } from '../../src/fleet/view.js';
import { journalDir, readRecords } from '../../src/journal/segments.js';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import type { AgentSession } from '../e2e/harness/session.js';
import { standInProfile } from '../supervisor/internal/stand-in-profile.js';
import { type NatsServer, readStream, until } from './internal/harness.js';
import { LIMITS, startFleetView } from './internal/fleet-view.js';

const enc = encodeURIComponent;

describe('the fleet view serves the HTTP API for its hosts', () => {
  let dir: string;
  let nats: NatsServer;
  let panes: AgentSession[];
  let sup: Supervisor;
  let edge: FleetEdge;
  let view: FleetView;
  let http: HttpApp;
  let client: NatsConnection;

  const call = async (method: string, path: string, body?: unknown, headers = {}) => {
    const res = await http.app.request(path, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return res;
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of many shapes
  const json = async (res: Response): Promise<any> => res.json();
  const screen = (s: AgentSession) =>
    s.transport.run(['capture-pane', '-p', '-S', '-', '-t', s.target]);

  beforeAll(async () => {
    ({ dir, nats, panes, sup, edge, view, http, client } = await startFleetView());
  }, 60_000);

  afterAll(async () => {
    http?.close();
    await client?.close();
    await view?.stop();
    await edge?.stop();
    await sup?.stop();
    await panes?.[0]?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('attaches on the named host only, naming the field it refuses', async () => {
    for (const [body, field] of [
      [{ target: panes[0]!.target }, 'host'],
      [{ target: panes[0]!.target, host: 'host-z' }, 'host'],
      [{ target: panes[0]!.target, host: 'a.b' }, 'host'],
      [{ target: '%987', host: 'host-a' }, 'target'],
      [{ target: panes[0]!.target, host: 'host-a', tool: 'no_such_cli' }, 'tool'],
      [{ target: panes[0]!.target, host: 'host-a', extra: 1 }, 'extra'],
    ] as const) {
      const r = await call('POST', '/v1/terminals', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      const e = (await json(r)).error;
      expect(e.code).toBe('invalid_input');
      expect(e.message).toContain(`\`${field}\``);
    }
    const r = await call('POST', '/v1/terminals', {
      host: 'host-a',
      target: panes[0]!.target,
      tool: 'stand_in',
      id: 'f1',
    });
    expect(r.status).toBe(201);
    expect(await json(r)).toMatchObject({ terminalId: 'host-a/f1', tool: 'stand_in' });
    // A single server refuses the fleet's field.
    const local = createHttpApp(sup);
    const refused = await local.app.request('/v1/terminals', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: panes[1]!.target, host: 'host-a' }),
    });
    local.close();
    expect(refused.status).toBe(400);
    expect((await json(refused)).error.message).toContain('`host`');
  });

  it('reads state with its host and operations; 404 for what it does not know', async () => {
    const s = await until(
      'host-a/f1 ready in the fleet',
      async () => {
        const r = await json(await call('GET', `/v1/terminals/${enc('host-a/f1')}`));
        return r.readiness?.status === 'ready' ? r : undefined;
      },
      15_000,
    );
    expect(s.host).toMatchObject({ id: 'host-a', reachable: true, reason: null });
    expect(s.operations.sendInput.allowed).toBe('yes');
    expect(
      (await json(await call('GET', '/v1/terminals'))).terminals.map(
        (t: { terminalId: string }) => t.terminalId,
      ),
    ).toEqual(['host-a/f1']);
    for (const id of ['host-a/nope', 'host-z/f1', 'f1']) {
      const r = await call('GET', `/v1/terminals/${enc(id)}`);
      expect(r.status, id).toBe(404);
      expect((await json(r)).error.code).toBe('unknown_terminal');
    }
    const health = await json(await call('GET', '/healthz'));
    expect(health.fleet.nats.connected).toBe(true);
    expect(health.fleet.hosts).toEqual([
      expect.objectContaining({ id: 'host-a', reachable: true }),
    ]);
    // The fleet server observes no pane: its observer is none; each host reports its own.
    expect(health.observer).toBeNull();
    await until(
      "host-a's observer in its heartbeat",
      async () => {
        const h = (await json(await call('GET', '/healthz'))).fleet.hosts[0];
        return h.observer?.connection === 'connected' ? h.observer : undefined;
      },
      10_000,
    );
    const metrics = await (await call('GET', '/metrics')).text();
    expect(metrics).toContain('paneward_terminals{');
    expect(metrics).not.toContain('paneward_observer_lagging');
    // Per host: reachable, its heartbeat's age, what it has not published, its terminals.
    expect(metrics).toMatch(/^paneward_fleet_host_reachable\{host="host-a"\} 1$/m);
    expect(metrics).toMatch(/^paneward_fleet_host_heartbeat_age_seconds\{host="host-a"\} \d/m);
    expect(metrics).toMatch(/^paneward_fleet_host_unpublished_records\{host="host-a"\} \d+$/m);
    expect(metrics).toMatch(/^paneward_fleet_host_observer_lagging\{host="host-a"\} [01]$/m);
    expect(metrics).toMatch(
      new RegExp(
        `^paneward_fleet_host_terminals\\{host="host-a",readiness="${view.get('host-a/f1').readiness.status}"\\} 1$`,
        'm',
      ),
    );
    // A screen is asked of its host, as the dashboard's terminal page does.
    const shown = await json(await call('GET', `/v1/terminals/${enc('host-a/f1')}/screen`));
    expect(shown.text).toContain('❯');
    expect(shown.text).toBe((await sup.screen('f1'))?.text);
    expect((await call('GET', `/v1/terminals/${enc('host-a/nope')}/screen`)).status).toBe(404);
  });

  it('routes input and turns with the same 400 and 409 rules as a single server', async () => {
    const path = `/v1/terminals/${enc('host-a/f1')}`;
    const empty = await call('POST', `${path}/input`, { text: '' });
    expect(empty.status).toBe(400);
    expect((await json(empty)).error.message).toContain('`text`');
    const first = await call('POST', `${path}/input`, { text: 'first prompt' });
    expect(first.status).toBe(202);
    const { turnId } = await json(first);
    const second = await call('POST', `${path}/input`, { text: 'too soon' });
    expect(second.status).toBe(409);
    const e = (await json(second)).error;
    expect(e.code).toBe('not_ready');
    expect(JSON.stringify(e.details)).toMatch(/pendingTurnId|readiness/);
    await until(
      `${turnId} to end`,
      async () => {
        const s = await json(await call('GET', path));
        return s.lastTurn.turnId === turnId && s.operations.sendInput.allowed === 'yes'
          ? true
          : undefined;
      },
      15_000,
    );
    const turn = await call('POST', `${path}/turns`, {
      prompt: 'a whole turn',
      timeoutSeconds: 30,
    });
    expect(turn.status).toBe(200);
    const result = await json(turn);
    expect(result).toMatchObject({ result: 'completed', lastTurn: { result: 'success' } });
    expect(result.lastTurn.turnId).toBe(result.turnId);
    expect(await screen(panes[0]!)).not.toContain('too soon');
    // The turn has ended: the edge's gate refuses the interrupt, and the fleet says why.
    const interrupt = await call('POST', `${path}/interrupt`);
    expect(interrupt.status).toBe(409);
    expect((await json(interrupt)).error).toMatchObject({
      code: 'refused',
      details: { reason: 'no turn is running' },
    });
  });

  it('streams every host record with stream sequences as ids, resuming by Last-Event-ID', async () => {
    const read = async (headers: Record<string, string>, enough: (n: number) => boolean) => {
      const abort = new AbortController();
      const res = await http.app.request('/v1/events', { headers, signal: abort.signal });
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      const ids: number[] = [];
      const records: Array<{
        seq: number;
        host: string;
        hostSeq: number;
        terminalId: string | null;
      }> = [];
      while (!enough(ids.length)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const id = /^id: (\d+)$/m.exec(block);
          const data = /^data: (.*)$/m.exec(block);
          if (id && data) {
            ids.push(Number(id[1]));
            records.push(JSON.parse(data[1]!));
          }
        }
      }
      abort.abort();
      await reader.cancel().catch(() => {});
      return { ids, records };
    };
    const total = view.journal.durableSeq;
    const first = await read({}, (n) => n >= 10);
    expect(first.ids).toEqual(Array.from({ length: first.ids.length }, (_, i) => i + 1));
    for (const r of first.records) {
      expect(r.host).toBe('host-a');
      if (r.terminalId !== null) expect(r.terminalId).toMatch(/^host-a\//);
    }
    const rest = await read(
      { 'last-event-id': String(first.ids.at(-1)) },
      (n) => n + first.ids.length >= total,
    );
    expect([...first.ids, ...rest.ids]).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    // hostSeq is the edge journal's seq: each once, in order.
    const hostSeqs = [...first.records, ...rest.records].map((r) => r.hostSeq);
    expect(hostSeqs).toEqual([...hostSeqs].sort((a, b) => a - b));
    expect(new Set(hostSeqs).size).toBe(hostSeqs.length);
    const history = await json(
      await call('GET', `/v1/terminals/${enc('host-a/f1')}/history?limit=5`),
    );
    expect(history.records).toHaveLength(5);
    expect(history.records.every((r: { terminalId: string }) => r.terminalId === 'host-a/f1')).toBe(
      true,
    );
  });

  it('an edge validates a command as the HTTP API does, runs a repeated request once, and drops a late one', async () => {
    const ask = async (req: Record<string, unknown>, timeout = 5000) =>
      (await client.request(commandSubject('host-a'), JSON.stringify(req), { timeout })).json() as {
        ok: boolean;
        value?: { turnId: string };
        error?: { code: string; message: string };
      };
    const base = { expiresAt: Date.now() + 10_000 };
    const bad = await ask({
      ...base,
      requestId: 'request-bad-1',
      op: 'input',
      id: 'f1',
      body: { text: 5 },
    });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(bad.error!.message).toContain('`body.text`');
    const unknown = await ask({ ...base, requestId: 'request-unk-1', op: 'interrupt', id: 'nope' });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'unknown_terminal' } });
    const marker = `TWICE-${Date.now()}`;
    const req = {
      ...base,
      requestId: `request-${marker}`,
      op: 'input',
      id: 'f1',
      body: { text: marker },
    };
    const [a, b] = [await ask(req), await ask(req)];
    expect(a.ok).toBe(true);
    expect(b).toEqual(a);
    const late = `LATE-${Date.now()}`;
    await expect(
      ask(
        {
          requestId: `request-${late}`,
          expiresAt: Date.now() - 60_000,
          op: 'input',
          id: 'f1',
          body: { text: late, force: true },
        },
        1500,
      ),
    ).rejects.toThrow();
    await until(
      'the repeated prompt to be answered',
      async () => ((await screen(panes[0]!)).includes(`: ${marker}`) ? true : undefined),
      10_000,
    );
    const text = await screen(panes[0]!);
    expect(text.split(marker).length - 1, 'typed once (echo and reply)').toBe(2);
    expect(text).not.toContain(late);
  });

  it('shows a stopped edge at once, and a new edge resumes from the stream when its cursor is lost past the duplicate window', async () => {
    await edge.stop();
    await until(
      'host-a unreachable',
      async () => {
        const h = view.hostViews().find((x) => x.id === 'host-a');
        return h && !h.reachable ? true : undefined;
      },
      5_000,
      100,
    );
    const s = await json(await call('GET', `/v1/terminals/${enc('host-a/f1')}`));
    expect(s.diagnostics).toMatchObject({
      availability: 'unavailable',
      error: { kind: 'host_unreachable', message: 'host host-a is unreachable: its edge stopped' },
    });
    expect(s.operations.sendInput).toEqual({
      allowed: 'no',
      reason: 'host host-a is unreachable: its edge stopped',
    });
    const refused = await call('POST', `/v1/terminals/${enc('host-a/f1')}/input`, { text: 'x' });
    expect(refused.status).toBe(503);
    expect((await json(refused)).error.code).toBe('host_unreachable');
    const metrics = await (await call('GET', '/metrics')).text();
    expect(metrics).toMatch(/^paneward_fleet_host_reachable\{host="host-a"\} 0$/m);
    expect(metrics).not.toMatch(/^paneward_fleet_host_observer_lagging\{host="host-a"\}/m);

    // Records made while no edge publishes; the cursor is lost; the duplicate window passes.
    await sup.attach({ target: panes[1]!.target, tool: 'stand_in', id: 'f2' });
    const cursor = join(dir, 'a', 'fleet', 'host-a.cursor.json');
    expect(existsSync(cursor)).toBe(true);
    rmSync(cursor);
    await new Promise((r) => setTimeout(r, 1500));
    edge = new FleetEdge({ supervisor: sup, nats: nats.url, hostId: 'host-a', limits: LIMITS });
    await until(
      'the new edge to catch up',
      async () => (edge.status().publishedSeq >= sup.journal.durableSeq ? true : undefined),
      15_000,
    );
    const journal = readRecords(journalDir(join(dir, 'a')), 0);
    const stream = (await readStream(nats.url)).filter((m) =>
      m.subject.startsWith('paneward.host-a.'),
    );
    expect(stream.map((m) => m.record.seq)).toEqual(journal.map((r) => r.seq));
    await until(
      'host-a/f2 in the fleet',
      async () => (view.ids().includes('host-a/f2') ? true : undefined),
      10_000,
    );

    // Another data directory calling itself host-a publishes nothing.
    const other = createSupervisor({
      socketName: 'pw-fleet-none',
      dataDir: join(dir, 'other'),
      profiles: { stand_in: standInProfile },
    });
    const impostor = new FleetEdge({
      supervisor: other,
      nats: nats.url,
      hostId: 'host-a',
      limits: LIMITS,
    });
    await new Promise((r) => setTimeout(r, 2000));
    expect(impostor.status().publishedSeq).toBe(0);
    await impostor.stop();
    await other.stop();
    const after = (await readStream(nats.url)).filter((m) =>
      m.subject.startsWith('paneward.host-a.'),
    );
    const seqs = after.map((m) => m.record.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
  }, 60_000);

  it('refuses what an edge cannot be given', () => {
    expect(() => new FleetEdge({ supervisor: sup, nats: nats.url, hostId: 'a.b' })).toThrow(
      /`hostId`/,
    );
    const memory = createSupervisor({ dataDir: null, socketName: 'pw-fleet-none' });
    expect(() => new FleetEdge({ supervisor: memory, nats: nats.url, hostId: 'h' })).toThrow(
      /durable journal/,
    );
    void memory.stop();
  });
});
