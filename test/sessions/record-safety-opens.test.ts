import { spawn } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  firstLine,
  NotRegularFile,
  openRegular,
  readSmallFile,
} from '../../src/profiles/record-files.js';
import type { SessionRecordReader } from '../../src/profiles/session-record.js';
import {
  docReader,
  follow,
  lineReader,
  mkfifo,
  observe,
  poolIsFree,
  refusals,
  root,
  servers,
  children,
  until,
  within,
} from './internal/unsafe-records.js';

/**
 * A session record is a file the CLI's user (or anything running as them) can replace with
 * anything: these run the follower and the observer against real FIFOs, devices and sockets,
 * and only regular files are opened (docs/session-records.md, "Reading safely").
 */

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
