import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  codexSessionRecord as reader,
  threadStartMs,
} from '../../../src/profiles/codex/session-record.js';
import { sessionRecordReader } from '../../../src/profiles/session-records.js';
import type { SessionContext } from '../../../src/profiles/session-record.js';
import {
  brief,
  completeLines,
  fixtureText,
  mapLines,
  readRecord,
  reversedKeys,
  withExtraFields,
} from './read-record.js';

const turns = fixtureText('codex', 'turns.jsonl');

/** How the five recorded turns read, on every verified version: a reply, Escape, HTTP 400, a tool call and its follow-up, HTTP 500. */
const FIVE_TURNS = [
  'started',
  'success',
  'started',
  'interrupted',
  'started',
  'failed:other',
  'started',
  'success',
  'started',
  'failed:internal_server_error',
];

describe('codex session record: the recorded turns', () => {
  it('is the registered reader for codex', () => {
    expect(sessionRecordReader('codex')).toBe(reader);
  });

  it('reads each turn of the recorded session with how it ended', () => {
    const { events, unknown } = readRecord(reader, turns);
    expect(unknown).toEqual([]);
    // What the CLI did in that run: a reply, an Escape mid-stream, an HTTP 400, a tool call and
    // its follow-up reply, an HTTP 500.
    expect(events.map(brief)).toEqual(FIVE_TURNS);
    expect(events.map((e) => e.event)).toEqual([
      'task_started',
      'task_complete',
      'task_started',
      'turn_aborted',
      'task_started',
      'task_complete',
      'task_started',
      'task_complete',
      'task_started',
      'task_complete',
    ]);
  });

  it('places each event at the byte offset of its own line, with the time the record gives', () => {
    const bytes = Buffer.from(turns, 'utf8');
    for (const e of readRecord(reader, turns, '/x/rollout.jsonl').events) {
      expect(e.position.file).toBe('/x/rollout.jsonl');
      const line = bytes.subarray(e.position.offset).toString('utf8').split('\n')[0]!;
      const parsed = JSON.parse(line) as { timestamp: string; payload: { type: string } };
      expect(parsed.payload.type).toBe(e.event);
      expect(e.atMs).toBe(Date.parse(parsed.timestamp));
    }
  });

  it('reads a 0.171.0 session (written by its background server) the same way', () => {
    const { events, unknown } = readRecord(reader, fixtureText('codex', 'turns-0.171.0.jsonl'));
    expect(unknown).toEqual([]);
    // The same five turns: a reply, Escape mid-stream, HTTP 400, a tool call and its follow-up
    // in one turn, HTTP 500.
    expect(events.map(brief)).toEqual(FIVE_TURNS);
  });

  it('reads the second pane’s session: one reply', () => {
    const { events, unknown } = readRecord(reader, fixtureText('codex', 'second-pane.jsonl'));
    expect(unknown).toEqual([]);
    expect(events.map(brief)).toEqual(['started', 'success']);
  });
});

describe('codex session record: variants', () => {
  const expected = readRecord(reader, turns).events.map(brief);

  it('reads the same with every object’s fields in another order', () => {
    const read = readRecord(reader, mapLines(turns, reversedKeys));
    expect(read.unknown).toEqual([]);
    expect(read.events.map(brief)).toEqual(expected);
  });

  it('ignores fields it does not know', () => {
    const read = readRecord(reader, mapLines(turns, withExtraFields));
    expect(read.unknown).toEqual([]);
    expect(read.events.map(brief)).toEqual(expected);
  });

  it('calls a line type it does not know unknown, never an outcome', () => {
    const at = { file: '/r', offset: 0 };
    expect(reader.read('{"timestamp":"x","type":"turn_verdict","payload":{}}', at)).toHaveProperty(
      'unknown',
    );
    expect(
      reader.read('{"type":"event_msg","payload":{"type":"turn_finished_v2"}}', at),
    ).toHaveProperty('unknown');
    expect(
      reader.read('{"type":"event_msg","payload":{"type":"turn_aborted","reason":"replaced"}}', at),
    ).toHaveProperty('unknown');
    expect(reader.read('[1,2]', at)).toHaveProperty('unknown');
    expect(reader.read('not json', at)).toHaveProperty('unknown');
  });

  it('names a failure carried as a variant with data by the variant', () => {
    const line = JSON.stringify({
      type: 'event_msg',
      payload: {
        type: 'task_complete',
        error: { message: 'x', codex_error_info: { http_connection_failed: { status: null } } },
      },
    });
    const reading = reader.read(line, { file: '/r', offset: 0 });
    expect('events' in reading && reading.events.map(brief)).toEqual([
      'failed:http_connection_failed',
    ]);
  });

  it('never reads a truncated last line: a follower does not pass it, and alone it is unknown', () => {
    const lines = completeLines(turns);
    const last = lines[lines.length - 1]!;
    expect(last.line).toContain('task_complete');
    const cut = turns.slice(0, turns.length - 1 - Math.floor(last.line.length / 2));
    const read = readRecord(reader, cut);
    expect(read.events.map(brief)).toEqual([...expected.slice(0, -1)]);
    expect(read.unknown).toEqual([]);
    const half = last.line.slice(0, Math.floor(last.line.length / 2));
    expect(reader.read(half, { file: '/r', offset: last.offset })).toHaveProperty('unknown');
  });
});

