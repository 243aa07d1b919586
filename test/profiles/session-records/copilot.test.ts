import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  copilotSessionRecord,
  readCopilotRecordLine,
} from '../../../src/profiles/copilot/session-record.js';
import type { RecordEvent, SessionContext } from '../../../src/profiles/session-record.js';
import { sessionRecordReader } from '../../../src/profiles/session-records.js';

const FIXTURE = new URL('../../fixtures/session-records/copilot/events.jsonl', import.meta.url);
const FILE = '/records/events.jsonl';

/** Splits a record as the follower does: complete lines with the byte offset each starts at. */
function linesOf(text: string): Array<{ line: string; offset: number }> {
  const out: Array<{ line: string; offset: number }> = [];
  let offset = 0;
  for (;;) {
    const end = text.indexOf('\n', offset);
    if (end < 0) break;
    out.push({ line: text.slice(offset, end), offset: Buffer.byteLength(text.slice(0, offset)) });
    offset = end + 1;
  }
  return out;
}

function readAll(text: string): { events: RecordEvent[]; unknown: string[] } {
  const events: RecordEvent[] = [];
  const unknown: string[] = [];
  for (const { line, offset } of linesOf(text)) {
    const r = readCopilotRecordLine(line, { file: FILE, offset });
    if ('unknown' in r) unknown.push(r.unknown);
    else events.push(...r.events);
  }
  return { events, unknown };
}

const summary = (events: readonly RecordEvent[]) =>
  events.map((e) =>
    e.type === 'turn_started'
      ? `started ${e.event}`
      : `ended ${e.ending.reason}${e.ending.reason === 'known_failure' ? ` ${e.ending.kind}` : ''} (${e.event})`,
  );

const fixture = readFileSync(FIXTURE, 'utf8');

describe('Copilot CLI session record: the recorded session', () => {
  it('is registered for the copilot profile', () => {
    expect(sessionRecordReader('copilot')).toBe(copilotSessionRecord);
    expect(copilotSessionRecord.kind).toBe('jsonl');
  });

  it('reads every line of the recorded session, none unknown', () => {
    expect(readAll(fixture).unknown).toEqual([]);
  });

  it('reads the five turns of the run to what the CLI did', () => {
    // The run (test/fixtures/session-records/copilot/README.md): a plain reply; a reply
    // interrupted with Escape Escape; a 400 shown at once; a shell tool call approved, then the
    // final reply; five 500s retried, then the CLI's final error; then /exit.
    expect(summary(readAll(fixture).events)).toEqual([
      'started user.message',
      'ended success (assistant.message)',
      'started user.message',
      'ended interrupted (abort)',
      'started user.message',
      'ended known_failure http_400 (session.error)',
      'started user.message',
      'ended success (assistant.message)',
      'started user.message',
      'ended known_failure http_500 (session.error)',
    ]);
  });

  it('gives each event the byte offset of its own line and the time the record names', () => {
    const { events } = readAll(fixture);
    for (const e of events) {
      const line = Buffer.from(fixture)
        .subarray(e.position.offset)
        .toString('utf8')
        .split('\n')[0]!;
      const parsed = JSON.parse(line) as { type: string; timestamp: string };
      expect(parsed.type).toBe(e.event);
      expect(e.atMs).toBe(Date.parse(parsed.timestamp));
      expect(e.position.file).toBe(FILE);
    }
  });

  it('ends the tool-call turn only at the reply that asks for no tool', () => {
    const { events } = readAll(fixture);
    const toolTurnEnd = events[7]!;
    const line = JSON.parse(
      Buffer.from(fixture).subarray(toolTurnEnd.position.offset).toString('utf8').split('\n')[0]!,
    ) as { data: { toolRequests: unknown[]; content: string } };
    expect(line.data.toolRequests).toEqual([]);
    expect(line.data.content).toBe('Created made.txt for you.');
  });
});

describe('Copilot CLI session record: a permission refused, then /clear', () => {
  const text = readFileSync(
    new URL('../../fixtures/session-records/copilot/deny-then-clear.jsonl', import.meta.url),
    'utf8',
  );

  it('reads the refused run as interrupted (Escape at the dialog cancels the run)', () => {
    const { events, unknown } = readAll(text);
    expect(unknown).toEqual([]);
    // The reply asking for the tool ends nothing; `/clear` ends the session, not a turn.
    expect(summary(events)).toEqual(['started user.message', 'ended interrupted (abort)']);
  });
});

