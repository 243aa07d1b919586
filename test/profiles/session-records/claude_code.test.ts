import { mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  claudeCodeSessionRecord as reader,
  claudeProjectFolder,
} from '../../../src/profiles/claude_code/session-record.js';
import type { RecordEvent } from '../../../src/profiles/session-record.js';
import { sessionRecordReader } from '../../../src/profiles/session-records.js';

const FIXTURES = resolve('test/fixtures/session-records/claude_code');

/** Every event of a captured record, read line by line with byte offsets (as the follower does). */
function eventsOf(name: string): RecordEvent[] {
  const text = readFileSync(join(FIXTURES, `${name}.jsonl`), 'utf8');
  const events: RecordEvent[] = [];
  let offset = 0;
  for (const line of text.split('\n')) {
    if (line) {
      const reading = reader.read(line, { file: name, offset });
      if ('unknown' in reading) throw new Error(`${name}@${offset}: ${reading.unknown}`);
      events.push(...reading.events);
    }
    offset += Buffer.byteLength(line) + 1;
  }
  return events;
}

const summary = (events: RecordEvent[]) =>
  events.map((e) =>
    e.type === 'turn_started'
      ? 'started'
      : e.ending.reason === 'known_failure'
        ? `failure:${e.ending.kind}`
        : e.ending.reason,
  );

// The records as each verified release wrote them: 2.1.330's in the folder, newer ones in
// `<version>/` beside them.
describe.each([
  ['2.1.330', ''],
  ['2.1.332', '2.1.332/'],
])('Claude Code session record captured on %s', (_version, folder) => {
  it('reads two plain turns as two starts, each ended by the end of turn', () => {
    const events = eventsOf(folder + 'two-turns');
    expect(summary(events)).toEqual(['started', 'success', 'started', 'success']);
    expect(events.map((e) => e.event)).toEqual([
      'user',
      'assistant.end_turn',
      'user',
      'assistant.end_turn',
    ]);
    // Times and positions come from the record itself.
    expect(events.every((e) => typeof e.atMs === 'number' && e.atMs > 1.7e12)).toBe(true);
    const offsets = events.map((e) => e.position.offset);
    expect([...offsets].sort((a, b) => a - b)).toEqual(offsets);
  });

  it('keeps a turn open through a tool call and its result', () => {
    expect(summary(eventsOf(folder + 'tool-use'))).toEqual(['started', 'success']);
  });

  it('reads the interruption written as a user message', () => {
    const events = eventsOf(folder + 'interrupted');
    expect(summary(events)).toEqual(['started', 'interrupted']);
    expect(events[1]?.event).toBe('user.interrupted');
  });

  it('reads both API errors (500 and 529) as known failures, never a success', () => {
    const events = eventsOf(folder + 'api-error');
    expect(summary(events)).toEqual([
      'started',
      'failure:server_error',
      'started',
      'failure:server_error',
    ]);
  });
});

describe('Claude Code session record', () => {
  it('is registered', () => {
    expect(sessionRecordReader('claude_code')).toBe(reader);
  });

  const pos = { file: 'x', offset: 0 };
  it('reads an unknown line type, a new stop reason and a broken line as unknown', () => {
    expect(reader.read('{"type":"brand-new","x":1}', pos)).toEqual({
      unknown: 'line type "brand-new"',
    });
    expect(
      reader.read('{"type":"assistant","message":{"stop_reason":"thinking_budget"}}', pos),
    ).toHaveProperty('unknown');
    expect(reader.read('{"type":"user","mess', pos)).toHaveProperty('unknown');
    expect(reader.read('[1,2]', pos)).toHaveProperty('unknown');
  });

  it('reads variants: a tool-use interruption, max_tokens, subagent and meta lines', () => {
    const user = (text: string, extra = {}) =>
      JSON.stringify({
        type: 'user',
        message: { role: 'user', content: [{ type: 'text', text }] },
        ...extra,
      });
    expect(reader.read(user('[Request interrupted by user for tool use]'), pos)).toMatchObject({
      events: [{ type: 'turn_ended', ending: { reason: 'interrupted' } }],
    });
    expect(reader.read(user('a prompt', { isSidechain: true }), pos)).toEqual({ events: [] });
    expect(reader.read(user('<command>', { isMeta: true }), pos)).toEqual({ events: [] });
    expect(
      reader.read('{"type":"assistant","message":{"stop_reason":"max_tokens"}}', pos),
    ).toMatchObject({ events: [{ ending: { reason: 'known_failure', kind: 'max_tokens' } }] });
    expect(
      reader.read(
        '{"type":"assistant","isSidechain":true,"message":{"stop_reason":"end_turn"}}',
        pos,
      ),
    ).toEqual({ events: [] });
  });
});

describe('Claude Code session record: locate', () => {
  const root = resolve('.tmp/test-claude-locate', String(process.pid));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const home = join(root, 'home');
  const cwd = '/work/some project.x';
  const folder = join(home, '.claude', 'projects', claudeProjectFolder(cwd));
  mkdirSync(folder, { recursive: true });
  const started = Date.now() - 10_000;
  const file = (name: string, mtimeMs: number) => {
    const path = join(folder, `${name}.jsonl`);
    writeFileSync(path, '{}\n');
    utimesSync(path, mtimeMs / 1000, mtimeMs / 1000);
    return path;
  };
  const old = file('11111111-1111-4111-8111-111111111111', started - 60_000);
  const a = file('22222222-2222-4222-8222-222222222222', started + 1000);
  const b = file('33333333-3333-4333-8333-333333333333', started + 2000);
  const context = (over: Partial<Parameters<typeof reader.locate>[0]> = {}) => ({
    pid: 1,
    cwd,
    env: { HOME: home },
    openFiles: [],
    startedAtMs: started,
    claimed: new Set<string>(),
    ...over,
  });

  it('names the folder the way the CLI does', () => {
    expect(claudeProjectFolder('/home/me/a_b.c d')).toBe('-home-me-a-b-c-d');
  });

  it('takes the newest file written since the process started, never a claimed one', async () => {
    expect(await reader.locate(context())).toBe(b);
    expect(await reader.locate(context({ claimed: new Set([b]) }))).toBe(a);
    expect(await reader.locate(context({ claimed: new Set([a, b]) }))).toBeNull();
    expect(old).toContain(folder);
  });

  it('prefers an open file, then a session id on the command line', async () => {
    expect(await reader.locate(context({ openFiles: ['/dev/null', a] }))).toBe(a);
    expect(
      await reader.locate(
        context({ argv: ['claude', '--session-id', '11111111-1111-4111-8111-111111111111'] }),
      ),
    ).toBe(old);
  });

  it('follows CLAUDE_CONFIG_DIR and finds nothing for another folder', async () => {
    expect(
      await reader.locate(
        context({ env: { HOME: '/nowhere', CLAUDE_CONFIG_DIR: join(home, '.claude') } }),
      ),
    ).toBe(b);
    expect(await reader.locate(context({ cwd: '/elsewhere' }))).toBeNull();
  });
});
