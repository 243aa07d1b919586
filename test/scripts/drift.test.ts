import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { PROFILES } from '../../src/profiles/index.js';
import { getProfile } from '../../src/profiles/index.js';
import { unrecognisedRecord } from '../../src/terminal/records.js';
import { parsePins, readPins, selectPins } from '../../scripts/internal/drift/catalog.js';
import {
  countUnrecognised,
  liveResultOf,
  type VitestReport,
} from '../../scripts/internal/drift/live.js';
import {
  platformNeed,
  platformOfName,
  platformVerdict,
  type Host,
  type PackageView,
} from '../../scripts/internal/drift/platform.js';
import { inPool, parseView } from '../../scripts/internal/drift/registry.js';
import {
  decide,
  exitCodeOf,
  formatTable,
  rowOf,
  type DriftFacts,
} from '../../scripts/internal/drift/row.js';

const FIXTURES = 'test/scripts/fixtures/drift/';
const fixture = (name: string) => readFileSync(`${FIXTURES}${name}`, 'utf8');
const viewOf = (name: string): PackageView => {
  const a = parseView(fixture(name), name);
  if (!a.found) throw new Error(a.why);
  return a.view;
};

const LINUX: Host = { platform: 'linux', arch: 'x64', libc: 'glibc' };

describe('the pins', () => {
  it('reads one pin per profile from scripts/install-agent.sh', () => {
    const pins = readPins('.');
    const profiles = Object.keys(PROFILES).filter((id) => id !== 'unsupported');
    expect(pins.map((p) => p.id).sort()).toEqual(profiles.sort());
    for (const p of pins) expect(p.pinned, p.id).toMatch(/^\d+\.\d+\.\d+/);
    const grok = pins.find((p) => p.id === 'grok_cli')!;
    expect(grok.pkg).toBe('@vibe-kit/grok-cli');
    expect(grok.bin).toBe('grok');
  });

  it('splits a scoped package at its last @, and refuses a line without a version', () => {
    expect(parsePins('  kilo) pkg=@kilocode/cli@7.7.7 bin=kilo ;;\n  *) exit 2 ;;')).toEqual([
      { id: 'kilo', pkg: '@kilocode/cli', pinned: '7.7.7', bin: 'kilo' },
    ]);
    expect(() => parsePins('  pi) pkg=pi-coding-agent bin=pi ;;')).toThrow(
      /pi line pins no version/,
    );
  });

  it('--only keeps the order given and names an unknown id', () => {
    const pins = parsePins('  a) pkg=a@1.0.0 bin=a ;;\n  b) pkg=b@2.0.0 bin=b ;;');
    expect(selectPins(pins, 'b,a').map((p) => p.id)).toEqual(['b', 'a']);
    expect(selectPins(pins, undefined)).toHaveLength(2);
    expect(() => selectPins(pins, 'a,zz')).toThrow('--only: no CLI zz (one of a, b)');
    expect(() => selectPins(pins, ' , ')).toThrow('--only needs at least one CLI id');
  });
});