describe('codex session record: locate on a home folder tree', () => {
  const root = mkdtempSync(join(tmpdir(), 'pw-codex-records-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const home = join(root, 'home');
  const sessions = join(home, '.codex', 'sessions', '2026', '11', '27');
  mkdirSync(sessions, { recursive: true });
  const t0 = Date.parse('2026-11-27T02:15:20.000Z');
  const rollout = (name: string, cwd: string, startMs: number) => {
    const file = join(sessions, `rollout-${name}.jsonl`);
    const meta = {
      timestamp: new Date(startMs + 20_000).toISOString(),
      type: 'session_meta',
      payload: { id: name, timestamp: new Date(startMs).toISOString(), cwd, originator: 'x' },
    };
    writeFileSync(file, `${JSON.stringify(meta)}\n`);
    utimesSync(file, new Date(startMs + 30_000), new Date(startMs + 30_000));
    return file;
  };
  const before = rollout('before', '/work', t0 - 120_000);
  const first = rollout('first', '/work', t0 + 4_000);
  const second = rollout('second', '/work', t0 + 64_000);
  const other = rollout('other', '/elsewhere', t0 + 2_000);
  writeFileSync(join(sessions, 'notes.txt'), 'not a rollout\n');
  const context = (over: Partial<SessionContext>): SessionContext => ({
    // A pid with no /proc entry: the reader falls back to start times alone.
    pid: 2 ** 30,
    cwd: '/work',
    env: { HOME: home },
    openFiles: [],
    startedAtMs: t0,
    claimed: new Set(),
    ...over,
  });

  it('finds the first session of its folder started after the process', async () => {
    expect(await reader.locate(context({}))).toBe(first);
    expect(await reader.locate(context({ cwd: '/elsewhere' }))).toBe(other);
  });

  it('skips a session another pane follows, and one started before the process', async () => {
    expect(await reader.locate(context({ claimed: new Set([first]) }))).toBe(second);
    expect(await reader.locate(context({ startedAtMs: t0 + 60_000 }))).toBe(second);
    expect(await reader.locate(context({ claimed: new Set([first, second]) }))).toBeNull();
    // `before` is the session of a process started earlier.
    expect(await reader.locate(context({ startedAtMs: t0 - 200_000 }))).toBe(before);
  });

  it('reads a thread’s start from its id (UUID v7)', () => {
    expect(threadStartMs('01a21ae2-7430-76a3-bc92-46fc260e9c60')).toBe(
      Date.parse('2026-11-27T02:42:58.224Z'),
    );
    expect(threadStartMs('01a21ae2-7430-46a3-bc92-46fc260e9c60')).toBeUndefined();
    expect(threadStartMs('notes')).toBeUndefined();
  });

  it('looks under CODEX_HOME when it is set', async () => {
    expect(await reader.locate(context({ env: { HOME: '/nowhere' } }))).toBeNull();
    expect(
      await reader.locate(context({ env: { HOME: '/nowhere', CODEX_HOME: join(home, '.codex') } })),
    ).toBe(first);
  });
});
