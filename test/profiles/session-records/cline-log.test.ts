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

// Lines of Cline CLI 3.0.65's log from two real runs (test/fixtures/session-records/cline/README.md):
// pid 29301 (a reply, then one interrupted with Escape) and pid 30361 (the same, then two 400s).
const FIXTURE = new URL('../../fixtures/session-records/cline/cline.log', import.meta.url);
const lines = readFileSync(FIXTURE, 'utf8').split('\n').filter(Boolean);
const FILE = '/home/.cline/data/logs/cline.log';
const SECOND: SideContext = { pid: 30361, startedAtMs: Date.parse('2026-11-27T06:22:09Z') };
const FIRST: SideContext = { pid: 29301, startedAtMs: Date.parse('2026-11-27T06:21:10Z') };

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

  it('reads the interrupted run of the pane’s process as interrupted, and nothing else', () => {
    // Each process: one reply finished (`completed`: the messages record tells it), one
    // interrupted; the second also two 400s (`agent.run-failed`: the messages record tells them).
    expect(readAll(lines, SECOND)).toEqual([
      `interrupted agent.run-finished @${offsetOf(aborted(30361))} 2026-11-27T06:22:16.449Z`,
    ]);
    expect(readAll(lines, FIRST)).toEqual([
      `interrupted agent.run-finished @${offsetOf(aborted(29301))} 2026-11-27T06:21:17.934Z`,
    ]);
  });

  it('ignores every line of another process, whatever it says', () => {
    expect(readAll(lines, { pid: 4242, startedAtMs: 0 })).toEqual([]);
    const other = lines.filter((l) => l.includes('"pid":29301'));
    expect(readAll(other, SECOND)).toEqual([]);
    // Even a line of another pid the reader does not know.
    const odd = lines[aborted(29301)]!.replace('"status":"aborted"', '"status":"paused"');
    expect(readAll([odd], SECOND)).toEqual([]);
  });

  it('ignores the lines an earlier holder of the pid wrote before the process started', () => {
    expect(readAll(lines, { pid: 30361, startedAtMs: Date.parse('2026-11-27T06:23:00Z') })).toEqual(
      [],
    );
  });

  it('reads a line of the pane’s process it does not know as unknown, never as an outcome', () => {
    const line = lines[aborted(30361)]!;
    for (const odd of [
      line.replace('"status":"aborted"', '"status":"paused"'),
      line.replace('"properties":{', '"props":{'),
      line.replace('"level":30,', ''),
      line.replace(/"time":"[^"]*"/, '"time":"soon"'),
    ]) {
      expect(readAll([odd], SECOND)[0]).toMatch(/^unknown: /);
    }
    expect(readAll(['not json'], SECOND)).toEqual(['unknown: log: not a JSON line']);
    expect(readAll(['{"msg":"no pid"}'], SECOND)).toEqual(['unknown: log: no `pid`']);
  });

  it('is pure: the same line reads the same twice', () => {
    const line = lines[aborted(30361)]!;
    const at = { file: FILE, offset: 7 };
    expect(readClineLogLine(line, at, SECOND)).toEqual(readClineLogLine(line, at, SECOND));
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
