import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  constants,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { claudeCodeSessionRecord } from '../../src/profiles/claude_code/session-record.js';
import {
  firstLine,
  NotRegularFile,
  openRegular,
  readSmallFile,
} from '../../src/profiles/record-files.js';
import {
  MAX_REASON_CHARS,
  type SessionContext,
  type SessionRecordReader,
} from '../../src/profiles/session-record.js';
import { RecordFollower, type FollowerReport } from '../../src/sessions/follower.js';
import {
  ClaimRegistry,
  SessionObserver,
  type ObserverReport,
} from '../../src/sessions/observer.js';

/**
 * A session record is a file the CLI's user (or anything running as them) can replace with
 * anything: these run the follower, the observer and the readers' file helpers against real
 * FIFOs, devices, sockets and oversized lines (docs/session-records.md, "Reading safely").
 */

const root = resolve('.tmp/test-record-safety', String(process.pid));
rmSync(root, { recursive: true, force: true });
mkdirSync(root, { recursive: true });

const fifos: string[] = [];
function mkfifo(path: string): string {
  execFileSync('mkfifo', [path]);
  fifos.push(path);
  return path;
}

afterAll(() => {
  // Should anything still wait in an open of a FIFO, a writer lets it go, so the run can end.
  for (const fifo of fifos) {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // No reader waiting (ENXIO), or gone.
    }
  }
  rmSync(root, { recursive: true, force: true });
});

const followers: RecordFollower[] = [];
const observers: SessionObserver[] = [];
const servers: Server[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  followers.splice(0).forEach((f) => f.stop());
  observers.splice(0).forEach((o) => o.stop());
  servers.splice(0).forEach((s) => s.close());
  children.splice(0).forEach((c) => c.kill('SIGKILL'));
});

/** A reader of lines `start`/`end`/`noise`; anything else is unknown. */
const lineReader: SessionRecordReader = {
  tool: 'test',
  kind: 'jsonl',
  verifiedVersions: [],
  locate: () => Promise.resolve(null),
  read(piece, position) {
    if (piece === 'noise') return { events: [] };
    if (piece === 'start') return { events: [{ type: 'turn_started', event: piece, position }] };
    if (piece === 'end') {
      return {
        events: [{ type: 'turn_ended', ending: { reason: 'success' }, event: piece, position }],
      };
    }
    // A careless reader: its reason holds the whole piece.
    return { unknown: `line ${piece}` };
  },
};

const docReader: SessionRecordReader = {
  ...lineReader,
  kind: 'document',
  read: (piece, position) => ({
    events: (JSON.parse(piece) as string[]).map((e, i) => ({
      type: 'turn_started' as const,
      event: e,
      position: { file: position.file, offset: i },
    })),
  }),
};

function follow(file: string, reader: SessionRecordReader = lineReader, more = {}) {
  const reports: FollowerReport[] = [];
  const f = new RecordFollower({
    file,
    reader,
    report: (r) => reports.push(r),
    pollMs: 50,
    ...more,
  });
  followers.push(f);
  const events = () =>
    reports.flatMap((r) =>
      r.type === 'events' ? r.events.map((e) => `${e.event}@${e.position.offset}`) : [],
    );
  return { f, reports, events };
}

const until = async (cond: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 10));
  }
};

/** Settles with `p`, or fails after `ms`: what must never hang is raced against a clock. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not done within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * The event loop and libuv's pool are free: a timer fires on time, and more file operations
 * than the pool has threads (4 by default) all finish promptly. A thread held by an open of a
 * FIFO would leave these waiting.
 */
async function poolIsFree(): Promise<void> {
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, 0));
  // A loop held by a blocking open stays held for good; a loaded machine delays it a little.
  expect(Date.now() - t0).toBeLessThan(1000);
  const small = join(root, 'small.txt');
  writeFileSync(small, 'x');
  const ops = Array.from({ length: 16 }, (_, i) => (i % 2 ? stat(small) : readFile(small)));
  await within(Promise.all(ops), 2000, '16 fs operations');
}

const refusals = (reports: FollowerReport[]) =>
  reports.flatMap((r) => (r.type === 'refused' ? [r.kind] : []));

