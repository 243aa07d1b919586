import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { Journal } from '../../src/journal/journal.js';
import { journalDir, listSegments } from '../../src/journal/segments.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';

interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
}

async function readEvents(url: string, stop: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 10_000);
  const events: SseEvent[] = [];
  try {
    const res = await fetch(url, { signal: abort.signal });
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

describe('SSE over a journal with records missing', () => {
  let dir: string;
  let sup: Supervisor;
  let http: HttpApp;
  let server: Server;
  let base: string;
  let kept: number;
  let damagedSeq: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-sse-gaps-'));
    const data = join(dir, 'data');
    // Small segments, few kept: the first records are dropped by retention.
    const j = new Journal({ dataDir: data, segmentBytes: 400, retainSegments: 3 });
    for (let i = 0; i < 40; i++)
      await j.append({ kind: 'supervisor.started', terminalId: null, pid: i });
    await j.close();
    const segments = listSegments(journalDir(data));
    kept = segments[0]!.firstSeq;
    // A line in the oldest kept segment (not its checkpoint) damaged.
    const oldest = segments[0]!.file;
    const lines = readFileSync(oldest, 'utf8').split('\n');
    damagedSeq = kept + 1;
    lines[1] = lines[1]!.replace('"pid":', '"pid": ');
    writeFileSync(oldest, lines.join('\n'));
    sup = createSupervisor({ dataDir: data, socketName: 'jrn-sse-gaps-none' });
    http = createHttpApp(sup, { sse: { heartbeatMs: 200 } });
    server = createServer(http.listener);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    await sup.journal.flush();
  });

  afterAll(async () => {
    server?.close();
    server?.closeAllConnections();
    http?.close();
    await sup?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('tells a client resuming past retention, and past a damaged line, which records it missed', async () => {
    expect(kept).toBeGreaterThan(2);
    const durable = sup.journal.durableSeq;
    const events = await readEvents(`${base}/v1/events?since=1`, (evs) =>
      evs.some((e) => e.id === String(durable)),
    );
    const gaps = events.filter((e) => e.event === 'gap').map((e) => JSON.parse(e.data!) as object);
    expect(gaps).toEqual([
      { from: 2, to: kept - 1, reason: 'retention' },
      { from: damagedSeq, to: damagedSeq, reason: 'damaged' },
    ]);
    const ids = events.filter((e) => e.id !== undefined).map((e) => Number(e.id));
    expect(ids[0]).toBe(kept);
    expect(ids).not.toContain(damagedSeq);
    expect(ids.at(-1)).toBe(durable);
    // The gap comes before the records after it.
    const order = events.map((e) => e.event ?? '');
    expect(order.indexOf('gap')).toBeLessThan(events.findIndex((e) => e.id === String(kept)));
  });

  it('a client that starts inside what is kept gets no gap before the damaged line', async () => {
    const events = await readEvents(`${base}/v1/events?since=${damagedSeq}`, (evs) =>
      evs.some((e) => e.id === String(sup.journal.durableSeq)),
    );
    expect(events.filter((e) => e.event === 'gap')).toEqual([]);
    expect(Number(events.find((e) => e.id !== undefined)!.id)).toBe(damagedSeq + 1);
  });
});
