import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSupervisor } from '../../src/index.js';
import { Journal } from '../../src/journal/journal.js';
import { journalDir, listSegments } from '../../src/journal/segments.js';
import { createHttpApp } from '../../src/server/app.js';
import { restarted } from './internal/records.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pw-damage-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function journalOf(dataDir: string, n: number): Promise<void> {
  const j = new Journal({ dataDir });
  for (let i = 1; i <= n; i++) await j.append(restarted(`t${i % 2}`, i));
  await j.close();
}

/** The segment's lines, each with its newline. */
function lines(file: string): Buffer[] {
  const buf = readFileSync(file);
  const out: Buffer[] = [];
  for (let at = 0; at < buf.length;) {
    const nl = buf.indexOf(0x0a, at);
    out.push(buf.subarray(at, nl + 1));
    at = nl + 1;
  }
  return out;
}

describe('a byte that is not UTF-8', () => {
  it('costs its own line only: later records, new ones and history after a restart are all there', async () => {
    const data = join(dir, 'data');
    await journalOf(data, 6);
    const seg = listSegments(journalDir(data))[0]!.file;
    const ls = lines(seg);
    // A bit flip in record 2 making a byte that is not UTF-8 (its text holds multi-byte ones).
    const damaged = Buffer.from(ls[1]!);
    damaged[damaged.indexOf('#2') + 1] = 0xb2;
    writeFileSync(seg, Buffer.concat([ls[0]!, damaged, ...ls.slice(2)]));
    const j = new Journal({ dataDir: data });
    expect(j.damaged).toEqual([{ file: seg, line: 2, seq: 2 }]);
    expect(j.read().map((r) => r.seq)).toEqual([1, 3, 4, 5, 6]);
    const added = await j.append(restarted('t1', 7));
    expect(j.readAfter(0).map((r) => r.seq)).toEqual([1, 3, 4, 5, 6, 7]);
    expect(j.recent('t1').map((r) => r.seq)).toEqual([1, 3, 5, 7]);
    expect(j.integrity).toEqual({ damagedLines: 1, duplicateLines: 0, repairedBytes: 0 });
    await j.close();
    const again = new Journal({ dataDir: data });
    expect(again.readAfter(0).map((r) => r.seq)).toEqual([1, 3, 4, 5, 6, 7]);
    expect(again.recent('t1').at(-1)).toEqual(added);
    await again.close();
  });

  it('with a torn tail after it, the next acknowledged record is not glued to the tail and survives restarts', async () => {
    const data = join(dir, 'data');
    await journalOf(data, 4);
    const seg = listSegments(journalDir(data))[0]!.file;
    const ls = lines(seg);
    const damaged = Buffer.from(ls[0]!);
    damaged[damaged.indexOf('#1') + 1] = 0xff;
    const torn = Buffer.from('{"v":1,"seq":5,"at":"2026-');
    writeFileSync(seg, Buffer.concat([damaged, ...ls.slice(1), torn]));
    const j = new Journal({ dataDir: data });
    expect(j.repairedBytes).toBe(torn.length);
    const r5 = await j.append(restarted('t1', 5));
    expect(r5.seq).toBe(5);
    await j.close();
    // The record starts a line of its own, right after the last intact one.
    expect(lines(seg).at(-1)!.toString('utf8')).toMatch(/^\{"v":1,"seq":5,.*\}\n$/);
    const again = new Journal({ dataDir: data });
    expect(again.read().map((r) => r.seq)).toEqual([2, 3, 4, 5]);
    expect(again.repairedBytes).toBe(0);
    await again.close();
  });

  it('a record whose newline was damaged is still read, and so is the one glued to it', async () => {
    const data = join(dir, 'data');
    await journalOf(data, 4);
    const seg = listSegments(journalDir(data))[0]!.file;
    const buf = readFileSync(seg);
    buf[buf.indexOf(0x0a)] = 0x0b;
    // The last newline too: a record at the end without one is given its newline back.
    buf[buf.length - 1] = 0xff;
    writeFileSync(seg, buf);
    const j = new Journal({ dataDir: data });
    expect(j.read().map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    expect(j.integrity.damagedLines).toBe(1);
    expect(j.repairedBytes).toBe(1);
    await j.append(restarted('t1', 5));
    await j.close();
    const again = new Journal({ dataDir: data });
    expect(again.read().map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    await again.close();
  });
});

describe('a duplicated line', () => {
  it('is delivered once: by every reader, over SSE, with the copy counted in /healthz', async () => {
    const data = join(dir, 'data');
    await journalOf(data, 4);
    const seg = listSegments(journalDir(data))[0]!.file;
    const ls = lines(seg);
    // Line 2 twice in a row, and line 3 once more at the end.
    writeFileSync(seg, Buffer.concat([ls[0]!, ls[1]!, ls[1]!, ls[2]!, ls[3]!, ls[2]!]));
    const sup = createSupervisor({ dataDir: data, socketName: 'jrn-bytes-dup-none' });
    const http = createHttpApp(sup, { sse: { heartbeatMs: 200 } });
    const server: Server = createServer(http.listener);
    try {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      await sup.journal.flush();
      const durable = sup.journal.durableSeq;
      expect(durable).toBeGreaterThan(4);
      const all = Array.from({ length: durable }, (_, i) => i + 1);
      expect(sup.journal.read().map((r) => r.seq)).toEqual(all);
      expect(sup.journal.readAfter(0).map((r) => r.seq)).toEqual(all);
      const followed: number[] = [];
      sup.journal
        .follow(0)
        .subscribe((r) => followed.push(r.seq))
        .unsubscribe();
      expect(followed).toEqual(all);
      expect(sup.journal.recent('t1').map((r) => r.seq)).toEqual([1, 3]);

      const ids = await sseIds(`${base}/v1/events?since=0`, durable);
      expect(ids).toEqual(all);
      const health = (await (await fetch(`${base}/healthz`)).json()) as {
        journal: { integrity: unknown };
      };
      expect(health.journal.integrity).toEqual({
        damagedLines: 0,
        duplicateLines: 2,
        repairedBytes: 0,
      });
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toMatch(/^paneward_journal_duplicate_lines 2$/m);
      expect(metrics).toMatch(/^paneward_journal_damaged_lines 0$/m);
    } finally {
      server.close();
      server.closeAllConnections();
      http.close();
      await sup.stop();
    }
  });
});

/** The ids of the SSE events up to `last`. */
async function sseIds(url: string, last: number): Promise<number[]> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 10_000);
  const ids: number[] = [];
  try {
    const res = await fetch(url, { signal: abort.signal });
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      for (const m of buffer.matchAll(/^id: ?(\d+)$/gm)) ids.push(Number(m[1]));
      buffer = buffer.slice(buffer.lastIndexOf('\n') + 1);
      if (ids.at(-1) === last) return ids;
    }
  } catch (error) {
    if (!abort.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return ids;
}
