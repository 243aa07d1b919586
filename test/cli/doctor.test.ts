/**
 * `paneward doctor` on journals written by the real Journal: which panes it lists, how it
 * counts unrecognised frames in the window, and what it calls a problem.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SchedulerLike } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { diagnose, formatDoctor } from '../../src/cli/doctor.js';
import { Journal } from '../../src/journal/journal.js';
import type { RecordDraft } from '../../src/schemas/record.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const T0 = Date.parse('2026-11-25T08:00:00Z');

/** A data directory whose journal holds `drafts`, each written at its own epoch ms. */
async function journalOf(drafts: Array<[number, RecordDraft]>): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pw-doctor-'));
  dirs.push(dataDir);
  let now = 0;
  const scheduler = {
    now: () => now,
    schedule: () => ({ unsubscribe() {} }),
  } as unknown as SchedulerLike;
  const journal = new Journal({ dataDir, scheduler, fsync: false });
  for (const [at, draft] of drafts) {
    now = at;
    void journal.append(draft);
  }
  await journal.close();
  return dataDir;
}

const attached = (id: string, tool: string, toolVersion: string | null): RecordDraft => ({
  kind: 'terminal.attached',
  terminalId: id,
  target: `pw:${id}`,
  tool,
  toolVersion,
  watchdogBudgetSeconds: 0,
  readopted: false,
});

const unrecognised = (id: string, frames: number): RecordDraft => ({
  kind: 'anomaly',
  anomaly: 'unrecognised_screen',
  terminalId: id,
  t: 0,
  tool: 'codex',
  toolVersion: '0.169.0',
  frames,
  firstT: 0,
  screenHash: 'abcdef0123456789',
});

describe('paneward doctor', () => {
  it('lists every supervised pane with its version, whether it is verified, and the last hour of unrecognised frames', async () => {
    const dataDir = await journalOf([
      [T0, attached('a', 'claude_code', null)],
      [T0 + 1000, attached('b', 'codex', '0.169.0')],
      [T0 + 2000, attached('c', 'gemini_cli', null)],
      [T0 + 3000, attached('gone', 'codex', null)],
      [T0 + 4000, { kind: 'terminal.detached', terminalId: 'gone' }],
      [T0 + 5000, attached('x', 'my_cli', '1.0')],
      // a: the running CLI turned out to be 2.1.330 (a state record says so).
      [
        T0 + 6000,
        {
          kind: 'state',
          terminalId: 'a',
          t: 6,
          changed: { toolVersion: '2.1.330' },
          transitions: [],
          evidence: null,
        },
      ],
      // b: 7 frames two hours ago (outside the window), 5 + 3 inside it.
      [T0, unrecognised('b', 7)],
      [T0 + 2 * 3600_000 - 10_000, unrecognised('b', 5)],
      [T0 + 2 * 3600_000, unrecognised('b', 3)],
    ]);
    const report = await diagnose({ dataDir }, new Date(T0 + 2 * 3600_000 + 1000));
    expect(
      report.terminals.map((t) => [
        t.terminalId,
        t.tool,
        t.toolVersion,
        t.verified,
        t.unrecognisedFrames,
      ]),
    ).toEqual([
      ['a', 'claude_code', '2.1.330', 'yes', 0],
      ['b', 'codex', '0.169.0', 'yes', 8],
      ['c', 'gemini_cli', null, 'unknown', 0],
      ['x', 'my_cli', '1.0', 'n/a', 0],
    ]);
    expect(report.problems).toEqual([
      expect.stringMatching(
        /^b \(pw:b, codex 0\.169\.0\): 8 frames in the last hour matched no known screen/,
      ),
    ]);
    const text = formatDoctor(report);
    expect(text).toMatch(/TERMINAL\s+TARGET\s+CLI\s+VERSION\s+VERIFIED\s+UNRECOGNISED \(1 h\)/);
    expect(text).toMatch(/\nb\s+pw:b\s+codex\s+0\.169\.0\s+yes\s+8\n/);
  });

  it('calls a newer version a problem and says how to read it anyway; an older one is read, and said so', async () => {
    const dataDir = await journalOf([
      [T0, attached('n', 'claude_code', '2.3.0')],
      [T0, attached('o', 'claude_code', '2.0.1')],
    ]);
    const report = await diagnose({ dataDir }, new Date(T0));
    expect(report.terminals.map((t) => t.verified)).toEqual(['newer', 'other']);
    expect(report.problems).toEqual([
      expect.stringContaining(
        'newer than the verified 2.1.330; its screens are reported unrecognised (readiness unknown) unless paneward runs with --read-unverified',
      ),
      expect.stringContaining('not a verified version (2.1.330); read with the nearest vocabulary'),
    ]);
  });

  it('says when there is no journal, and refuses a bad window naming the field', async () => {
    const report = await diagnose({ dataDir: join(tmpdir(), 'pw-doctor-none-0') });
    expect(report.journal.present).toBe(false);
    expect(report.problems).toContainEqual(expect.stringContaining('no journal in'));
    await expect(diagnose({ windowSeconds: '-5' })).rejects.toThrow(/windowSeconds/);
  });
});
