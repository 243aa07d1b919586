import { execFileSync, type ChildProcess } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { Server } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, expect } from 'vitest';
import {
  type SessionContext,
  type SessionRecordReader,
} from '../../../src/profiles/session-record.js';
import { RecordFollower, type FollowerReport } from '../../../src/sessions/follower.js';
import {
  ClaimRegistry,
  SessionObserver,
  type ObserverReport,
} from '../../../src/sessions/observer.js';

// The parts of the session-record safety tests; importing this registers their clean-up (the
// followers, observers, servers and children a test started; the FIFOs and the scratch folder).
export const root = resolve('.tmp/test-record-safety', String(process.pid));
rmSync(root, { recursive: true, force: true });
mkdirSync(root, { recursive: true });

export const fifos: string[] = [];
export function mkfifo(path: string): string {
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

export const followers: RecordFollower[] = [];
export const observers: SessionObserver[] = [];
export const servers: Server[] = [];
export const children: ChildProcess[] = [];
afterEach(() => {
  followers.splice(0).forEach((f) => f.stop());
  observers.splice(0).forEach((o) => o.stop());
  servers.splice(0).forEach((s) => s.close());
  children.splice(0).forEach((c) => c.kill('SIGKILL'));
});

/** A reader of lines `start`/`end`/`noise`; anything else is unknown. */
export const lineReader: SessionRecordReader = {
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

export const docReader: SessionRecordReader = {
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

export function follow(file: string, reader: SessionRecordReader = lineReader, more = {}) {
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

export const until = async (cond: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 10));
  }
};

/** Settles with `p`, or fails after `ms`: what must never hang is raced against a clock. */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
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
export async function poolIsFree(): Promise<void> {
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, 0));
  // A loop held by a blocking open stays held for good; a loaded machine delays it a little.
  expect(Date.now() - t0).toBeLessThan(1000);
  const small = join(root, 'small.txt');
  writeFileSync(small, 'x');
  const ops = Array.from({ length: 16 }, (_, i) => (i % 2 ? stat(small) : readFile(small)));
  await within(Promise.all(ops), 2000, '16 fs operations');
}

export const refusals = (reports: FollowerReport[]) =>
  reports.flatMap((r) => (r.type === 'refused' ? [r.kind] : []));

export function observe(reader: SessionRecordReader) {
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
