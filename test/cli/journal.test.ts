import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runJournal } from '../../src/cli/journal.js';
import { main } from '../../src/cli/main.js';
import { Journal } from '../../src/journal/journal.js';
import { journalDir, listSegments } from '../../src/journal/segments.js';

let dir: string;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pw-journal-cli-'));
  const j = new Journal({ dataDir: dir });
  await j.append({
    kind: 'terminal.attached',
    terminalId: 't1',
    target: '%1',
    tool: 'codex',
    toolVersion: null,
    watchdogBudgetSeconds: 0,
    readopted: false,
  });
  await j.append({
    kind: 'terminal.attached',
    terminalId: 't2',
    target: '%2',
    tool: 'gemini_cli',
    toolVersion: null,
    watchdogBudgetSeconds: 0,
    readopted: false,
  });
  await j.append({
    kind: 'state',
    terminalId: 't1',
    t: 1,
    changed: { 'readiness.status': 'ready' },
    transitions: [
      {
        machine: 'readiness',
        from: 'waiting',
        to: 'ready',
        event: 'evt_submit_ready',
        rule: 'submit_ready',
      },
    ],
    evidence: null,
  });
  await j.close();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('paneward journal', () => {
  it('prints every intact record around a damaged line and names the line it skipped (exit 1)', async () => {
    const seg = listSegments(journalDir(dir))[0]!.file;
    writeFileSync(seg, readFileSync(seg, 'utf8').replace('"gemini_cli"', '"gemini_clX"'));
    const out: string[] = [];
    const err: string[] = [];
    const skipped = await runJournal(
      { dataDir: dir },
      { out: (l) => out.push(l), err: (l) => err.push(l) },
    );
    expect(skipped).toBe(1);
    expect(out.map((l) => Number(l.trim().split(' ')[0]))).toEqual([1, 3]);
    expect(err[0]).toBe(`paneward: skipped ${seg} line 2: damaged (CRC or format), seq 2`);
    expect(err.at(-1)).toMatch(/1 damaged line skipped/);
    const stdout = process.stdout.write;
    const stderr = process.stderr.write;
    process.stdout.write = (() => true) as typeof process.stdout.write;
    process.stderr.write = (() => true) as typeof process.stderr.write;
    try {
      expect(await main(['journal', '--data-dir', dir])).toBe(1);
    } finally {
      process.stdout.write = stdout;
      process.stderr.write = stderr;
    }
  });

  it('prints a record written twice once, names the copy, and exits 0 (nothing is missing)', async () => {
    const seg = listSegments(journalDir(dir))[0]!.file;
    const lines = readFileSync(seg, 'utf8').split('\n');
    writeFileSync(seg, [lines[0], lines[1], lines[1], lines[2], ''].join('\n'));
    const out: string[] = [];
    const err: string[] = [];
    const skipped = await runJournal(
      { dataDir: dir },
      { out: (l) => out.push(l), err: (l) => err.push(l) },
    );
    expect(skipped).toBe(0);
    expect(out.map((l) => Number(l.trim().split(' ')[0]))).toEqual([1, 2, 3]);
    expect(err).toEqual([`paneward: skipped ${seg} line 3: a copy of seq 2, printed once`]);
  });

  it('prints every record, one line each, with what changed and the rule', async () => {
    const out: string[] = [];
    await runJournal({ dataDir: dir }, { out: (l) => out.push(l) });
    expect(out).toHaveLength(3);
    expect(out[0]).toMatch(/^ +1 \S+ t1 +terminal\.attached %1 codex$/);
    expect(out[2]).toMatch(
      /state readiness:waiting→ready\[submit_ready\] readiness\.status=ready$/,
    );
  });

  it('--since, --terminal and --json select and shape the output', async () => {
    const out: string[] = [];
    await runJournal(
      { dataDir: dir, since: '1', terminal: 't1', json: true },
      { out: (l) => out.push(l) },
    );
    expect(out.map((l) => JSON.parse(l) as { seq: number })).toEqual([
      expect.objectContaining({ seq: 3, kind: 'state' }),
    ]);
  });

  it('--follow prints records as a running supervisor writes them, beside its lock', async () => {
    const out: string[] = [];
    const stop = new AbortController();
    const writer = new Journal({ dataDir: dir });
    const following = runJournal(
      { dataDir: dir, follow: true, since: '3' },
      { out: (l) => out.push(l), signal: stop.signal, pollMs: 20 },
    );
    await writer.append({ kind: 'terminal.detached', terminalId: 't2' });
    const deadline = Date.now() + 5000;
    while (out.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    stop.abort();
    await following;
    await writer.close();
    expect(out).toEqual([expect.stringMatching(/ 4 .* t2 +terminal\.detached$/)]);
  });

  it('bad input names the field and exits 2', async () => {
    await expect(runJournal({ dataDir: dir, since: '-1' }, { out: () => {} })).rejects.toThrow(
      /field `since`: must be 0 or more/,
    );
    await expect(runJournal({ dataDir: join(dir, 'nope') }, { out: () => {} })).rejects.toThrow(
      /field `dataDir`: no journal in/,
    );
    expect(await main(['journal', '--data-dir', dir, '--since', 'x'])).toBe(2);
  });
});
