import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { getProfile } from '../../src/profiles/index.js';
import { unrecognisedRecord } from '../../src/terminal/records.js';
import {
  countUnrecognised,
  liveResultOf,
  type VitestReport,
} from '../../scripts/internal/drift/live.js';
import {
  decide,
  exitCodeOf,
  formatTable,
  rowOf,
  type DriftFacts,
} from '../../scripts/internal/drift/row.js';

const facts = (over: Partial<DriftFacts>): DriftFacts => ({
  id: 'pi',
  pkg: '@mariozechner/pi-coding-agent',
  pinned: '0.73.1',
  newest: '0.74.0',
  verified: false,
  platform: { ok: true, detail: 'no platform packages (pure JS)' },
  install: { status: 'installed', bin: '/x/pi' },
  live: { status: 'pass', passed: 4, seconds: 80 },
  unrecognised: 0,
  ...over,
});

describe('the decision per row', () => {
  it('verified needs nothing; a verified release newer than the pin asks for the pin', () => {
    expect(decide(facts({ newest: '0.73.1', verified: true }))).toEqual({
      action: 'verified',
      ok: true,
    });
    expect(decide(facts({ newest: '0.74.0', verified: true }))).toEqual({
      action: 'verified: pin 0.74.0 in install-agent.sh',
      ok: true,
    });
    // Run with --all-live, a verified release whose suite fails is not waved through.
    expect(
      decide(
        facts({
          newest: '0.73.1',
          verified: true,
          live: { status: 'fail', passed: 3, failed: 1, seconds: 90, why: 'x' },
        }),
      ),
    ).toEqual({ action: 'live suite fails: record it and see what changed', ok: false });
  });

  it('a newer release that passes with every frame read is to be recorded and pinned', () => {
    expect(decide(facts({}))).toEqual({ action: 'newer, reads fine: record and pin it', ok: true });
  });

  it('unrecognised frames mean extending the vocabulary, even when the suite passed', () => {
    expect(decide(facts({ unrecognised: 3 }))).toEqual({
      action: 'unrecognised screens: record and extend the vocabulary',
      ok: false,
    });
    expect(
      decide(
        facts({
          unrecognised: 12,
          live: { status: 'fail', passed: 1, failed: 3, seconds: 90, why: 'x' },
        }),
      ).action,
    ).toBe('unrecognised screens: record and extend the vocabulary');
  });

  it('a failing suite with every frame read, no build, a failed install, no check, no registry', () => {
    expect(
      decide(facts({ live: { status: 'fail', passed: 3, failed: 1, seconds: 90, why: 'x' } })),
    ).toEqual({ action: 'live suite fails: record it and see what changed', ok: false });
    expect(
      decide(
        facts({
          platform: { ok: false, detail: 'no linux-x64 build: the registry has no a@1' },
          install: null,
          live: { status: 'skipped', why: 'no linux-x64 build' },
          unrecognised: null,
        }),
      ),
    ).toEqual({ action: 'no linux-x64 build: the registry has no a@1: keep the pin', ok: false });
    expect(
      decide(facts({ install: { status: 'failed', why: 'npm install exited 1: E404' } })),
    ).toEqual({ action: 'install failed: npm install exited 1: E404', ok: false });
    expect(
      decide(
        facts({
          live: { status: 'skipped', why: 'not installed (--skip-install)' },
          unrecognised: null,
        }),
      ),
    ).toEqual({ action: 'not checked: not installed (--skip-install)', ok: false });
    expect(decide(facts({ newest: null, registryError: 'E404: Not Found' }))).toEqual({
      action: 'ask the registry again: E404: Not Found',
      ok: false,
    });
  });
});