describe('the platform check', () => {
  it('reads platform package names', () => {
    expect(platformOfName('@kilocode/cli-linux-x64-baseline-musl')).toEqual({
      os: 'linux',
      arch: 'x64',
      musl: true,
    });
    expect(platformOfName('@github/copilot-linuxmusl-arm64')).toEqual({
      os: 'linux',
      arch: 'arm64',
      musl: true,
    });
    expect(platformOfName('opencode-windows-x64')).toEqual({
      os: 'win32',
      arch: 'x64',
      musl: false,
    });
    expect(platformOfName('@statelyai/inspect')).toBeNull();
  });

  it('Kilo 7.8.1 lists a linux-x64 package the registry does not have: no Linux build', () => {
    const view = viewOf('kilocode-cli-7.8.1.json');
    expect(view.version).toBe('7.8.1');
    const need = platformNeed(view, LINUX);
    expect(need).toEqual({
      kind: 'one_of',
      packages: [
        {
          name: '@kilocode/cli-linux-x64-baseline',
          spec: '@kilocode/cli-linux-x64-baseline@7.8.1',
        },
        { name: '@kilocode/cli-linux-x64', spec: '@kilocode/cli-linux-x64@7.8.1' },
      ],
    });
    // What the registry answers for the platform package: its E404.
    const missing = parseView(
      fixture('kilocode-cli-linux-x64-7.8.1.e404.json'),
      '@kilocode/cli-linux-x64@7.8.1',
    );
    expect(missing).toEqual({ found: false, why: 'E404: No match found for version 7.8.1' });
    const found = {
      '@kilocode/cli-linux-x64-baseline@7.8.1': null,
      '@kilocode/cli-linux-x64@7.8.1': null,
    };
    const verdict = platformVerdict(need, found, LINUX);
    expect(verdict.ok).toBe(false);
    expect(verdict.detail).toBe(
      'no linux-x64 build: the registry has no @kilocode/cli-linux-x64-baseline@7.8.1 or @kilocode/cli-linux-x64@7.8.1',
    );
    // One of them there is enough.
    expect(
      platformVerdict(need, { ...found, '@kilocode/cli-linux-x64@7.8.1': '7.8.1' }, LINUX),
    ).toEqual({ ok: true, detail: '@kilocode/cli-linux-x64@7.8.1' });
  });

  it('picks the musl builds on a musl host and the darwin ones on a Mac', () => {
    const view = viewOf('kilocode-cli-7.8.1.json');
    const musl = platformNeed(view, { ...LINUX, libc: 'musl' });
    expect(musl.kind === 'one_of' && musl.packages.map((p) => p.name).sort()).toEqual([
      '@kilocode/cli-linux-x64-baseline-musl',
      '@kilocode/cli-linux-x64-musl',
    ]);
    const mac = platformNeed(view, { platform: 'darwin', arch: 'arm64', libc: null });
    expect(mac.kind === 'one_of' && mac.packages.map((p) => p.name)).toEqual([
      '@kilocode/cli-darwin-arm64',
    ]);
  });

  it('asks for the package an npm: alias names (Codex)', () => {
    const need = platformNeed(viewOf('openai-codex-0.171.0.json'), LINUX);
    expect(need).toEqual({
      kind: 'one_of',
      packages: [{ name: '@openai/codex-linux-x64', spec: '@openai/codex@0.171.0-linux-x64' }],
    });
  });

  it('a pure JS package runs anywhere; os and cpu fields can exclude the host', () => {
    const grok = viewOf('vibe-kit-grok-cli-0.0.34.json');
    expect(platformNeed(grok, LINUX)).toEqual({ kind: 'any' });
    expect(platformVerdict({ kind: 'any' }, {}, LINUX)).toEqual({
      ok: true,
      detail: 'no platform packages (pure JS)',
    });
    const macOnly = platformNeed({ ...grok, os: ['darwin'] }, LINUX);
    expect(macOnly.kind).toBe('excluded');
    expect(platformNeed({ ...grok, os: ['!linux'] }, LINUX).kind).toBe('excluded');
    expect(platformNeed({ ...grok, cpu: ['arm64'] }, LINUX).kind).toBe('excluded');
    expect(platformNeed({ ...grok, os: ['!win32'], cpu: ['x64', 'arm64'] }, LINUX).kind).toBe(
      'any',
    );
    expect(
      platformNeed({ ...grok, optionalDependencies: { 'x-darwin-arm64': '1.0.0' } }, LINUX),
    ).toEqual({ kind: 'excluded', why: 'no linux-x64 package among its optional dependencies' });
  });

  it('asks a few at a time, answers in order', async () => {
    let running = 0;
    let most = 0;
    const out = await inPool([5, 1, 4, 2, 3], 2, async (n) => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, n * 5));
      running--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
  });

  it('reads what npm view prints, or names what is wrong with it', () => {
    expect(parseView('', 'x')).toEqual({ found: false, why: 'npm view x printed no JSON' });
    expect(parseView('"1.0.0"', 'x')).toEqual({ found: false, why: 'npm view x printed "1.0.0"' });
    const several = parseView(
      '[{"name":"x","version":"1.0.0"},{"name":"x","version":"1.1.0"}]',
      'x',
    );
    expect(several.found && several.view.version).toBe('1.1.0');
  });
});

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