describe('Copilot CLI session record: variants', () => {
  const lineOf = (type: string) =>
    fixture.split('\n').find((l) => (JSON.parse(l || '{}') as { type?: string }).type === type)!;
  const read = (line: string) => readCopilotRecordLine(line, { file: FILE, offset: 0 });
  const reorder = (line: string) => {
    const o = JSON.parse(line) as Record<string, unknown>;
    const data = o.data as Record<string, unknown>;
    const reversed = Object.fromEntries(Object.entries(data).reverse());
    return JSON.stringify(Object.fromEntries(Object.entries({ ...o, data: reversed }).reverse()));
  };
  const withExtra = (line: string) => {
    const o = JSON.parse(line) as Record<string, unknown>;
    return JSON.stringify({
      ...o,
      futureField: 1,
      data: { ...(o.data as object), alsoNew: { x: [1] } },
    });
  };
  type Line = { type: string; timestamp?: string; agentId?: string; data: Record<string, unknown> };
  const edit = (line: string, f: (o: Line) => void) => {
    const o = JSON.parse(line) as Line;
    f(o);
    return JSON.stringify(o);
  };

  it('reads the same with fields reordered or unknown fields added', () => {
    for (const type of ['user.message', 'assistant.message', 'abort', 'session.error']) {
      const line = lineOf(type);
      expect(read(reorder(line)), type).toEqual(read(line));
      expect(read(withExtra(line)), type).toEqual(read(line));
      const reading = read(line);
      expect('events' in reading ? reading.events.length : -1, type).toBe(1);
    }
  });

  it('reads an unknown line type as unknown, never as an outcome', () => {
    const line = edit(lineOf('abort'), (o) => (o.type = 'assistant.run_finished'));
    expect(read(line)).toEqual({ unknown: 'event type "assistant.run_finished"' });
  });

  it('reads an unknown abort reason as unknown', () => {
    const line = edit(lineOf('abort'), (o) => (o.data.reason = 'power_cut'));
    expect(read(line)).toHaveProperty('unknown');
  });

  it('reads a truncated line (a write caught half way) as unknown, never as events', () => {
    const line = lineOf('assistant.message');
    expect(read(line.slice(0, line.length - 5))).toEqual({ unknown: 'not a JSON line' });
    expect(read('[]')).toHaveProperty('unknown');
    expect(read(edit(line, (o) => delete o.timestamp))).toHaveProperty('unknown');
  });

  it('never ends the pane turn on a line written by a sub-agent', () => {
    const sub = edit(lineOf('assistant.message'), (o) => (o.agentId = 'agent-1'));
    expect(read(sub)).toEqual({ events: [] });
    const nested = edit(lineOf('session.error'), (o) => (o.data.parentToolCallId = 'call_1'));
    expect(read(nested)).toEqual({ events: [] });
  });

  it('starts no turn on a message steered into the run in flight or queued behind it', () => {
    for (const delivery of ['steering', 'queued']) {
      const line = edit(lineOf('user.message'), (o) => (o.data.delivery = delivery));
      expect(read(line)).toEqual({ events: [] });
    }
  });

  it('ends no turn on an error that names no prompt (a session-wide error)', () => {
    const line = edit(lineOf('session.error'), (o) => delete o.data.originatingMessageId);
    expect(read(line)).toEqual({ events: [] });
  });

  it('names an error without a status by its type', () => {
    const line = edit(lineOf('session.error'), (o) => {
      delete o.data.statusCode;
      o.data.errorType = 'rate_limit';
    });
    expect(read(line)).toMatchObject({
      events: [{ type: 'turn_ended', ending: { reason: 'known_failure', kind: 'rate_limit' } }],
    });
  });

  it('is pure: the same line reads the same twice', () => {
    const line = lineOf('assistant.message');
    expect(read(line)).toEqual(read(line));
  });
});

