import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  clineLog,
  clineSessionRecord,
  readClineLogLine,
} from '../../../src/profiles/cline/session-record.js';
import type { RecordReading, SideContext } from '../../../src/profiles/session-record.js';

// Lines of Cline CLI 3.0.65's log from three real runs, one process each
// (test/fixtures/session-records/cline/README.md): a reply, a reply interrupted with Escape, and
// a 400.
const FIXTURE = new URL('../../fixtures/session-records/cline/cline.log', import.meta.url);
const lines = readFileSync(FIXTURE, 'utf8').split('\n').filter(Boolean);
const FILE = '/home/.cline/data/logs/cline.log';
/** Each run's process, as the log names it, and when it started (its first line). */
const runs = [...new Set(lines.map((l) => (JSON.parse(l) as { pid: number }).pid))].map(
  (pid): SideContext => ({
    pid,
    startedAtMs: Date.parse(
      (JSON.parse(lines.find((l) => l.includes(`"pid":${pid}`))!) as { time: string }).time,
    ),
  }),
);
const [REPLIED, INTERRUPTED, FAILED] = runs as [SideContext, SideContext, SideContext];
const timeOf = (i: number) => (JSON.parse(lines[i]!) as { time: string }).time;

/** Every line read for `context`, at its byte offset: the endings told, or the first unknown. */
function readAll(text: readonly string[], context: SideContext): string[] {
  const out: string[] = [];
  let offset = 0;
  for (const line of text) {
    const r: RecordReading = readClineLogLine(line, { file: FILE, offset }, context);
    if ('unknown' in r) return [...out, `unknown: ${r.unknown}`];
    for (const e of r.events) {
      out.push(
        e.type === 'turn_ended'
          ? `${e.ending.reason} ${e.event} @${e.position.offset} ${new Date(e.atMs!).toISOString()}`
          : e.type,
      );
    }
    offset += Buffer.byteLength(line) + 1;
  }
  return out;
}

const offsetOf = (i: number) => lines.slice(0, i).reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
const aborted = (pid: number) =>
  lines.findIndex(
    (l) =>
      l.includes(`"pid":${pid}`) &&
      l.includes('"event":"agent.run-finished"') &&
      l.includes('"status":"aborted"'),
  );

describe('Cline log: the side record that tells an interrupted turn', () => {
  it('is the cline reader’s side record, and the reader tells interruptions', () => {
    expect(clineSessionRecord.side).toBe(clineLog);
    expect(clineSessionRecord.endings).toContain('interrupted');
  });

  it('reads each run’s start, and the interrupted run of the pane’s process as interrupted', () => {
    expect(runs).toHaveLength(3);
    expect(readAll(lines, INTERRUPTED)).toEqual([
      'turn_started',
      `interrupted agent.run-finished @${offsetOf(aborted(INTERRUPTED.pid))} ${timeOf(aborted(INTERRUPTED.pid))}`,
    ]);
    // A finished reply (`completed`) and a 400 (`agent.run-failed`): the messages record tells
    // those, so the log adds only when the run started.
    expect(lines.some((l) => l.includes(`"pid":${REPLIED.pid}`) && l.includes('"completed"'))).toBe(
      true,
    );
    expect(readAll(lines, REPLIED)).toEqual(['turn_started']);
    expect(lines.some((l) => l.includes(`"pid":${FAILED.pid}`) && l.includes('run-failed'))).toBe(
      true,
    );
    expect(readAll(lines, FAILED)).toEqual(['turn_started']);
  });

  it('a run’s start is the start of a turn, at the line’s own time', () => {
    const i = lines.findIndex(
      (l) => l.includes(`"pid":${INTERRUPTED.pid}`) && l.includes('"event":"agent.run-started"'),
    );
    expect(i).toBeGreaterThan(0);
    const at = { file: FILE, offset: offsetOf(i) };
    expect(readClineLogLine(lines[i]!, at, INTERRUPTED)).toEqual({
      events: [
        {
          type: 'turn_started',
          event: 'agent.run-started',
          position: at,
          atMs: Date.parse(timeOf(i)),
        },
      ],
    });
    // The prompt sent (`session.input_sent`) is not: a prompt queued behind a run starts none.
    const j = lines.findIndex(
      (l) => l.includes(`"pid":${INTERRUPTED.pid}`) && l.includes('"event":"session.input_sent"'),
    );
    expect(j).toBeGreaterThan(0);
    expect(readClineLogLine(lines[j]!, at, INTERRUPTED)).toEqual({ events: [] });
  });

  it('ignores every line of another process, whatever it says', () => {
    expect(readAll(lines, { pid: 4242, startedAtMs: 0 })).toEqual([]);
    const other = lines.filter((l) => l.includes(`"pid":${INTERRUPTED.pid}`));
    expect(readAll(other, FAILED)).toEqual([]);
    // Even a line of another pid the reader does not know.
    const odd = lines[aborted(INTERRUPTED.pid)]!.replace('"status":"aborted"', '"status":"paused"');
    expect(readAll([odd], FAILED)).toEqual([]);
  });

  it('ignores the lines an earlier holder of the pid wrote before the process started', () => {
    const later = Date.parse(timeOf(lines.length - 1)) + 1000;
    expect(readAll(lines, { pid: INTERRUPTED.pid, startedAtMs: later })).toEqual([]);
  });

  it('reads a line of the pane’s process it does not know as unknown, never as an outcome', () => {
    const line = lines[aborted(INTERRUPTED.pid)]!;
    for (const odd of [
      line.replace('"status":"aborted"', '"status":"paused"'),
      line.replace('"properties":{', '"props":{'),
      line.replace('"level":30,', ''),
      line.replace(/"time":"[^"]*"/, '"time":"soon"'),
    ]) {
      expect(readAll([odd], INTERRUPTED)[0]).toMatch(/^unknown: /);
    }
    expect(readAll(['not json'], INTERRUPTED)).toEqual(['unknown: log: not a JSON line']);
    expect(readAll(['{"msg":"no pid"}'], INTERRUPTED)).toEqual(['unknown: log: no `pid`']);
  });

  it('is pure: the same line reads the same twice', () => {
    const line = lines[aborted(INTERRUPTED.pid)]!;
    const at = { file: FILE, offset: 7 };
    expect(readClineLogLine(line, at, INTERRUPTED)).toEqual(
      readClineLogLine(line, at, INTERRUPTED),
    );
  });

  it('is found under the process’s home, once Cline has written it', async () => {
    const home = mkdtempSync(join(tmpdir(), 'pw-cline-log-'));
    try {
      const context = {
        pid: 1,
        cwd: '/',
        env: { HOME: home },
        openFiles: [],
        startedAtMs: 0,
        claimed: new Set<string>(),
      };
      expect(await clineLog.locate(context)).toBe(null);
      mkdirSync(join(home, '.cline', 'data', 'logs'), { recursive: true });
      const file = join(home, '.cline', 'data', 'logs', 'cline.log');
      writeFileSync(file, lines[0]! + '\n');
      expect(await clineLog.locate(context)).toBe(file);
      // Shared by every Cline process of the home: found even when claimed by another pane.
      expect(await clineLog.locate({ ...context, claimed: new Set([file]) })).toBe(file);
      expect(await clineLog.locate({ ...context, env: {} })).toBe(null);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
