/**
 * `paneward doctor` on journals written by the real Journal and panes of a real tmux server:
 * which panes it lists, how it counts unrecognised frames in the window, what it finds about
 * each pane now, and what it calls a problem.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { SchedulerLike } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnose, formatDoctor } from '../../src/cli/doctor.js';
import { Journal } from '../../src/journal/journal.js';
import type { RecordDraft } from '../../src/schemas/record.js';

const dirs: string[] = [];
/** A tmux socket no server listens on: every pane on it is gone. */
const NO_SERVER = `live-doctor-none-${process.pid}`;
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

const attached = (
  id: string,
  tool: string,
  toolVersion: string | null,
  target = `pw:${id}`,
): RecordDraft => ({
  kind: 'terminal.attached',
  terminalId: id,
  target,
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

describe('paneward doctor: a session record stepped aside', () => {
  it('names the terminal whose record held an unknown piece, until it is attached again', async () => {
    const aside: RecordDraft = {
      kind: 'anomaly',
      anomaly: 'session_record_unknown',
      terminalId: 'a',
      t: 1,
      tool: 'claude_code',
      file: '/h/.claude/projects/-w/s.jsonl',
      offset: 812,
      why: 'line type "brand-new"',
    };
    const dataDir = await journalOf([
      [T0, attached('a', 'claude_code', '2.1.330')],
      [T0 + 1000, attached('b', 'claude_code', '2.1.330')],
      [T0 + 2000, aside],
      [T0 + 3000, { ...aside, terminalId: 'b' }],
      [T0 + 4000, attached('b', 'claude_code', '2.1.330')],
    ]);
    const report = await diagnose({ dataDir, socketName: NO_SERVER }, new Date(T0 + 5000));
    const [a, b] = report.terminals;
    expect(a?.sessionRecordSteppedAside).toMatchObject({
      file: '/h/.claude/projects/-w/s.jsonl',
      offset: 812,
      why: 'line type "brand-new"',
    });
    expect(b).not.toHaveProperty('sessionRecordSteppedAside');
    expect(report.problems).toContainEqual(
      expect.stringMatching(
        /^a \(pw:a, claude_code 2\.1\.330\): its session record has a piece paneward does not know \(line type "brand-new", \/h\/\.claude\/projects\/-w\/s\.jsonl at 812, .*\); the screen alone decides its outcomes$/,
      ),
    );
    expect(report.problems.some((p) => p.startsWith('b ') && p.includes('session record'))).toBe(
      false,
    );
  });
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
    const report = await diagnose(
      { dataDir, socketName: NO_SERVER },
      new Date(T0 + 2 * 3600_000 + 1000),
    );
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
    // No tmux server on that socket: every pane is gone, and each one is a finding.
    expect(report.terminals.map((t) => t.pane)).toEqual(['gone', 'gone', 'gone', 'gone']);
    expect(report.problems).toEqual([
      expect.stringMatching(
        /^a \(pw:a, claude_code 2\.1\.330\): the pane is gone \((no server|error connecting)/,
      ),
      expect.stringMatching(/^b \(pw:b, codex 0\.169\.0\): the pane is gone/),
      expect.stringMatching(
        /^b \(pw:b, codex 0\.169\.0\): 8 frames in the last hour matched no known screen/,
      ),
      expect.stringMatching(/^c \(pw:c, gemini_cli\): the pane is gone/),
      expect.stringMatching(/^x \(pw:x, my_cli 1\.0\): the pane is gone/),
    ]);
    const text = formatDoctor(report);
    expect(text).toMatch(
      /TERMINAL\s+TARGET\s+PANE\s+CLI\s+VERSION\s+VERIFIED\s+UNRECOGNISED \(1 h\)/,
    );
    expect(text).toMatch(/\nb\s+pw:b\s+gone\s+codex\s+0\.169\.0\s+yes\s+8\n/);
  });

  it('calls a newer version a problem and says how to read it anyway; an older one is read, and said so', async () => {
    const dataDir = await journalOf([
      [T0, attached('n', 'claude_code', '2.3.0')],
      [T0, attached('o', 'claude_code', '2.0.1')],
    ]);
    const report = await diagnose({ dataDir, socketName: NO_SERVER }, new Date(T0));
    expect(report.terminals.map((t) => t.verified)).toEqual(['newer', 'other']);
    expect(report.problems.filter((p) => !p.includes('the pane is gone'))).toEqual([
      expect.stringContaining(
        'newer than the verified 2.1.332, 2.1.330; its screens are reported unrecognised (readiness unknown) unless paneward runs with --read-unverified',
      ),
      expect.stringContaining(
        'not a verified version (2.1.332, 2.1.330); read with the nearest vocabulary',
      ),
    ]);
  });

  it('says when there is no journal, and refuses a bad window naming the field', async () => {
    const report = await diagnose({ dataDir: join(tmpdir(), 'pw-doctor-none-0') });
    expect(report.journal.present).toBe(false);
    expect(report.problems).toContainEqual(expect.stringContaining('no journal in'));
    await expect(diagnose({ windowSeconds: '-5' })).rejects.toThrow(/windowSeconds/);
  });
});

/**
 * A CLI as doctor sees one: a process named like the CLI, run from an npm package whose
 * `package.json` states a version (the way a version-drifted install looks to paneward).
 * `version` null: a script outside any package, whose version nobody can read.
 */
function fakeCli(root: string, name: string, version: string | null): string {
  const dir =
    version === null ? join(root, name) : join(root, name, 'node_modules/@vibe-kit/grok-cli');
  mkdirSync(join(dir, 'dist'), { recursive: true });
  if (version !== null) {
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: '@vibe-kit/grok-cli', version, bin: { grok: 'dist/grok' } }),
    );
  }
  const script = join(dir, 'dist', 'grok');
  writeFileSync(script, `#!${process.execPath}\nsetInterval(() => {}, 1000);\n`);
  chmodSync(script, 0o755);
  return script;
}

