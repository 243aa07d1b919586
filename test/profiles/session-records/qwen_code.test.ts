import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  qwenCodeSessionRecord as reader,
  qwenProjectFolder,
} from '../../../src/profiles/qwen_code/session-record.js';
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

const turns = fixtureText('qwen_code', 'turns.jsonl');

/** How the five recorded turns read, on every verified version: a reply, Escape (no mark), HTTP 400, a tool call and its follow-up, HTTP 500 to the end (no mark of the last). */
const FIVE_TURNS = [
  'started',
  'success',
  'started',
  'started',
  'failed:http_400',
  'started',
  'success',
  'started',
];

describe('qwen_code session record: the recorded turns', () => {
  it('is the registered reader for qwen_code, and says it never tells an interruption', () => {
    expect(sessionRecordReader('qwen_code')).toBe(reader);
    expect(reader.endings).toEqual(['success', 'known_failure']);
  });

  it('reads each turn of the recorded session with how it ended, where the record tells', () => {
    const { events, unknown } = readRecord(reader, turns);
    expect(unknown).toEqual([]);
    // What the CLI did in that run: a reply; an Escape mid-stream (no mark in the record); an
    // HTTP 400; a list_directory call and its follow-up reply; HTTP 500 on all seven attempts
    // (each recorded alike, none marked the last).
    expect(events.map(brief)).toEqual(FIVE_TURNS);
    expect(events.map((e) => e.event)).toEqual([
      'user',
      'assistant',
      'user',
      'user',
      'qwen-code.api_error',
      'user',
      'assistant',
      'user',
    ]);
  });

  it('reads the same turns of a 0.24.4 session alike (its file-history lines are quiet)', () => {
    const newer = fixtureText('qwen_code', 'turns-0.24.4.jsonl');
    const { events, unknown } = readRecord(reader, newer);
    expect(unknown).toEqual([]);
    // A reply; Escape mid-stream; an HTTP 400; a tool call (refused by the CLI: its
    // list_directory is off by default in 0.24) and the follow-up reply; HTTP 500 to the end.
    expect(events.map(brief)).toEqual(FIVE_TURNS);
    expect(newer).toContain('"subtype":"file_history_snapshot"');
    expect(newer).toContain('"version":"0.24.4"');
  });

  it('places each event at the byte offset of its own line, with the time the record gives', () => {
    const bytes = Buffer.from(turns, 'utf8');
    for (const e of readRecord(reader, turns).events) {
      const line = bytes.subarray(e.position.offset).toString('utf8').split('\n')[0]!;
      const parsed = JSON.parse(line) as { timestamp: string; type: string };
      expect(parsed.type).toBe(e.event === 'qwen-code.api_error' ? 'system' : e.event);
      expect(e.atMs).toBe(Date.parse(parsed.timestamp));
    }
  });

  it('reads the second pane’s session: one reply', () => {
    const { events, unknown } = readRecord(reader, fixtureText('qwen_code', 'second-pane.jsonl'));
    expect(unknown).toEqual([]);
    expect(events.map(brief)).toEqual(['started', 'success']);
  });
});

describe('qwen_code session record: variants', () => {
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

  it('calls a line type or a system subtype it does not know unknown, never an outcome', () => {
    const at = { file: '/r', offset: 0 };
    expect(reader.read('{"type":"verdict","timestamp":"x"}', at)).toHaveProperty('unknown');
    expect(reader.read('{"type":"system","subtype":"turn_end"}', at)).toHaveProperty('unknown');
    expect(reader.read('{"type":"assistant","message":{"role":"model"}}', at)).toHaveProperty(
      'unknown',
    );
    expect(reader.read('{"uuid":"1"}', at)).toHaveProperty('unknown');
  });

  it('leaves an error the CLI retries to the screen', () => {
    const line = (status: number) =>
      JSON.stringify({
        type: 'system',
        subtype: 'ui_telemetry',
        systemPayload: { uiEvent: { 'event.name': 'qwen-code.api_error', status_code: status } },
      });
    const at = { file: '/r', offset: 0 };
    expect(reader.read(line(429), at)).toEqual({ events: [] });
    expect(reader.read(line(503), at)).toEqual({ events: [] });
    const denied = reader.read(line(401), at);
    expect('events' in denied && denied.events.map(brief)).toEqual(['failed:http_401']);
  });

  it('never reads a truncated last line: a follower does not pass it, and alone it is unknown', () => {
    const lines = completeLines(turns);
    const reply = lines.find((l) => l.line.includes('"type":"assistant"'))!;
    const half = reply.line.slice(0, reply.line.length - 3);
    const cut = turns.slice(0, turns.indexOf(reply.line)) + half;
    expect(readRecord(reader, cut).events.map(brief)).toEqual(['started']);
    expect(reader.read(half, { file: '/r', offset: reply.offset })).toHaveProperty('unknown');
  });
});

