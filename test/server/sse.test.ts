import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { journalDir, readRecords } from '../../src/journal/segments.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT } from '../supervisor/internal/stand-in-profile.js';

interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
}

/** Reads SSE events from a URL until `stop` says so, then aborts the connection. */
async function readEvents(
  url: string,
  headers: Record<string, string>,
  stop: (events: SseEvent[]) => boolean,
  ms = 20_000,
): Promise<SseEvent[]> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), ms);
  const events: SseEvent[] = [];
  try {
    const res = await fetch(url, { headers, signal: abort.signal });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const ev: SseEvent = {};
        for (const line of block.split('\n')) {
          const at = line.indexOf(':');
          if (at <= 0) continue;
          (ev as Record<string, string>)[line.slice(0, at)] = line.slice(at + 1).trimStart();
        }
        events.push(ev);
        if (stop(events)) return events;
      }
    }
  } catch (error) {
    if (!abort.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return events;
}

const seqs = (events: SseEvent[]) =>
  events.filter((e) => e.id !== undefined).map((e) => Number(e.id));

describe('events over SSE, in process', () => {
  let sup: Supervisor;
  let http: HttpApp;
  let server: Server;
  let base: string;
  let dir: string;
  const bulk = async (n: number) => {
    for (let i = 0; i < n; i++)
      void sup.journal.append({ kind: 'supervisor.started', terminalId: null, pid: i });
    await sup.journal.flush();
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-sse-'));
    sup = createSupervisor({ dataDir: join(dir, 'data'), socketName: 'pw-sse-none' });
    http = createHttpApp(sup, {
      sse: { heartbeatMs: 200, maxLagRecords: 50, writeTimeoutMs: 300 },
    });
    server = createServer(http.listener);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    await bulk(30);
  });

  afterAll(async () => {
    server.close();
    server.closeAllConnections();
    http.close();
    await sup.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends every record with its seq as id, then live ones, with heartbeats while idle', async () => {
    const later = setTimeout(() => void bulk(5), 300);
    const events = await readEvents(`${base}/v1/events`, {}, (evs) => seqs(evs).length >= 36);
    clearTimeout(later);
    expect(seqs(events)).toEqual(Array.from({ length: 36 }, (_, i) => i + 1));
    expect(events.find((e) => e.id === '2')).toMatchObject({ event: 'supervisor.started' });
    expect(JSON.parse(events.find((e) => e.id === '2')!.data!)).toMatchObject({
      seq: 2,
      kind: 'supervisor.started',
    });
    expect(events.some((e) => e.event === 'heartbeat')).toBe(true);
  });

  it('resumes by Last-Event-ID (or since) with no gap and no duplicate', async () => {
    const first = await readEvents(`${base}/v1/events`, {}, (evs) => seqs(evs).length >= 10);
    const last = seqs(first).at(-1)!;
    await bulk(7);
    const total = sup.journal.durableSeq;
    const rest = await readEvents(
      `${base}/v1/events`,
      { 'last-event-id': String(last) },
      (evs) => seqs(evs).at(-1) === total,
    );
    expect([...seqs(first), ...seqs(rest)]).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    const bySince = await readEvents(
      `${base}/v1/events?since=${total - 2}`,
      {},
      (evs) => seqs(evs).length >= 2,
    );
    expect(seqs(bySince)).toEqual([total - 1, total]);
    const bad = await fetch(`${base}/v1/events`, { headers: { 'last-event-id': 'yesterday' } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { message: expect.stringContaining('Last-Event-ID') },
    });
  });

  it('cuts off a client that stops reading, with a final event naming where to resume', async () => {
    const { port } = server.address() as { port: number };
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (b: Buffer) => received.push(b));
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.write(
      `GET /v1/events?since=0 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`,
    );
    socket.pause(); // the client takes nothing more
    // Large records, so the socket buffers fill and the server's writes stop being taken.
    const big = 'x'.repeat(20_000);
    for (let i = 0; i < 400; i++) {
      void sup.journal.append({
        kind: 'terminal.restarted',
        terminalId: 'ghost',
        attempt: 1,
        delaySeconds: 0,
        error: big,
      });
    }
    await sup.journal.flush();
    await new Promise((r) => setTimeout(r, 1500));
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.resume();
    await closed;
    const text = Buffer.concat(received).toString('utf8');
    const overflow = /event: overflow\ndata: (.*)\n/.exec(text);
    expect(overflow, 'a final overflow event').not.toBeNull();
    const { resumeFrom } = JSON.parse(overflow![1]!) as { resumeFrom: number };
    expect(resumeFrom).toBeGreaterThan(0);
    expect(resumeFrom).toBeLessThan(sup.journal.durableSeq);
    const sent = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    // The last event the server knows was taken; one more may have reached the client, which
    // resumes from the last id it saw.
    expect(sent.at(-1)! - resumeFrom).toBeGreaterThanOrEqual(0);
    expect(sent.at(-1)! - resumeFrom).toBeLessThanOrEqual(1);
  });
});

const BIN = fileURLToPath(new URL('../../bin/paneward.js', import.meta.url));

describe('events over SSE across a server killed with SIGKILL', () => {
  let agent: AgentSession;
  let dir: string;
  let port = 0;
  let server: ChildProcess | null = null;

  const start = async () => {
    server = spawn(
      process.execPath,
      [
        BIN,
        'serve',
        '--port',
        String(port),
        '--data-dir',
        join(dir, 'data'),
        '-L',
        agent.socketName,
        '--poll-interval',
        '0.1',
        '--log-level',
        'warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let err = '';
    server.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return;
      } catch {
        /* not up yet */
      }
      if (Date.now() > deadline) throw new Error(`serve did not start: ${err}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-sse-kill-'));
    agent = await startAgentSession({
      cwd: dir,
      env: { STAND_IN_WORK_MS: '300' },
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    port = (probe.address() as { port: number }).port;
    probe.close();
  });

  afterAll(async () => {
    server?.kill('SIGKILL');
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a client resumes by Last-Event-ID after the restart and has every record exactly once', async () => {
    await start();
    const base = `http://127.0.0.1:${port}`;
    const attach = await fetch(`${base}/v1/terminals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: agent.target, tool: 'unsupported', id: 's1' }),
    });
    expect(attach.status).toBe(201);
    await agent.sendText('x');
    const before = await readEvents(`${base}/v1/events`, {}, (evs) => seqs(evs).length >= 5);
    server!.kill('SIGKILL');
    await new Promise((r) => server!.once('exit', r));
    await start();
    await agent.sendText('y');
    const durable = readRecords(journalDir(join(dir, 'data')));
    const target = durable.at(-1)!.seq;
    const after = await readEvents(
      `${base}/v1/events`,
      { 'last-event-id': String(seqs(before).at(-1)) },
      (evs) => (seqs(evs).at(-1) ?? 0) >= target,
    );
    const all = [...seqs(before), ...seqs(after)];
    expect(all).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
    expect(all.at(-1)).toBeGreaterThanOrEqual(target);
    // What the client got is exactly what the journal holds.
    const onDisk = readRecords(journalDir(join(dir, 'data'))).map((r) => r.seq);
    expect(onDisk.slice(0, all.length)).toEqual(all);
  }, 60_000);
});
