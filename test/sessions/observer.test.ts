import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { SessionContext, SessionRecordReader } from '../../src/profiles/session-record.js';
import {
  ClaimRegistry,
  SessionObserver,
  type ObserverReport,
} from '../../src/sessions/observer.js';

const root = resolve('.tmp/test-observer', String(process.pid));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Locates like a CLI that keeps one file per session in its folder: newest unclaimed first. */
function folderReader(folder: string): SessionRecordReader {
  return {
    tool: 'test',
    kind: 'jsonl',
    verifiedVersions: [],
    async locate(ctx) {
      const { readdirSync, statSync } = await import('node:fs');
      const files = readdirSync(folder)
        .map((n) => join(folder, n))
        .filter((f) => !ctx.claimed.has(f))
        .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
      return files[0] ?? null;
    },
    read(piece, position) {
      if (piece === 'start') return { events: [{ type: 'turn_started', event: piece, position }] };
      if (piece === 'end')
        return {
          events: [{ type: 'turn_ended', ending: { reason: 'success' }, event: piece, position }],
        };
      return { unknown: `line ${piece}` };
    },
  };
}

const observers: SessionObserver[] = [];
afterEach(() => observers.splice(0).forEach((o) => o.stop()));

function observe(
  owner: string,
  reader: SessionRecordReader,
  claims: ClaimRegistry,
  pid = { v: 100 },
) {
  const reports: ObserverReport[] = [];
  const context = (claimed: ReadonlySet<string>): SessionContext => ({
    pid: pid.v,
    cwd: '/w',
    env: {},
    openFiles: [],
    startedAtMs: 0,
    claimed,
  });
  const o = new SessionObserver({
    owner,
    reader,
    processNames: ['x'],
    claims,
    panePid: () => Promise.resolve(1),
    report: (r) => reports.push(r),
    pollMs: 30,
    processCheckMs: 40,
    agentPid: () => Promise.resolve(pid.v),
    readContext: (_p, _n, claimed) => Promise.resolve(context(claimed)),
  });
  observers.push(o);
  const events = () =>
    reports.flatMap((r) => (r.type === 'events' ? r.events.map((e) => e.event) : []));
  return { o, reports, events };
}