describe('Copilot CLI session record: locate', () => {
  let root: string;
  const FAKE_PID = 4_000_000; // above any pid_max: /proc has no such process
  const T0 = Date.parse('2026-11-27T02:10:00Z');

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'pw-copilot-locate-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A session folder as 1.0.102 leaves it, locked by `pid` when given. */
  function session(home: string, id: string, o: { pid?: number; events?: boolean; at: number }) {
    const dir = join(home, 'session-state', id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'workspace.yaml'), `id: ${id}\ncwd: /work\n`);
    if (o.events !== false) writeFileSync(join(dir, 'events.jsonl'), '');
    if (o.pid !== undefined) {
      for (const name of [`inuse.${o.pid}.lock`, `inuse.${o.pid}.hold`]) {
        writeFileSync(join(dir, name), String(o.pid));
        utimesSync(join(dir, name), new Date(o.at), new Date(o.at));
      }
    }
    return join(dir, 'events.jsonl');
  }

  const context = (
    o: Partial<SessionContext> & { env: Record<string, string> },
  ): SessionContext => ({
    pid: FAKE_PID,
    cwd: '/work',
    openFiles: [],
    startedAtMs: T0,
    claimed: new Set(),
    ...o,
  });

  it('finds the session locked by this process, not the other pane’s in the same folder', async () => {
    const home = join(root, 'home', '.copilot');
    const mine = session(home, 'aaaa', { pid: FAKE_PID, at: T0 + 500 });
    const other = session(home, 'bbbb', { pid: FAKE_PID + 1, at: T0 + 900 });
    session(home, 'cccc', { at: T0 + 1000 }); // an ended session, no lock
    expect(await copilotSessionRecord.locate(context({ env: { HOME: join(root, 'home') } }))).toBe(
      mine,
    );
    expect(
      await copilotSessionRecord.locate(
        context({ pid: FAKE_PID + 1, env: { HOME: join(root, 'home') } }),
      ),
    ).toBe(other);
  });

  it('after /clear (a new session in the same process) finds the newer session', async () => {
    const home = join(root, 'home', '.copilot');
    session(home, 'before', { pid: FAKE_PID, at: T0 + 500 });
    const after = session(home, 'after', { pid: FAKE_PID, at: T0 + 20_000 });
    expect(await copilotSessionRecord.locate(context({ env: { HOME: join(root, 'home') } }))).toBe(
      after,
    );
  });

  it('reads COPILOT_HOME before HOME', async () => {
    const home = join(root, 'elsewhere');
    const mine = session(home, 'aaaa', { pid: FAKE_PID, at: T0 + 500 });
    expect(
      await copilotSessionRecord.locate(
        context({ env: { HOME: join(root, 'home'), COPILOT_HOME: home } }),
      ),
    ).toBe(mine);
  });

  it('finds the session whose hold file the process keeps open', async () => {
    const home = join(root, 'home', '.copilot');
    const mine = session(home, 'aaaa', { pid: 123, at: T0 + 500 });
    const hold = join(home, 'session-state', 'aaaa', 'inuse.123.hold');
    expect(
      await copilotSessionRecord.locate(
        context({ env: { HOME: join(root, 'home') }, openFiles: ['/dev/null', hold] }),
      ),
    ).toBe(mine);
  });

  it('ignores a lock older than the process (an earlier holder of the pid)', async () => {
    const home = join(root, 'home', '.copilot');
    session(home, 'stale', { pid: FAKE_PID, at: T0 - 60_000 });
    expect(await copilotSessionRecord.locate(context({ env: { HOME: join(root, 'home') } }))).toBe(
      null,
    );
  });

  it('is null before the first prompt (no events yet), and for a claimed file', async () => {
    const home = join(root, 'home', '.copilot');
    session(home, 'aaaa', { pid: FAKE_PID, at: T0 + 500, events: false });
    expect(await copilotSessionRecord.locate(context({ env: { HOME: join(root, 'home') } }))).toBe(
      null,
    );
    const file = session(home, 'bbbb', { pid: FAKE_PID, at: T0 + 600 });
    expect(
      await copilotSessionRecord.locate(
        context({ env: { HOME: join(root, 'home') }, claimed: new Set([file]) }),
      ),
    ).toBe(null);
  });

  it('is null without a home folder or a session folder', async () => {
    expect(await copilotSessionRecord.locate(context({ env: {} }))).toBe(null);
    expect(await copilotSessionRecord.locate(context({ env: { HOME: root } }))).toBe(null);
  });
});