describe('paneward doctor on real tmux panes', () => {
  const socket = `live-doctor-${process.pid}`;
  const tmux = (...args: string[]) =>
    execa('tmux', ['-L', socket, '-f', '/dev/null', ...args]).then((r) => r.stdout.trim());
  const newPane = (command?: string) =>
    tmux(
      'new-window',
      '-d',
      '-P',
      '-F',
      '#{pane_id}',
      '-t',
      'pw',
      ...(command ? [command] : ['/bin/sh']),
    );
  const panes: Record<string, string> = {};
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'pw-doctor-panes-'));
    dirs.push(root);
    await tmux('new-session', '-d', '-s', 'pw', '-x', '80', '-y', '24', '/bin/sh');
    panes.verified = await newPane(fakeCli(root, 'verified', '0.0.34'));
    panes.newer = await newPane(fakeCli(root, 'newer', '0.0.99'));
    panes.unread = await newPane(fakeCli(root, 'unread', null));
    panes.shell = await newPane();
    panes.killed = await newPane();
    await tmux('kill-pane', '-t', panes.killed);
  }, 30_000);

  afterAll(async () => {
    await tmux('kill-server').catch(() => undefined);
  });

  const journalFor = (...names: string[]) =>
    journalOf(names.map((n) => [T0, attached(n, 'grok_cli', null, panes[n]!)]));

  /** Waits until the fake CLIs run (a new window's command starts a moment later). */
  const settled = async (dataDir: string) => {
    for (let i = 0; ; i++) {
      const report = await diagnose({ dataDir, socketName: socket }, new Date(T0));
      const expected = report.terminals.every(
        (t) => !['verified', 'newer', 'unread'].includes(t.terminalId) || t.pane === 'running',
      );
      if (expected || i > 40) return report;
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  it('finds a pane gone, a pane with no agent CLI, and versions not verified; a verified CLI is fine', async () => {
    const dataDir = await journalFor('verified', 'newer', 'unread', 'shell', 'killed');
    const report = await settled(dataDir);
    expect(report.terminals.map((t) => [t.terminalId, t.pane, t.toolVersion, t.verified])).toEqual([
      ['verified', 'running', '0.0.34', 'yes'],
      ['newer', 'running', '0.0.99', 'newer'],
      ['unread', 'running', null, 'unknown'],
      ['shell', 'no_cli', null, 'unknown'],
      ['killed', 'gone', null, 'unknown'],
    ]);
    expect(report.terminals.find((t) => t.terminalId === 'shell')!.paneDetail).toBe('runs sh');
    expect(report.problems).toEqual([
      expect.stringMatching(/^newer \(%\d+, grok_cli 0\.0\.99\): newer than the verified 0\.0\.34/),
      expect.stringMatching(
        /^unread \(%\d+, grok_cli\): the running CLI's version could not be read, so it is not verified/,
      ),
      expect.stringMatching(
        /^shell \(%\d+, grok_cli\): no grok_cli process runs in the pane \(runs sh\)/,
      ),
      expect.stringMatching(/^killed \(%\d+, grok_cli\): the pane is gone \(can't find pane/),
    ]);
    expect(formatDoctor(report)).not.toContain('No problems found.');
  });

  const BIN = fileURLToPath(new URL('../../bin/paneward.js', import.meta.url));
  const doctor = (dataDir: string) =>
    execa(process.execPath, [BIN, 'doctor', '--data-dir', dataDir, '-L', socket], {
      reject: false,
      timeout: 60_000,
    });

  it('exits 1 on such findings, and 0 with "No problems found." when every pane runs a verified CLI', async () => {
    const bad = await journalFor('verified', 'shell');
    await settled(bad);
    const failed = await doctor(bad);
    expect(failed.exitCode, failed.stderr).toBe(1);
    expect(failed.stdout).toMatch(
      /! shell \(%\d+, grok_cli\): no grok_cli process runs in the pane/,
    );

    const good = await journalFor('verified');
    await settled(good);
    const fine = await doctor(good);
    expect(fine.exitCode, fine.stderr).toBe(0);
    expect(fine.stdout).toMatch(/\nverified\s+%\d+\s+running\s+grok_cli\s+0\.0\.34\s+yes\s+0\n/);
    expect(fine.stdout).toContain('No problems found.');
  }, 60_000);
});
