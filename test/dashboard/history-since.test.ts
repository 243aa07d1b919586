/**
 * `GET /v1/terminals/{id}/history?since=`: the dashboard's timeline asks for an hour of a
 * terminal's records, which can be more than the journal keeps per terminal in memory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asyncScheduler, NEVER, type SchedulerLike } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import type { SupervisorPort } from '../../src/service/port.js';
import type { JournalRecord } from '../../src/schemas/record.js';
import { PanewardError } from '../../src/errors.js';

const MIN = 60_000;

describe('history since a time', () => {
  let dir: string;
  let journal: Journal;
  let http: HttpApp;
  let clock = Date.parse('2026-11-26T10:00:00Z');
  const scheduler = Object.create(asyncScheduler, {
    now: { value: () => clock },
  }) as SchedulerLike;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-since-'));
    journal = new Journal({ dataDir: dir, fsync: false, recentPerTerminal: 5, scheduler });
    // 40 records of `t1`, one a minute (the last 30 within the hour before 10:40), and others.
    for (let i = 0; i < 40; i++) {
      await journal.append({ kind: 'terminal.detached', terminalId: 't1' });
      await journal.append({ kind: 'terminal.detached', terminalId: 'other' });
      clock += MIN;
    }
    const port = {
      journal,
      telemetry$: NEVER,
      ids: () => ['t1', 'other'],
      get: (id: string) => {
        if (id !== 't1' && id !== 'other')
          throw new PanewardError('unknown_terminal', `no terminal ${id}`);
        return {} as never;
      },
      history: (id: string, limit?: number) => {
        port.get(id);
        return journal.recent(id, limit);
      },
    };
    http = createHttpApp(port as unknown as SupervisorPort);
  });

  afterAll(async () => {
    http?.close();
    await journal?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const history = async (query: string) => {
    const res = await http.app.request(`/v1/terminals/t1/history${query}`);
    expect(res.status).toBe(200);
    return (await res.json()) as { records: JournalRecord[]; completeSince?: string };
  };
  const records = async (query: string) => (await history(query)).records;

  it('reaches back past the records kept in memory, to the time asked for', async () => {
    // Without `since`: only what is kept for the terminal.
    expect(await records('?limit=2000')).toHaveLength(5);
    const since = new Date(clock - 30 * MIN).toISOString();
    const got = await records(`?since=${since}&limit=2000`);
    expect(got).toHaveLength(30);
    expect(got.every((r) => r.terminalId === 't1' && Date.parse(r.at) >= Date.parse(since))).toBe(
      true,
    );
    const seqs = got.map((r) => r.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect((await history(`?since=${since}&limit=2000`)).completeSince).toBe(since);
    // The latest `limit` of them: complete only from the oldest one given.
    const last = await history(`?since=${since}&limit=3`);
    expect(last.records.map((r) => r.seq)).toEqual(seqs.slice(-3));
    expect(last.completeSince).toBe(last.records[0]!.at);
  });

  it('says from when its records are complete when the journal does not reach back that far', async () => {
    const since = new Date(clock - 100 * MIN).toISOString();
    const got = await history(`?since=${since}&limit=2000`);
    expect(got.records).toHaveLength(40);
    // Nothing was recorded before the journal's first record: complete from then, not before.
    expect(got.completeSince).toBe('2026-11-26T10:00:00.000Z');
  });

  it('refuses a time that is not one, naming the field', async () => {
    const res = await http.app.request('/v1/terminals/t1/history?since=an-hour-ago');
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('since');
    expect(
      (await http.app.request('/v1/terminals/nope/history?since=2026-11-26T10:00:00Z')).status,
    ).toBe(404);
  });
});