const until = async (cond: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('SessionObserver', () => {
  it('keeps looking after a submit until the record appears, then follows it', async () => {
    const folder = join(root, 'late');
    mkdirSync(folder, { recursive: true });
    const claims = new ClaimRegistry();
    const { o, events } = observe('t1', folderReader(folder), claims);
    await o.locate();
    expect(o.status).toEqual({ state: 'searching' });
    const file = join(folder, 's1.jsonl');
    writeFileSync(file, 'start\n');
    await until(() => o.status.state === 'following');
    expect(o.status).toEqual({ state: 'following', file, pid: 100 });
    await until(() => events().length === 1);
    appendFileSync(file, 'end\n');
    await until(() => events().length === 2);
    expect(claims.ownerOf(file)).toBe('t1');
  });

  it('gives two panes of one CLI in one folder a file each, never the same', async () => {
    const folder = join(root, 'two');
    mkdirSync(folder, { recursive: true });
    const claims = new ClaimRegistry();
    const reader = folderReader(folder);
    const a = observe('a', reader, claims, { v: 1 });
    const b = observe('b', reader, claims, { v: 2 });
    writeFileSync(join(folder, 'first.jsonl'), 'start\n');
    await a.o.locate();
    // Both look at once while only one file exists: one of them must wait for its own.
    await b.o.locate();
    expect(b.o.status).toEqual({ state: 'searching' });
    writeFileSync(join(folder, 'second.jsonl'), 'start\n');
    await until(() => b.o.status.state === 'following');
    const fileOf = (o: SessionObserver) => (o.status.state === 'following' ? o.status.file : '');
    expect(fileOf(a.o)).toBe(join(folder, 'first.jsonl'));
    expect(fileOf(b.o)).toBe(join(folder, 'second.jsonl'));
  });

  it('finds the new record when the CLI in the pane is restarted', async () => {
    const folder = join(root, 'restart');
    mkdirSync(folder, { recursive: true });
    const claims = new ClaimRegistry();
    const pid = { v: 10 };
    const { o } = observe('t', folderReader(folder), claims, pid);
    writeFileSync(join(folder, 'old.jsonl'), 'start\n');
    await o.locate();
    expect(o.status).toMatchObject({ file: join(folder, 'old.jsonl'), pid: 10 });
    await new Promise((r) => setTimeout(r, 20));
    writeFileSync(join(folder, 'new.jsonl'), 'start\n');
    pid.v = 11; // another process in the pane
    await until(() => o.status.state === 'searching');
    await o.locate(); // its first turn starts
    await until(() => o.status.state === 'following' && o.status.pid === 11);
    expect(o.status).toMatchObject({ file: join(folder, 'new.jsonl') });
    // The old process's record is never taken again, even when it is the newest file.
    await new Promise((r) => setTimeout(r, 20));
    appendFileSync(join(folder, 'old.jsonl'), 'start\n');
    pid.v = 12;
    await until(() => o.status.state === 'searching');
    await o.locate();
    expect(o.status).toEqual({ state: 'searching' });
    expect(claims.ownerOf(join(folder, 'old.jsonl'))).toBeUndefined();
  });

  it('follows a new session the same process begins, once its record appears', async () => {
    // Copilot CLI's `/clear`: the old session's lock goes, and the new session's record is
    // written only with the next prompt, so the locate at that turn's start finds nothing yet.
    const folder = join(root, 'clear');
    mkdirSync(folder, { recursive: true });
    const located: { file: string | null } = { file: join(folder, 'first.jsonl') };
    writeFileSync(located.file!, 'start\nend\n');
    const reader: SessionRecordReader = {
      ...folderReader(folder),
      locate: () => Promise.resolve(located.file),
    };
    const { o, events } = observe('t', reader, new ClaimRegistry());
    await o.locate();
    await until(() => events().length === 2);
    located.file = null; // cleared: no session record of this process yet
    await o.locate(); // the next turn starts
    expect(o.status).toMatchObject({ state: 'following', file: join(folder, 'first.jsonl') });
    const second = join(folder, 'second.jsonl');
    writeFileSync(second, 'start\n');
    located.file = second;
    await until(() => o.status.state === 'following' && o.status.file === second);
    await until(() => events().length === 3);
    expect(o.status).toEqual({ state: 'following', file: second, pid: 100 });
  });

  it('steps aside for good at an unknown line', async () => {
    const folder = join(root, 'unknown');
    mkdirSync(folder, { recursive: true });
    const file = join(folder, 's.jsonl');
    writeFileSync(file, 'start\nsomething new\n');
    const { o, reports, events } = observe('t', folderReader(folder), new ClaimRegistry());
    await o.locate();
    await until(() => o.status.state === 'stepped_aside');
    expect(o.status).toEqual({
      state: 'stepped_aside',
      why: 'line something new',
      position: { file, offset: 6 },
    });
    appendFileSync(file, 'end\n');
    await o.locate();
    await new Promise((r) => setTimeout(r, 150));
    expect(events()).toEqual(['start']);
    expect(
      reports.filter((r) => r.type === 'status').map((r) => r.type === 'status' && r.status.state),
    ).toEqual(['following', 'stepped_aside']);
  });
});

describe('SessionObserver: a shared side record', () => {
  /** A record per pane, and one log beside them every process writes: `<pid> end`. */
  function withSide(folder: string, log: string): SessionRecordReader {
    return {
      ...folderReader(folder),
      side: {
        locate: () => Promise.resolve(log),
        read(piece, position, of) {
          const [pid, what] = piece.split(' ');
          if (Number(pid) !== of.pid) return { events: [] };
          if (what !== 'end') return { unknown: `log ${piece}` };
          const ending = { reason: 'interrupted' as const };
          return { events: [{ type: 'turn_ended', ending, event: 'log', position }] };
        },
      },
    };
  }

  it('is followed by two panes at once, never claimed, each taking its own process’s lines', async () => {
    const folder = join(root, 'side');
    mkdirSync(folder, { recursive: true });
    const log = join(root, 'side.log');
    writeFileSync(log, '');
    const claims = new ClaimRegistry();
    const reader = withSide(folder, log);
    const a = observe('a', reader, claims, { v: 1 });
    const b = observe('b', reader, claims, { v: 2 });
    writeFileSync(join(folder, 'first.jsonl'), 'start\n');
    await a.o.locate();
    writeFileSync(join(folder, 'second.jsonl'), 'start\n');
    await b.o.locate();
    await until(() => a.events().length === 1 && b.events().length === 1);
    expect(claims.ownerOf(log)).toBe(undefined);
    appendFileSync(log, '2 end\n');
    await until(() => b.events().length === 2);
    appendFileSync(log, '1 end\n');
    await until(() => a.events().length === 2);
    const ends = (r: ObserverReport[]) =>
      r.flatMap((x) => (x.type === 'events' ? x.events : [])).filter((e) => e.event === 'log');
    expect(ends(a.reports).map((e) => e.position)).toEqual([{ file: log, offset: 6 }]);
    expect(ends(b.reports).map((e) => e.position)).toEqual([{ file: log, offset: 0 }]);
    expect(claims.ownerOf(log)).toBe(undefined);
    expect(a.o.status.state).toBe('following');
    // A line of its own process the reader does not know: that pane steps aside, the other not.
    appendFileSync(log, '1 odd\n');
    await until(() => a.o.status.state === 'stepped_aside');
    expect(a.o.status).toEqual({
      state: 'stepped_aside',
      why: 'log 1 odd',
      position: { file: log, offset: 12 },
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(b.o.status.state).toBe('following');
  });
});

describe('process checks of many observers', () => {
  it('share one timer per period, which every observer stopped takes away', () => {
    vi.useFakeTimers();
    try {
      const before = vi.getTimerCount();
      const claims = new ClaimRegistry();
      const reader = folderReader(join(root, 'shared-timer'));
      const make = (processCheckMs: number) =>
        new SessionObserver({
          owner: 'o',
          reader,
          processNames: ['x'],
          claims,
          panePid: () => Promise.resolve(1),
          report: () => {},
          processCheckMs,
        });
      const many = Array.from({ length: 50 }, () => make(2000));
      expect(vi.getTimerCount()).toBe(before + 1);
      const other = make(500);
      expect(vi.getTimerCount()).toBe(before + 2);
      for (const o of many.slice(1)) o.stop();
      expect(vi.getTimerCount()).toBe(before + 2);
      many[0]!.stop();
      many[0]!.stop();
      expect(vi.getTimerCount()).toBe(before + 1);
      other.stop();
      expect(vi.getTimerCount()).toBe(before);
    } finally {
      vi.useRealTimers();
    }
  });
});
