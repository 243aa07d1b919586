import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FrameBenchReport } from '../../scripts/internal/frame-bench.js';

// Shape only: the benchmark prints what one run measured; no timing is asserted here.
const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'bench-frame.ts');

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, ...args], {
    encoding: 'utf8',
    env: { ...process.env, PANEWARD_HOUMAO_DIR: '', ...env },
    timeout: 120_000,
  });
}

const positive = (v: number) => expect(Number.isFinite(v) && v > 0, String(v)).toBe(true);

describe('bench:frame', () => {
  it('prints µs per frame, the reference workload and the machine as JSON', () => {
    const r = run(['--frames', '200', '--rounds', '1', '--warmup', '0', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as FrameBenchReport;
    expect(report.framesPerPass).toBeGreaterThanOrEqual(200);
    expect(report.overall.count).toBe(report.framesPerPass);
    for (const v of [report.overall.medianUs, report.overall.meanUs, report.overall.p99Us]) {
      positive(v);
    }
    positive(report.reference.medianUs);
    positive(report.frameToReference);
    expect(report.machine.cores).toBeGreaterThan(0);
    expect(report.machine.cpu).not.toBe('');
    expect(report.machine.node).toBe(process.version);
    const tools = Object.values(report.byTool);
    expect(tools.reduce((n, t) => n + t.framesPerPass, 0)).toBe(report.framesPerPass);
    expect(report.houmao).toBeNull();
  });

  it('names a bad option and prints the usage', () => {
    const r = run(['--rounds', '0']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('--rounds needs an integer ≥ 1');
    const u = run(['--nope']);
    expect(u.status).toBe(2);
    expect(u.stderr).toContain('usage: npm run bench:frame');
  });
});
