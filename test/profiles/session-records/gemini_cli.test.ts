import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { geminiCliSessionRecord as reader } from '../../../src/profiles/gemini_cli/session-record.js';
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

const turns = fixtureText('gemini_cli', 'turns.jsonl');

describe('gemini_cli session record: the recorded turns', () => {
  it('is the registered reader for gemini_cli, and says it never tells success', () => {
    expect(sessionRecordReader('gemini_cli')).toBe(reader);
    expect(reader.endings).toEqual(['interrupted', 'known_failure']);
  });

  it('reads each prompt as a turn’s start, an Escape as interrupted, an API error as a failure', () => {
    const { events, unknown } = readRecord(reader, turns);
    expect(unknown).toEqual([]);
    // What the CLI did in that run: a reply; an Escape mid-stream; an HTTP 400; a
    // list_directory call and its follow-up; a shell command run at once; a shell command
    // approved at the permission prompt. Replies end nothing: the record writes a reply before
    // its tool calls, the approved one while the prompt was still up.
    expect(events.map(brief)).toEqual([
      'started',
      'started',
      'interrupted',
      'started',
      'failed:http_400',
      'started',
      'started',
      'started',
    ]);
    expect(events.map((e) => e.event)).toEqual([
      'user',
      'user',
      'info',
      'user',
      'error',
      'user',
      'user',
      'user',
    ]);
  });

  it('places each event at the byte offset of its own line, with the time the record gives', () => {
    const bytes = Buffer.from(turns, 'utf8');
    for (const e of readRecord(reader, turns).events) {
      const line = bytes.subarray(e.position.offset).toString('utf8').split('\n')[0]!;
      const parsed = JSON.parse(line) as { timestamp: string; type: string };
      expect(parsed.type).toBe(e.event);
      expect(e.atMs).toBe(Date.parse(parsed.timestamp));
    }
  });

  it('reads the second pane’s session: one prompt', () => {
    const { events, unknown } = readRecord(reader, fixtureText('gemini_cli', 'second-pane.jsonl'));
    expect(unknown).toEqual([]);
    expect(events.map(brief)).toEqual(['started']);
  });
});

describe('gemini_cli session record: variants', () => {
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

  it('calls a message type or an update it does not know unknown, never an outcome', () => {
    const at = { file: '/r', offset: 0 };
    expect(
      reader.read('{"id":"1","timestamp":"x","type":"verdict","content":"done"}', at),
    ).toHaveProperty('unknown');
    expect(reader.read('{"$unset":{"summary":true}}', at)).toHaveProperty('unknown');
    expect(reader.read('{"id":"1","content":"x"}', at)).toHaveProperty('unknown');
    expect(reader.read('"text"', at)).toHaveProperty('unknown');
  });

  it('names an API error without a status code api_error', () => {
    const reading = reader.read('{"type":"error","content":"[API Error: fetch failed]"}', {
      file: '/r',
      offset: 0,
    });
    expect('events' in reading && reading.events.map(brief)).toEqual(['failed:api_error']);
  });

  it('never reads a truncated last line: a follower does not pass it, and alone it is unknown', () => {
    const lines = completeLines(turns);
    const cancel = lines.find((l) => l.line.includes('"Request cancelled."'))!;
    const half = cancel.line.slice(0, cancel.line.length - 5);
    const cut = turns.slice(0, turns.indexOf(cancel.line)) + half;
    expect(readRecord(reader, cut).events.map(brief)).toEqual(['started', 'started']);
    expect(reader.read(half, { file: '/r', offset: cancel.offset })).toHaveProperty('unknown');
  });
});

describe('gemini_cli session record: locate on a home folder tree', () => {
  const root = mkdtempSync(join(tmpdir(), 'pw-gemini-records-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const home = join(root, 'home');
  const t0 = Date.parse('2026-11-27T02:15:20.000Z');
  const hash = (cwd: string) => createHash('sha256').update(cwd).digest('hex');
  const session = (
    dir: string,
    project: string,
    name: string,
    cwd: string,
    startMs: number,
    kind = 'main',
  ) => {
    const chats = join(dir, '.gemini', 'tmp', project, 'chats');
    mkdirSync(chats, { recursive: true });
    const file = join(chats, `session-${name}.jsonl`);
    const header = {
      sessionId: name,
      projectHash: hash(cwd),
      startTime: new Date(startMs).toISOString(),
      lastUpdated: new Date(startMs).toISOString(),
      kind,
    };
    writeFileSync(file, `${JSON.stringify(header)}\n`);
    utimesSync(file, new Date(startMs + 30_000), new Date(startMs + 30_000));
    return file;
  };
  session(home, 'work', 'before', '/w/work', t0 - 120_000);
  const first = session(home, 'work', 'first', '/w/work', t0 + 5_000);
  const second = session(home, 'work', 'second', '/w/work', t0 + 65_000);
  session(home, 'work', 'helper', '/w/work', t0 + 3_000, 'subagent');
  const other = session(home, 'work-1', 'other', '/v/work', t0 + 2_000);
  const cliHome = join(root, 'cli-home');
  const elsewhere = session(cliHome, 'work', 'moved', '/w/work', t0 + 6_000);
  const context = (over: Partial<SessionContext>): SessionContext => ({
    pid: 2 ** 30,
    cwd: '/w/work',
    env: { HOME: home },
    openFiles: [],
    startedAtMs: t0,
    claimed: new Set(),
    ...over,
  });

  it('finds the first main session of its folder started after the process', async () => {
    expect(await reader.locate(context({}))).toBe(first);
    // Another folder with the same last name is told apart by the project hash.
    expect(await reader.locate(context({ cwd: '/v/work' }))).toBe(other);
  });

  it('skips a session another pane follows, and one started before the process', async () => {
    expect(await reader.locate(context({ claimed: new Set([first]) }))).toBe(second);
    expect(await reader.locate(context({ startedAtMs: t0 + 60_000 }))).toBe(second);
    expect(await reader.locate(context({ claimed: new Set([first, second]) }))).toBeNull();
  });

  it('looks under GEMINI_CLI_HOME when it is set', async () => {
    expect(await reader.locate(context({ env: { HOME: home, GEMINI_CLI_HOME: cliHome } }))).toBe(
      elsewhere,
    );
  });
});
