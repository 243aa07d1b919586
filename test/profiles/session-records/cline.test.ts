import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clineSessionRecord, readClineRecord } from '../../../src/profiles/cline/session-record.js';
import type { RecordEvent, SessionContext } from '../../../src/profiles/session-record.js';
import { sessionRecordReader } from '../../../src/profiles/session-records.js';

const FIXTURE = new URL('../../fixtures/session-records/cline/messages.json', import.meta.url);
const FILE = '/records/x.messages.json';
const fixture = readFileSync(FIXTURE, 'utf8');

const summary = (events: readonly RecordEvent[]) =>
  events.map((e) =>
    e.type === 'turn_started'
      ? `started ${e.event} @${e.position.offset}`
      : `ended ${e.ending.reason}${e.ending.reason === 'known_failure' ? ` ${e.ending.kind}` : ''} @${e.position.offset}`,
  );

const read = (text: string) => readClineRecord(text, { file: FILE, offset: 0 });
type Doc = { version: unknown; messages: Array<Record<string, unknown>> } & Record<string, unknown>;
const edit = (f: (d: Doc) => void) => {
  const d = JSON.parse(fixture) as Doc;
  f(d);
  return JSON.stringify(d);
};

describe('Cline session record: the recorded session', () => {
  it('is registered for the cline profile as a rewritten document', () => {
    expect(sessionRecordReader('cline')).toBe(clineSessionRecord);
    expect(clineSessionRecord.kind).toBe('document');
  });

  it('reads the four turns of the run to what the CLI did', () => {
    // The run (test/fixtures/session-records/cline/README.md): a plain reply; a reply
    // interrupted with Escape, which Cline does not write (the prompt stays unanswered: no end);
    // a 400 shown as an error; a tool call approved, then the final reply.
    const r = read(fixture);
    expect('events' in r ? summary(r.events) : r).toEqual([
      'started user_input @0',
      'ended success @1',
      'started user_input @2',
      'started user_input @3',
      'ended known_failure api_error @4',
      'started user_input @5',
      'ended success @8',
    ]);
  });

  it('takes each event’s time from the message', () => {
    const r = read(fixture);
    const doc = JSON.parse(fixture) as Doc;
    expect('events' in r).toBe(true);
    for (const e of 'events' in r ? r.events : []) {
      expect(e.atMs).toBe(doc.messages[e.position.offset]!.ts);
      expect(e.position.file).toBe(FILE);
    }
  });

  it('is pure: the same document reads the same twice', () => {
    expect(read(fixture)).toEqual(read(fixture));
  });
});

describe('Cline session record: variants', () => {
  it('reads the same with fields reordered or unknown fields added', () => {
    const reordered = edit((d) => {
      d.messages = d.messages.map((m) => Object.fromEntries(Object.entries(m).reverse()));
    });
    const extra = edit((d) => {
      d.future = true;
      d.messages = d.messages.map((m) => ({ ...m, alsoNew: [1] }));
    });
    expect(read(reordered)).toEqual(read(fixture));
    expect(read(extra)).toEqual(read(fixture));
  });

  it('reads an unknown role, part type or version as unknown, never as an outcome', () => {
    expect(read(edit((d) => (d.messages[1]!.role = 'system')))).toHaveProperty('unknown');
    expect(
      read(edit((d) => (d.messages[1]!.content = [{ type: 'image', data: '' }]))),
    ).toHaveProperty('unknown');
    expect(read(edit((d) => (d.version = 2)))).toEqual({ unknown: 'version 2' });
    expect(
      read(edit((d) => (d.messages[4]!.metadata = { displayOnly: true, displayRole: 'notice' }))),
    ).toHaveProperty('unknown');
  });

  it('reads a document caught half written as unknown', () => {
    expect(read(fixture.slice(0, fixture.length - 20))).toEqual({ unknown: 'not a JSON document' });
  });

  it('starts no turn on a tool result, and ends none on a reply that asks for a tool', () => {
    const r = read(edit((d) => (d.messages = d.messages.slice(5, 8))));
    expect('events' in r ? summary(r.events) : r).toEqual(['started user_input @0']);
  });

  it('reads the document as it grows: events only for what is written so far', () => {
    const partial = read(edit((d) => (d.messages = d.messages.slice(0, 1))));
    expect('events' in partial ? summary(partial.events) : partial).toEqual([
      'started user_input @0',
    ]);
  });
});

describe('Cline session record: locate', () => {
  let root: string;
  const FAKE_PID = 4_000_000; // above any pid_max: /proc has no such process
  const T0 = Date.parse('2026-11-27T02:20:00Z');

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'pw-cline-locate-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function session(
    id: string,
    o: { pid: number; at: number; exitCode?: number | null; messages?: boolean },
  ): string {
    const dir = join(root, '.cline', 'data', 'sessions', id);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${id}.messages.json`);
    writeFileSync(
      join(dir, `${id}.json`),
      JSON.stringify({
        version: 1,
        session_id: id,
        pid: o.pid,
        started_at: new Date(o.at).toISOString(),
        exit_code: o.exitCode ?? null,
        status: 'idle',
        cwd: '/work',
        messages_path: file,
      }),
    );
    if (o.messages !== false) writeFileSync(file, fixture);
    return file;
  }

  const context = (o: Partial<SessionContext> = {}): SessionContext => ({
    pid: FAKE_PID,
    cwd: '/work',
    env: { HOME: root },
    openFiles: [],
    startedAtMs: T0,
    claimed: new Set(),
    ...o,
  });

  it('finds the session this process runs, never another process’s in the same folder', async () => {
    const mine = session('1_mine', { pid: FAKE_PID, at: T0 + 5000 });
    const other = session('2_other', { pid: FAKE_PID + 1, at: T0 + 9000 });
    expect(await clineSessionRecord.locate(context())).toBe(mine);
    expect(await clineSessionRecord.locate(context({ pid: FAKE_PID + 1 }))).toBe(other);
  });

  it('passes over ended sessions, sessions older than the process and claimed files', async () => {
    session('1_ended', { pid: FAKE_PID, at: T0 + 5000, exitCode: 0 });
    session('2_old', { pid: FAKE_PID, at: T0 - 60_000 });
    const claimed = session('3_claimed', { pid: FAKE_PID, at: T0 + 7000 });
    expect(await clineSessionRecord.locate(context({ claimed: new Set([claimed]) }))).toBe(null);
  });

  it('is null for a session run by the hub daemon (its pid is not the pane’s)', async () => {
    session('1_hub', { pid: process.pid, at: T0 + 5000 });
    expect(await clineSessionRecord.locate(context())).toBe(null);
    // The daemon runs as a child of the first pane's CLI: a child's session is not the pane's.
    expect(await clineSessionRecord.locate(context({ pid: process.ppid }))).toBe(null);
  });

  it('is null before the first prompt and without a home', async () => {
    session('1_new', { pid: FAKE_PID, at: T0 + 5000, messages: false });
    expect(await clineSessionRecord.locate(context())).toBe(null);
    expect(await clineSessionRecord.locate(context({ env: {} }))).toBe(null);
  });
});
