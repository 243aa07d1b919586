import {
  appendFileSync,
  mkdirSync,
  renameSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RecordEvent, SessionRecordReader } from '../../src/profiles/session-record.js';
import { RecordFollower, type FollowerReport } from '../../src/sessions/follower.js';

const root = resolve('.tmp/test-follower', String(process.pid));
mkdirSync(root, { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A reader of lines `start`/`end`/`noise`; anything else is unknown. Records what it was given. */
function lineReader(seen: string[] = []): SessionRecordReader {
  return {
    tool: 'test',
    kind: 'jsonl',
    verifiedVersions: [],
    locate: () => Promise.resolve(null),
    read(piece, position) {
      seen.push(piece);
      if (piece === 'noise') return { events: [] };
      if (piece === 'start') return { events: [{ type: 'turn_started', event: piece, position }] };
      if (piece === 'end')
        return {
          events: [{ type: 'turn_ended', ending: { reason: 'success' }, event: piece, position }],
        };
      return { unknown: `line ${piece}` };
    },
  };
}

/** A document reader: a JSON array of `start`/`end` strings, one event per entry. */
const docReader: SessionRecordReader = {
  tool: 'test',
  kind: 'document',
  verifiedVersions: [],
  locate: () => Promise.resolve(null),
  read(piece, position) {
    const entries = JSON.parse(piece) as string[];
    if (!Array.isArray(entries)) return { unknown: 'not an array' };
    const events: RecordEvent[] = [];
    for (const [i, e] of entries.entries()) {
      const at = { file: position.file, offset: i };
      if (e === 'start') events.push({ type: 'turn_started', event: e, position: at });
      else if (e === 'end')
        events.push({ type: 'turn_ended', ending: { reason: 'success' }, event: e, position: at });
      else if (e !== 'noise') return { unknown: `entry ${e}` };
    }
    return { events };
  },
};

const followers: RecordFollower[] = [];
afterEach(() => followers.splice(0).forEach((f) => f.stop()));

function follow(file: string, reader: SessionRecordReader, pollMs = 10_000) {
  const reports: FollowerReport[] = [];
  const f = new RecordFollower({ file, reader, report: (r) => reports.push(r), pollMs });
  followers.push(f);
  const events = () =>
    reports.flatMap((r) =>
      r.type === 'events' ? r.events.map((e) => `${e.event}@${e.position.offset}`) : [],
    );
  return { f, reports, events };
}

const until = async (cond: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('RecordFollower (jsonl)', () => {
  it('reads only appended bytes, complete lines only, with byte offsets', async () => {
    const file = join(root, 'append.jsonl');
    writeFileSync(file, 'start\nnoi');
    const seen: string[] = [];
    const { f, events } = follow(file, lineReader(seen));
    await f.check();
    expect(events()).toEqual(['start@0']);
    expect(seen).toEqual(['start']); // the half-written line waits
    appendFileSync(file, 'se\nend\n');
    await f.check();
    expect(events()).toEqual(['start@0', 'end@12']);
    expect(seen).toEqual(['start', 'noise', 'end']);
    await f.check();
    expect(seen).toHaveLength(3); // nothing read twice
    expect(f.position).toBe(16);
  });

  it('is woken by the file changing (fs.watch), without waiting for the poll', async () => {
    const file = join(root, 'watched.jsonl');
    writeFileSync(file, '');
    const { f, events } = follow(file, lineReader(), 60_000);
    f.start();
    await new Promise((r) => setTimeout(r, 100));
    appendFileSync(file, 'start\n');
    await until(() => events().length === 1, 2000);
    expect(events()).toEqual(['start@0']);
  });

  it('falls back to the poll, and waits for a file that does not exist yet', async () => {
    const file = join(root, 'later', 'late.jsonl');
    const { f, events } = follow(file, lineReader(), 50);
    f.start(); // the folder is missing too: no watch, the poll alone
    await new Promise((r) => setTimeout(r, 120));
    mkdirSync(join(root, 'later'), { recursive: true });
    writeFileSync(file, 'start\nend\n');
    await until(() => events().length === 2);
  });

  it('reads a replaced file (new inode) and a truncated one again from the start', async () => {
    const file = join(root, 'rotate.jsonl');
    writeFileSync(file, 'start\nend\n');
    const { f, reports, events } = follow(file, lineReader());
    await f.check();
    writeFileSync(join(root, 'rotate.tmp'), 'start\n');
    renameSync(join(root, 'rotate.tmp'), file);
    await f.check();
    expect(reports.filter((r) => r.type === 'reset')).toEqual([{ type: 'reset', why: 'replaced' }]);
    expect(events()).toEqual(['start@0', 'end@6', 'start@0']);
    truncateSync(file, 0);
    await f.check();
    appendFileSync(file, 'end\n');
    await f.check();
    expect(
      reports.filter((r) => r.type === 'reset').map((r) => r.type === 'reset' && r.why),
    ).toEqual(['replaced', 'truncated']);
    expect(events().slice(3)).toEqual(['end@0']);
  });

  it('stops at an unknown line, after passing on what came before it', async () => {
    const file = join(root, 'unknown.jsonl');
    writeFileSync(file, 'start\n{"new":1}\nend\n');
    const seen: string[] = [];
    const { f, reports } = follow(file, lineReader(seen));
    await f.check();
    expect(reports).toEqual([
      { type: 'events', events: [expect.objectContaining({ event: 'start' })] },
      { type: 'unknown', why: 'line {"new":1}', position: { file, offset: 6 } },
    ]);
    appendFileSync(file, 'start\n');
    await f.check();
    expect(seen).toEqual(['start', '{"new":1}']); // nothing after it is read
  });
});

describe('RecordFollower (document)', () => {
  it('re-reads the changed document and passes on only new events', async () => {
    const file = join(root, 'doc.json');
    writeFileSync(file, JSON.stringify(['start']));
    const { f, events } = follow(file, docReader);
    await f.check();
    writeFileSync(file, JSON.stringify(['start', 'noise', 'end']));
    await f.check();
    expect(events()).toEqual(['start@0', 'end@2']);
    writeFileSync(file, '["start", "noise", "end", "st'); // half written
    await f.check();
    writeFileSync(file, JSON.stringify(['start', 'noise', 'end', 'start']));
    await f.check();
    expect(events()).toEqual(['start@0', 'end@2', 'start@3']);
  });

  it('steps aside on an unknown document', async () => {
    const file = join(root, 'doc-unknown.json');
    writeFileSync(file, JSON.stringify(['start', 'brand-new']));
    const { f, reports } = follow(file, docReader);
    await f.check();
    expect(reports).toEqual([
      { type: 'unknown', why: 'entry brand-new', position: { file, offset: 0 } },
    ]);
  });
});
