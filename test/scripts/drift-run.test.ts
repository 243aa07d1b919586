/**
 * `npm run drift` for real on one CLI: the registry is asked about grok-cli, and its live suite's
 * first test runs against the pinned install (`.tmp/agents/grok_cli/`) with the journal the
 * canary reads. Skipped, with the reason, when grok-cli is not installed or the registry does
 * not answer.
 */
import { existsSync, readFileSync } from 'node:fs';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { isVerifiedVersion } from '../../src/profiles/index.js';
import { readPins } from '../../scripts/internal/drift/catalog.js';
import { pinnedBin } from '../../scripts/internal/drift/install.js';
import { decide, type DriftRow } from '../../scripts/internal/drift/row.js';

const pin = readPins('.').find((p) => p.id === 'grok_cli')!;
const bin = pinnedBin('.', 'grok_cli', pin.bin);
const installed = existsSync(bin);
if (!installed) console.warn(`drift run skipped: grok_cli is not installed at ${bin}`);

const drift = (...args: string[]) =>
  execa('npx', ['tsx', 'scripts/drift.ts', ...args], { reject: false, timeout: 240_000 });

describe('npm run drift', () => {
  it('says how it exits in --help, and refuses an unknown CLI with exit 2', async () => {
    const help = await drift('--help');
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('Exit status: 0 when every CLI');
    const bad = await drift('--only', 'nope');
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--only: no CLI nope');
  }, 120_000);

  it.skipIf(!installed)(
    'prints the grok_cli row from the registry and a live run against the pinned install',
    async (ctx) => {
      const r = await drift(
        '--only',
        'grok_cli',
        '--skip-install',
        '--all-live',
        '--tests',
        'reports ready once',
        '--json',
      );
      const rows = JSON.parse(r.stdout) as DriftRow[];
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      if (row.newest === null) ctx.skip(`the registry did not answer: ${row.registryError}`);
      expect(row.id).toBe('grok_cli');
      expect(row.pkg).toBe('@vibe-kit/grok-cli');
      expect(row.pinned).toBe(pin.pinned);
      expect(row.newest).toMatch(/^\d+\.\d+\.\d+/);
      expect(row.verified).toBe(isVerifiedVersion('grok_cli', row.newest!));
      // grok-cli is pure JS: no platform package to look for.
      expect(row.platform).toEqual({ ok: true, detail: 'no platform packages (pure JS)' });
      expect({ action: row.action, ok: row.ok }).toEqual(decide(row));
      expect(r.exitCode).toBe(row.ok ? 0 : 1);
      if (row.newest !== pin.pinned) {
        // A newer release is out and --skip-install installs nothing: not checked.
        expect(row.live).toEqual({ status: 'skipped', why: 'not installed (--skip-install)' });
        return;
      }
      // The pinned release: its first live test ran against .tmp/agents/grok_cli.
      expect(row.install).toEqual({ status: 'present', bin });
      expect(row.live, JSON.stringify(row.live)).toMatchObject({ status: 'pass', passed: 1 });
      expect(row.unrecognised).toBe(0);
      expect(row.action).toBe('verified');
      // The journal the count came from is there, and it saw the pane.
      const journal = '.tmp/drift/grok_cli@' + pin.pinned + '/journal/control/journal/';
      const segment = `${journal}segment-000000000001.jsonl`;
      expect(readFileSync(segment, 'utf8')).toContain('"kind":"terminal.attached"');
    },
    300_000,
  );
});