describe('qwen_code session record: locate on a home folder tree', () => {
  const root = mkdtempSync(join(tmpdir(), 'pw-qwen-records-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const home = join(root, 'home');
  const t0 = Date.parse('2026-11-27T02:15:20.000Z');
  /** A session as the CLI leaves it: a debug log from its start, a chat record once prompted. */
  const session = (runtime: string, id: string, startMs: number, cwd: string | null) => {
    mkdirSync(join(runtime, 'debug'), { recursive: true });
    writeFileSync(
      join(runtime, 'debug', `${id}.txt`),
      `${new Date(startMs).toISOString()} [DEBUG] [PRECONNECT] start\n`,
    );
    if (cwd === null)
      return join(runtime, 'projects', qwenProjectFolder('/w/work'), 'chats', `${id}.jsonl`);
    const chats = join(runtime, 'projects', qwenProjectFolder(cwd), 'chats');
    mkdirSync(chats, { recursive: true });
    const file = join(chats, `${id}.jsonl`);
    writeFileSync(file, `${JSON.stringify({ sessionId: id, type: 'user', cwd })}\n`);
    return file;
  };
  const runtime = join(home, '.qwen');
  session(runtime, 'before', t0 - 120_000, '/w/work');
  session(runtime, 'other-folder', t0 + 1_000, '/v/work');
  const first = session(runtime, 'first', t0 + 2_000, '/w/work');
  const second = session(runtime, 'second', t0 + 62_000, '/w/work');
  const context = (over: Partial<SessionContext>): SessionContext => ({
    pid: 2 ** 30,
    cwd: '/w/work',
    env: { HOME: home },
    openFiles: [],
    startedAtMs: t0,
    claimed: new Set(),
    ...over,
  });

  it('names the folder as the CLI does', () => {
    expect(qwenProjectFolder('/home/me/x.y/work')).toBe('-home-me-x-y-work');
  });

  it('finds the session the CLI started after the process, skipping other folders’ sessions', async () => {
    expect(await reader.locate(context({}))).toBe(first);
    expect(await reader.locate(context({ cwd: '/v/work' }))).toBe(
      join(runtime, 'projects', qwenProjectFolder('/v/work'), 'chats', 'other-folder.jsonl'),
    );
  });

  it('skips a session another pane follows, and one started before the process', async () => {
    expect(await reader.locate(context({ claimed: new Set([first]) }))).toBe(second);
    expect(await reader.locate(context({ startedAtMs: t0 + 60_000 }))).toBe(second);
    expect(await reader.locate(context({ claimed: new Set([first, second]) }))).toBeNull();
  });

  it('finds nothing yet while its session has no prompt, rather than a later pane’s record', async () => {
    const fresh = join(root, 'fresh');
    const own = session(fresh, 'own', t0 + 2_000, null);
    const later = session(fresh, 'later', t0 + 30_000, '/w/work');
    const ctx = context({ env: { HOME: home, QWEN_RUNTIME_DIR: fresh } });
    expect(await reader.locate(ctx)).toBeNull();
    expect(later).not.toBe(own);
  });

  it('looks under QWEN_HOME, QWEN_RUNTIME_DIR before that', async () => {
    const moved = join(root, 'moved');
    const file = session(moved, 'moved', t0 + 3_000, '/w/work');
    expect(await reader.locate(context({ env: { HOME: home, QWEN_HOME: moved } }))).toBe(file);
    expect(
      await reader.locate(
        context({ env: { HOME: home, QWEN_HOME: moved, QWEN_RUNTIME_DIR: runtime } }),
      ),
    ).toBe(first);
  });

  it('without debug logs, takes the first record of its folder begun after the process', async () => {
    const plain = join(root, 'plain');
    const chats = join(plain, 'projects', qwenProjectFolder('/w/work'), 'chats');
    mkdirSync(chats, { recursive: true });
    const record = (id: string, ms: number) => {
      const file = join(chats, `${id}.jsonl`);
      writeFileSync(
        file,
        `${JSON.stringify({ type: 'user', timestamp: new Date(ms).toISOString() })}\n`,
      );
      return file;
    };
    record('old', t0 - 50_000);
    const mine = record('mine', t0 + 9_000);
    record('next', t0 + 19_000);
    expect(await reader.locate(context({ env: { HOME: home, QWEN_RUNTIME_DIR: plain } }))).toBe(
      mine,
    );
  });
});