describe('only regular files are opened', () => {
  it('a FIFO as the record: several never block the event loop or the thread pool', async () => {
    const paths = Array.from({ length: 6 }, (_, i) => mkfifo(join(root, `fifo-${i}.jsonl`)));
    const all = paths.map((p) => follow(p));
    for (const { f } of all) f.start();
    await within(Promise.all(all.map(({ f }) => f.check())), 2000, 'checks of FIFOs');
    for (const { reports } of all) expect(refusals(reports)).toEqual(['fifo']);
    // Looked at again and again (the poll): refused once, and still nothing held.
    await new Promise((r) => setTimeout(r, 200));
    for (const { reports } of all) expect(refusals(reports)).toEqual(['fifo']);
    await poolIsFree();
    // The readers' own helpers refuse it too.
    await within(firstLine(paths[0]!), 1000, 'firstLine').then((l) => expect(l).toBeNull());
    expect(await within(readSmallFile(paths[1]!), 1000, 'readSmallFile')).toBeNull();
    await expect(openRegular(paths[2]!)).rejects.toMatchObject({ kind: 'fifo' });
    await poolIsFree();
  });

  it('a FIFO swapped in for the record being followed is refused, and a file back is read', async () => {
    const file = join(root, 'swapped.jsonl');
    writeFileSync(file, 'start\n');
    const { f, reports, events } = follow(file);
    await f.check();
    expect(events()).toEqual(['start@0']);
    // Kept linked, so that the file written back later cannot reuse its inode number.
    linkSync(file, join(root, 'swapped.kept'));
    renameSync(mkfifo(join(root, 'swapped.fifo')), file);
    await within(f.check(), 1000, 'check of a swapped-in FIFO');
    expect(refusals(reports)).toEqual(['fifo']);
    await poolIsFree();
    writeFileSync(join(root, 'swapped.tmp'), 'start\nend\n');
    renameSync(join(root, 'swapped.tmp'), file);
    await f.check();
    expect(events()).toEqual(['start@0', 'start@0', 'end@6']);
  });

  it('a FIFO swapped in between the look and the open is opened without blocking, then refused', async () => {
    // A child swaps a FIFO and a regular file at one path as fast as it can, while the file is
    // opened again and again: an open that lands on the FIFO must neither block nor read it.
    const dir = join(root, 'race');
    mkdirSync(dir);
    const path = join(dir, 'record.jsonl');
    writeFileSync(join(dir, 'regular'), 'start\n');
    mkfifo(join(dir, 'fifo'));
    const swapper = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('fs'); const d = ${JSON.stringify(dir)};
         for (;;) {
           fs.linkSync(d + '/regular', d + '/a'); fs.renameSync(d + '/a', d + '/record.jsonl');
           fs.linkSync(d + '/fifo', d + '/b'); fs.renameSync(d + '/b', d + '/record.jsonl');
         }`,
      ],
      { stdio: 'ignore' },
    );
    children.push(swapper);
    await until(() => existsSync(path));
    const seen = { regular: 0, before: 0, after: 0 };
    const end = Date.now() + 8000;
    // Until both were met: on a loaded machine the first round may meet only the FIFO.
    while ((seen.after === 0 || seen.regular === 0) && Date.now() < end) {
      const tries = Array.from({ length: 8 }, async () => {
        try {
          const { handle } = await openRegular(path);
          seen.regular += 1;
          await handle.close();
        } catch (e) {
          if (!(e instanceof NotRegularFile)) throw e;
          expect(e.kind).toBe('fifo');
          if (e.atOpen) seen.after += 1;
          else seen.before += 1;
        }
      });
      await within(Promise.all(tries), 2000, 'opens during the swaps');
    }
    // Ended before the pool is checked: a swapper still spinning takes a core from it.
    if (swapper.exitCode === null && swapper.signalCode === null) {
      await new Promise((r) => {
        swapper.once('exit', r);
        swapper.kill();
      });
    }
    // The race was met: a FIFO found only by `fstat` of what was opened.
    expect(seen.after).toBeGreaterThan(0);
    expect(seen.regular).toBeGreaterThan(0);
    await poolIsFree();
  }, 20_000);

  it('a device (/dev/zero) and a socket are refused, never read', async () => {
    const zero = follow('/dev/zero');
    await within(zero.f.check(), 1000, 'check of /dev/zero');
    expect(refusals(zero.reports)).toEqual(['character device']);
    await expect(openRegular('/dev/zero')).rejects.toMatchObject({
      kind: 'character device',
      atOpen: false,
    });
    expect(await readSmallFile('/dev/zero')).toBeNull();
    const doc = follow('/dev/zero', docReader);
    await within(doc.f.check(), 1000, 'document check of /dev/zero');
    expect(refusals(doc.reports)).toEqual(['character device']);

    const sock = join(root, 'record.sock');
    const server = createServer();
    servers.push(server);
    await new Promise<void>((r) => server.listen(sock, r));
    const s = follow(sock);
    await within(s.f.check(), 1000, 'check of a socket');
    expect(refusals(s.reports)).toEqual(['socket']);
    await expect(openRegular(sock)).rejects.toMatchObject({ kind: 'socket' });
    expect(await firstLine(sock)).toBeNull();
    await poolIsFree();
  });
});

describe('a process following FIFOs', () => {
  it('still ends on SIGTERM after writing its last file', async () => {
    const dir = join(root, 'sigterm');
    mkdirSync(dir);
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'fifo-sigterm.child.ts'), dir],
      { cwd: join(import.meta.dirname, '../..'), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await until(() => out.includes('ready'), 15_000);
    // More opens than the pool has threads were asked for: none may be holding one.
    child.kill('SIGTERM');
    expect(await within(exited, 3000, 'exit after SIGTERM')).toBe(0);
    expect(readFileSync(join(dir, 'bye'), 'utf8')).toBe('done');
  }, 30_000);
});

describe('reads are bounded', () => {
  const MiB = 1 << 20;

  it('a 2 MiB line is skipped and the next line’s turn end is still witnessed (Claude Code)', async () => {
    const file = join(root, 'long.jsonl');
    const prompt = { type: 'user', message: { role: 'user', content: 'hi' } };
    // A tool's result of 2 MiB, over the 1 MiB cap.
    const huge = {
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', content: 'x'.repeat(2 * MiB) }] },
    };
    const done = { type: 'assistant', message: { role: 'assistant', stop_reason: 'end_turn' } };
    const lines = [prompt, huge, done].map((o) => JSON.stringify(o) + '\n');
    writeFileSync(file, lines.join(''));
    const { f, reports } = follow(file, claudeCodeSessionRecord);
    await f.check();
    const told = reports.flatMap((r) =>
      r.type === 'events' ? r.events.map((e) => `${e.event}@${e.position.offset}`) : [],
    );
    const hugeAt = Buffer.byteLength(lines[0]!);
    const doneAt = hugeAt + Buffer.byteLength(lines[1]!);
    expect(told).toEqual(['user@0', `assistant.end_turn@${doneAt}`]);
    const skipped = reports.filter((r) => r.type === 'skipped');
    expect(skipped).toEqual([
      {
        type: 'skipped',
        position: { file, offset: hugeAt },
        bytes: Buffer.byteLength(lines[1]!) - 1,
        complete: true,
        why: `a line of ${Buffer.byteLength(lines[1]!) - 1} bytes at offset ${hugeAt}, over the 1048576-byte cap: skipped`,
      },
    ]);
    expect(f.position).toBe(readFileSync(file).length);
  });

  it('a long line still being written is reported once, passed over, and reading goes on', async () => {
    const file = join(root, 'growing.jsonl');
    writeFileSync(file, 'start\n');
    const seen: string[] = [];
    const reader = {
      ...lineReader,
      read: (p: string, at: { file: string; offset: number }) => {
        seen.push(p.slice(0, 10));
        return lineReader.read(p, at);
      },
    };
    const { f, reports, events } = follow(file, reader, { maxLineBytes: 1000 });
    await f.check();
    appendFileSync(file, 'y'.repeat(600));
    await f.check(); // under the cap: waits for its newline
    expect(reports.filter((r) => r.type === 'skipped')).toEqual([]);
    appendFileSync(file, 'y'.repeat(900));
    await f.check();
    expect(reports.filter((r) => r.type === 'skipped')).toEqual([
      expect.objectContaining({ position: { file, offset: 6 }, bytes: 1500, complete: false }),
    ]);
    appendFileSync(file, 'y'.repeat(3000) + '\nend\n');
    await f.check();
    expect(events()).toEqual(['start@0', `end@${6 + 4501}`]);
    expect(reports.filter((r) => r.type === 'skipped')).toHaveLength(1);
    expect(seen).toEqual(['start', 'end']); // the long line never reached the reader
  });

  it('the observer says a line was skipped and goes on following (never stuck “following”)', async () => {
    const folder = join(root, 'observed');
    mkdirSync(folder);
    const file = join(folder, 's.jsonl');
    writeFileSync(file, `start\n${'z'.repeat(2 * MiB)}\nend\n`);
    const reader = { ...lineReader, locate: () => Promise.resolve(file) };
    const { o, reports } = observe(reader);
    await o.locate();
    await until(() => reports.some((r) => r.type === 'events' && r.events[0]?.event === 'end'));
    expect(o.status).toMatchObject({ state: 'following', file });
    const why = (o.status as { why?: string }).why ?? '';
    expect(why).toMatch(
      /^a line of 2097152 bytes at offset 6, over the 1048576-byte cap: skipped$/,
    );
    expect(reports).toContainEqual({
      type: 'skipped',
      skip: { what: 'long_line', file, offset: 6, why },
    });
  });

  it('a 20 KB unknown line steps aside with a bounded reason holding none of its text', async () => {
    const file = join(root, 'unknown.jsonl');
    const text = 'secret prompt text; '.repeat(1024);
    writeFileSync(file, `start\n${text}\n`);
    const { f, reports } = follow(file);
    await f.check();
    const unknown = reports.find((r) => r.type === 'unknown');
    expect(unknown).toMatchObject({ position: { file, offset: 6 } });
    const why = (unknown as { why: string }).why;
    expect(why.length).toBeLessThanOrEqual(MAX_REASON_CHARS);
    expect(why).not.toContain('secret');
    // A real reader's reason says what it did not know, by name and length.
    const claude = join(root, 'unknown-claude.jsonl');
    writeFileSync(claude, JSON.stringify({ type: 'brand-new', text }) + '\n');
    const c = follow(claude, claudeCodeSessionRecord);
    await c.f.check();
    expect(c.reports).toEqual([
      { type: 'unknown', why: 'line type "brand-new"', position: { file: claude, offset: 0 } },
    ]);
  });

  it('a document over its cap steps aside unread', async () => {
    const file = join(root, 'big.json');
    writeFileSync(file, JSON.stringify(['start', 'x'.repeat(5000)]));
    const { f, reports } = follow(file, docReader, { maxDocumentBytes: 4096 });
    await f.check();
    expect(reports).toEqual([
      {
        type: 'unknown',
        why: `a document of ${readFileSync(file).length} bytes, over the 4096-byte cap`,
        position: { file, offset: 0 },
      },
    ]);
  });
});

function observe(reader: SessionRecordReader) {
  const reports: ObserverReport[] = [];
  const context = (claimed: ReadonlySet<string>): SessionContext => ({
    pid: 100,
    cwd: '/w',
    env: {},
    openFiles: [],
    startedAtMs: 0,
    claimed,
  });
  const o = new SessionObserver({
    owner: 't',
    reader,
    processNames: ['x'],
    claims: new ClaimRegistry(),
    panePid: () => Promise.resolve(1),
    report: (r) => reports.push(r),
    pollMs: 50,
    searchPollMs: 20,
    searchMs: 500,
    processCheckMs: 60_000,
    agentPid: () => Promise.resolve(100),
    readContext: (_p, _n, claimed) => Promise.resolve(context(claimed)),
  });
  observers.push(o);
  return { o, reports };
}

describe('the observer and what it finds', () => {
  it('refuses a FIFO located as the record, says why, and never takes it again', async () => {
    const fifo = mkfifo(join(root, 'located.jsonl'));
    let located = 0;
    const reader: SessionRecordReader = {
      ...lineReader,
      locate: (ctx) => {
        located += 1;
        return Promise.resolve(ctx.claimed.has(fifo) ? null : fifo);
      },
    };
    const { o, reports } = observe(reader);
    await within(o.locate(), 1000, 'locate');
    const why = 'the record is a fifo, not a regular file: not read';
    expect(o.status).toEqual({ state: 'searching', why });
    expect(reports).toContainEqual({
      type: 'skipped',
      skip: { what: 'not_regular', file: fifo, offset: 0, kind: 'fifo', why },
    });
    await until(() => located >= 3); // the search goes on, the FIFO excluded
    expect(reports.filter((r) => r.type === 'skipped')).toHaveLength(1);
    await poolIsFree();
  });

  it('refuses a FIFO as the side record and goes on following the record', async () => {
    const folder = join(root, 'side');
    mkdirSync(folder);
    const file = join(folder, 's.jsonl');
    writeFileSync(file, 'start\n');
    const log = mkfifo(join(folder, 'cli.log'));
    const reader: SessionRecordReader = {
      ...lineReader,
      locate: () => Promise.resolve(file),
      side: { locate: () => Promise.resolve(log), read: () => ({ events: [] }) },
    };
    const { o, reports } = observe(reader);
    await o.locate();
    await until(() => reports.some((r) => r.type === 'skipped'));
    const why = 'the side record is a fifo, not a regular file: not read';
    expect(reports).toContainEqual({
      type: 'skipped',
      skip: { what: 'not_regular', file: log, offset: 0, kind: 'fifo', why },
    });
    expect(o.status).toEqual({ state: 'following', file, pid: 100, why });
    appendFileSync(file, 'end\n');
    await until(() => reports.some((r) => r.type === 'events' && r.events[0]?.event === 'end'));
    await poolIsFree();
  });

  it('refuses a FIFO swapped in for the followed record and searches again', async () => {
    const folder = join(root, 'swap-observed');
    mkdirSync(folder);
    const file = join(folder, 's.jsonl');
    writeFileSync(file, 'start\n');
    const reader = { ...lineReader, locate: () => Promise.resolve(file) };
    const { o, reports } = observe(reader);
    await o.locate();
    await until(() => reports.some((r) => r.type === 'events'));
    renameSync(mkfifo(join(folder, 'swap')), file);
    await until(() => o.status.state === 'searching');
    expect(o.status).toEqual({
      state: 'searching',
      why: 'the record is a fifo, not a regular file: not read',
    });
    await poolIsFree();
  });
});
