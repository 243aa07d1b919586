import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROFILES } from '../../src/profiles/index.js';
import { parsePins, readPins, selectPins } from '../../scripts/internal/drift/catalog.js';
import {
  platformNeed,
  platformOfName,
  platformVerdict,
  type Host,
  type PackageView,
} from '../../scripts/internal/drift/platform.js';
import { inPool, parseView } from '../../scripts/internal/drift/registry.js';

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
