/**
 * Runs one CLI's live suite against an executable (`PANEWARD_AGENT_BIN_<TOOL>`) with the fake
 * model server, and counts the frames paneward could not read from the journal the suite
 * leaves (`PANEWARD_LIVE_DATA_DIR`).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { journalDir, readSegments } from '../../../src/journal/segments.js';
import type { JournalRecord } from '../../../src/schemas/record.js';
import { agentBinVariable } from '../../../src/tooling/agents/chat-agent.js';
import type { LiveResult } from './row.js';

/** The part of vitest's JSON report read here. */
export interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests?: number;
  testResults: Array<{
    message?: string;
    assertionResults: Array<{ title: string; status: string; failureMessages?: string[] }>;
  }>;
}

/** Pass, fail or skipped from a vitest JSON report; `warning` is why a suite skipped itself. */
export function liveResultOf(report: VitestReport, seconds: number, warning?: string): LiveResult {
  const passed = report.numPassedTests;
  const failed = report.numFailedTests;
  const suiteError = report.testResults.find((t) => t.message)?.message;
  if (failed > 0 || (suiteError && passed === 0)) {
    const first = report.testResults
      .flatMap((t) => t.assertionResults)
      .find((a) => a.status === 'failed');
    const why = first
      ? `${first.title}: ${firstLine(first.failureMessages?.[0] ?? '')}`
      : firstLine(suiteError ?? 'the suite failed');
    return { status: 'fail', passed, failed: Math.max(failed, 1), seconds, why };
  }
  if (passed === 0) return { status: 'skipped', why: warning ?? 'every test skipped' };
  return { status: 'pass', passed, seconds };
}

/** The line of a failure that says what was wrong: the assertion's own words where it has them. */
const firstLine = (s: string): string => {
  const lines = s.split('\n');
  const expected = lines.find((l) => /\bexpected .+ to /.test(l));
  const line = expected
    ? `AssertionError: ${expected.slice(expected.search(/\bexpected /))}`
    : (lines.find((l) => l.trim() !== '') ?? '');
  return line.length > 160 ? `${line.slice(0, 157)}...` : line.trim();
};

/** Frames of `tool` paneward recorded as unrecognised in the journals under `dataDir`. */
export function countUnrecognised(dataDir: string, tool: string): number {
  if (!existsSync(dataDir)) return 0;
  let frames = 0;
  for (const source of readdirSync(dataDir)) {
    const dir = journalDir(join(dataDir, source));
    if (!existsSync(dir)) continue;
    const { records } = readSegments(dir, 0, isUnrecognised(tool));
    for (const r of records) if (r.kind === 'anomaly' && 'frames' in r) frames += r.frames;
  }
  return frames;
}

const isUnrecognised =
  (tool: string) =>
  (r: JournalRecord): boolean =>
    r.kind === 'anomaly' && r.anomaly === 'unrecognised_screen' && r.tool === tool;

export interface LiveRun {
  live: LiveResult;
  unrecognised: number | null;
}

/** Runs `test/e2e/live/<id>.test.ts` with `bin`, its journal and report under `scratch`. */
export async function runLiveSuite(o: {
  root: string;
  id: string;
  suite: string;
  bin: string;
  scratch: string;
  sources: string;
  /** Only the tests whose names match (vitest's `-t`). */
  tests?: string;
  timeoutMs: number;
  /** Where vitest's own output goes (the suite's progress), line by line. */
  log?: (line: string) => void;
}): Promise<LiveRun> {
  const dataDir = join(o.scratch, 'journal');
  const reportFile = join(o.scratch, 'live-report.json');
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(reportFile, { force: true });
  mkdirSync(o.scratch, { recursive: true });
  const started = Date.now();
  const r = await execa(
    'npx',
    [
      'vitest',
      'run',
      o.suite,
      ...(o.tests ? ['-t', o.tests] : []),
      '--reporter=json',
      `--outputFile=${reportFile}`,
      '--reporter=default',
    ],
    {
      cwd: o.root,
      reject: false,
      timeout: o.timeoutMs,
      all: true,
      env: {
        [agentBinVariable(o.id)]: o.bin,
        PANEWARD_LIVE_DATA_DIR: dataDir,
        PANEWARD_LIVE_SOURCES: o.sources,
        CI: '',
      },
    },
  );
  const seconds = (Date.now() - started) / 1000;
  if (o.log) for (const line of (r.all ?? '').split('\n')) o.log(line);
  const unrecognised = countUnrecognised(dataDir, o.id);
  if (r.timedOut) {
    return {
      live: {
        status: 'fail',
        passed: 0,
        failed: 1,
        seconds,
        why: `timed out after ${o.timeoutMs / 60_000} min`,
      },
      unrecognised,
    };
  }
  if (!existsSync(reportFile)) {
    return {
      live: {
        status: 'fail',
        passed: 0,
        failed: 1,
        seconds,
        why: `vitest exited ${r.exitCode} with no report`,
      },
      unrecognised,
    };
  }
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as VitestReport;
  const warning = /live \S+ suite skipped: ([^\n]+)/.exec(r.all ?? '')?.[1];
  const live = liveResultOf(report, seconds, warning);
  return { live, unrecognised: live.status === 'skipped' ? null : unrecognised };
}
