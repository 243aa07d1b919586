import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestoreIndex } from '../../src/journal/restore.js';
import { journalDir, readRecords } from '../../src/journal/segments.js';
import type { JournalRecord } from '../../src/schemas/record.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT } from './internal/stand-in-profile.js';

const CHILD = fileURLToPath(new URL('./internal/crash-child.ts', import.meta.url));
const KILLS = Number(process.env.PANEWARD_CRASH_KILLS ?? 100);

/** A small deterministic generator, so a failing run can be repeated with its seed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

interface Child {
  lines: string[];
  exited: Promise<void>;
  kill(): void;
  /** Resolves when the child printed a line matching `re`. */
  waitFor(re: RegExp, ms: number): Promise<void>;
}

function runChild(args: string[]): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: Array<{ re: RegExp; resolve: () => void }> = [];
  let buffer = '';
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      lines.push(line);
      for (const w of waiters.filter((x) => x.re.test(line))) w.resolve();
    }
  });
  let stderr = '';
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (c: string) => (stderr += c));
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  return {
    lines,
    exited,
    kill: () => proc.kill('SIGKILL'),
    waitFor: (re, ms) =>
      new Promise<void>((resolve, reject) => {
        if (lines.some((l) => re.test(l))) return resolve();
        const timer = setTimeout(
          () => reject(new Error(`child printed no ${re} in ${ms} ms: ${stderr}`)),
          ms,
        );
        waiters.push({ re, resolve: () => (clearTimeout(timer), resolve()) });
        void exited.then(() => reject(new Error(`child exited: ${stderr}`)));
      }),
  };
}

/** The observed part of a public state: what a fresh supervisor must agree on. */
const observed = (s: TerminalState) => ({
  target: s.target,
  diagnostics: s.diagnostics.availability,
  readiness: s.readiness.status,
  surface: [s.surface.businessState, s.surface.inputMode, s.surface.readyPosture],
  phase: s.turn.phase,
});

describe(`a supervisor killed with SIGKILL at ${KILLS} random points`, () => {
  let session: AgentSession;
  let dir: string;
  const targets: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-crash-'));
    session = await startAgentSession({
      cwd: dir,
      env: { STAND_IN_WORK_MS: '400' },
      command: [process.execPath, STAND_IN_AGENT],
    });
    targets.push(session.target);
    for (const i of [1, 2]) {
      await execa('tmux', [
        ...['-L', session.socketName, 'split-window', '-t', session.target, '-d'],
        ...['-e', 'STAND_IN_WORK_MS=400', process.execPath, STAND_IN_AGENT],
      ]);
      targets.push(`pw:0.${i}`);
    }
    await session.waitForText(/❯/);
  });

  afterAll(async () => {
    // PANEWARD_CRASH_KEEP=1 keeps the panes and the data directory for a look after a failure.
    if (process.env.PANEWARD_CRASH_KEEP === '1') {
      console.log(`kept: tmux -L ${session.socketName}, ${dir}`);
      return;
    }
    await session?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loses no acknowledged record, repeats no seq, cancels each watchdog window once, re-adopts what is there', async () => {
    const seed = Number(process.env.PANEWARD_CRASH_SEED ?? 20261125);
    const rand = random(seed);
    const data = join(dir, 'data');
    const acked = new Set<number>();
    let kinds = new Map<string, number>();
    for (let i = 0; i < KILLS; i++) {
      const child = runChild([data, session.socketName, ...targets]);
      await child.waitFor(/^ACK /, 20_000);
      await new Promise((r) => setTimeout(r, Math.floor(rand() * 1500)));
      child.kill();
      await child.exited;
      for (const line of child.lines) if (line.startsWith('ACK ')) acked.add(Number(line.slice(4)));

      const records = readRecords(journalDir(data));
      const seqs = records.map((r) => r.seq);
      const where = `after kill ${i + 1} (seed ${seed})`;
      expect(seqs, `${where}: seq 1..N, in order, no gap, no repeat`).toEqual(
        seqs.map((_, k) => k + 1),
      );
      const missing = [...acked].filter((s) => s > seqs.length);
      expect(missing, `${where}: acknowledged records lost`).toEqual([]);
      expect(
        cancelsPerWindow(records).filter(([, n]) => n !== 1),
        `${where}: windows cancelled twice`,
      ).toEqual([]);
      kinds = countKinds(records);
    }
    // The runs did what the test is about: turns, watchdog cancels, re-adoptions.
    expect(kinds.get('turn.started') ?? 0).toBeGreaterThan(10);
    expect(kinds.get('watchdog.cancel') ?? 0).toBeGreaterThan(3);
    expect(kinds.get('terminal.attached') ?? 0).toBeGreaterThanOrEqual(KILLS * targets.length);
    console.log(
      `crash test: ${KILLS} kills, ${acked.size} records acknowledged, ${JSON.stringify(Object.fromEntries(kinds))}`,
    );

    // Re-adopted state against a fresh supervisor's first look at the same panes.
    const readopted = runChild([data, session.socketName, ...targets, '--observe', '2000']);
    const fresh = runChild([data, session.socketName, ...targets, '--observe', '2000', '--fresh']);
    await Promise.all([readopted.exited, fresh.exited]);
    const states = (c: Child) =>
      c.lines
        .filter((l) => l.startsWith('STATE '))
        .map((l) => observed(JSON.parse(l.slice(6)) as TerminalState));
    expect(states(readopted)).toHaveLength(targets.length);
    const index = new RestoreIndex();
    const records = readRecords(journalDir(data));
    for (const r of records) index.apply(r);
    const restored = index.attached().map(([id, f]) => {
      const open = f.openTurn?.turn.id;
      const turnRecords = records.filter(
        (r) => r.terminalId === id && 'turnId' in r && r.turnId === open,
      );
      return `${id}: open ${JSON.stringify(f.openTurn)} last ${JSON.stringify(f.lastTurn)}\n  ${turnRecords.map((r) => JSON.stringify(r)).join('\n  ')}`;
    });
    expect(
      states(readopted),
      `re-adopted against fresh; what the journal restores:\n${restored.join('\n')}`,
    ).toEqual(states(fresh));
  }, 1_200_000);
});

/** Each watchdog window (terminal and window start) with the number of cancel records it has. */
function cancelsPerWindow(records: readonly JournalRecord[]): Array<[string, number]> {
  const n = new Map<string, number>();
  for (const r of records) {
    if (r.kind !== 'watchdog.cancel') continue;
    const key = `${r.terminalId} ${r.sessionStartedAt}`;
    n.set(key, (n.get(key) ?? 0) + 1);
  }
  return [...n];
}

function countKinds(records: readonly JournalRecord[]): Map<string, number> {
  const n = new Map<string, number>();
  for (const r of records) n.set(r.kind, (n.get(r.kind) ?? 0) + 1);
  return n;
}