describe('the table', () => {
  it('prints one aligned line per CLI under a header', () => {
    const rows = [
      rowOf(
        facts({
          id: 'grok_cli',
          newest: '0.0.34',
          pinned: '0.0.34',
          verified: true,
          live: { status: 'skipped', why: 'verified' },
          unrecognised: null,
        }),
      ),
      rowOf(
        facts({
          unrecognised: 7,
          live: {
            status: 'fail',
            passed: 3,
            failed: 1,
            seconds: 91.6,
            why: 'reports ready: timed out',
          },
        }),
      ),
    ];
    const lines = formatTable(rows).split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(
      /^CLI +newest +pinned +verified\? +live suite +unrecognised +what to do$/,
    );
    expect(lines[1]).toMatch(/^-+( +-+){6}$/);
    expect(lines[2]).toMatch(/^grok_cli +0\.0\.34 +0\.0\.34 +yes +skipped: verified +- +verified$/);
    expect(lines[3]).toMatch(
      /^pi +0\.74\.0 +0\.73\.1 +no +fail \(1 of 4, 92s\): reports ready: timed out +7 +unrecognised screens: record and extend the vocabulary$/,
    );
    // Columns line up: "newest" starts at the same place on every line.
    const at = lines[0]!.indexOf('newest');
    expect(lines[2]!.indexOf('0.0.34')).toBe(at);
    expect(lines[3]!.indexOf('0.74.0')).toBe(at);
    expect(exitCodeOf(rows)).toBe(1);
    expect(exitCodeOf(rows.slice(0, 1))).toBe(0);
    expect(exitCodeOf([rowOf(facts({}))])).toBe(0);
  });
});

describe('the live run', () => {
  const report = (over: Partial<VitestReport>): VitestReport => ({
    numPassedTests: 5,
    numFailedTests: 0,
    numPendingTests: 1,
    testResults: [{ assertionResults: [] }],
    ...over,
  });

  it('reads pass, fail (with the first failing test) and skipped from the vitest report', () => {
    expect(liveResultOf(report({}), 80)).toEqual({ status: 'pass', passed: 5, seconds: 80 });
    expect(
      liveResultOf(
        report({
          numPassedTests: 4,
          numFailedTests: 1,
          testResults: [
            {
              assertionResults: [
                { title: 'reports ready', status: 'passed' },
                {
                  title: 'completes a turn',
                  status: 'failed',
                  failureMessages: ['\nAssertionError: expected none\n at x'],
                },
              ],
            },
          ],
        }),
        90,
      ),
    ).toEqual({
      status: 'fail',
      passed: 4,
      failed: 1,
      seconds: 90,
      why: 'completes a turn: AssertionError: expected none',
    });
    expect(
      liveResultOf(
        report({ numPassedTests: 0, numPendingTests: 6 }),
        3,
        'pi is not installed at /x',
      ),
    ).toEqual({ status: 'skipped', why: 'pi is not installed at /x' });
    expect(
      liveResultOf(
        report({
          numPassedTests: 0,
          testResults: [{ message: 'Failed to load x', assertionResults: [] }],
        }),
        3,
      ),
    ).toMatchObject({ status: 'fail', why: 'Failed to load x' });
  });

  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('counts the unrecognised frames of the tool in the journals a suite left', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pw-drift-'));
    dirs.push(dataDir);
    const journal = new Journal({ dataDir: join(dataDir, 'control'), fsync: false });
    const grok = getProfile('grok_cli', '0.0.35');
    const claude = getProfile('claude_code', '2.1.332');
    await journal.append(
      unrecognisedRecord('t1', 1, grok, '0.0.35', { frames: 3, firstT: 0.5, hash: 'a' }),
    );
    await journal.append(
      unrecognisedRecord('t1', 70, grok, '0.0.35', { frames: 40, firstT: 2, hash: 'b' }),
    );
    await journal.append(
      unrecognisedRecord('t2', 9, claude, '2.1.332', { frames: 5, firstT: 1, hash: 'c' }),
    );
    await journal.close();
    expect(countUnrecognised(dataDir, 'grok_cli')).toBe(43);
    expect(countUnrecognised(dataDir, 'claude_code')).toBe(5);
    expect(countUnrecognised(dataDir, 'pi')).toBe(0);
    expect(countUnrecognised(join(dataDir, 'none'), 'grok_cli')).toBe(0);
  });
});
