import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatScaleReport } from '../../scripts/internal/scale-report.js';
import { parseScaleArgs, runScale, SCALE_USAGE } from '../../scripts/internal/scale-run.js';

// Shape only: the benchmark prints what one run measured; no timing is asserted here.

/** Processes whose command line names this test process's fleet sockets. */
function fleetProcesses(): string[] {
  const mark = `pw-scale-bench-${process.pid}-`;
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .flatMap((n) => {
      try {
        const cmd = readFileSync(`/proc/${n}/cmdline`, 'utf8');
        return cmd.includes(mark) ? [cmd.replaceAll('\0', ' ')] : [];
      } catch {
        return [];
      }
    });
}

describe('bench:scale', () => {
  it('parses options, with the issue defaults, and rejects bad ones', () => {
    const d = parseScaleArgs([]);
    expect(d).toMatchObject({
      panes: [100, 500, 1000],
      workloads: ['idle', 'busy'],
      observers: ['supervisor', 'control', 'polling', 'loop'],
      seconds: 15,
      intervalMs: 500,
      busyShare: 0.1,
      cols: 160,
      rows: 45,
    });
    expect(parseScaleArgs(['--panes', '20,50', '--observers', 'control,loop'])).toMatchObject({
      panes: [20, 50],
      observers: ['control', 'loop'],
    });
    expect(parseScaleArgs(['--workloads', 'staggered'])).toMatchObject({
      workloads: ['staggered'],
    });
    expect(parseScaleArgs(['-h'])).toBe('help');
    expect(() => parseScaleArgs(['--panes', '0'])).toThrow(/--panes/);
    expect(() => parseScaleArgs(['--panes', '2.5'])).toThrow(/--panes/);
    expect(() => parseScaleArgs(['--observers', 'tmux'])).toThrow(/--observers/);
    expect(() => parseScaleArgs(['--workloads', 'busy,flood'])).toThrow(/--workloads/);
    expect(() => parseScaleArgs(['--seconds', '-1'])).toThrow(/--seconds/);
    expect(() => parseScaleArgs(['--nope'])).toThrow();
    expect(SCALE_USAGE).toMatch(/--panes/);
  });

  it('runs every observer on one small fleet, reports each, and leaves no tmux behind', async () => {
    const steps: string[] = [];
    const report = await runScale({
      ...(parseScaleArgs([]) as Exclude<ReturnType<typeof parseScaleArgs>, 'help'>),
      panes: [10],
      workloads: ['busy'],
      seconds: 2,
      warmupSeconds: 1,
      progress: (s) => steps.push(s),
    });
    expect(report.machine.cores).toBeGreaterThan(0);
    expect(report.machine.tmux).toMatch(/^tmux /);
    expect(report.rows).toHaveLength(1);
    const [row] = report.rows;
    expect(row).toMatchObject({ panes: 10, workload: 'busy' });
    // A baseline before the first observer and after each one.
    expect(steps.filter((s) => s.includes('no observer'))).toHaveLength(5);
    expect(row!.observers.map((o) => o.observer)).toEqual([
      'supervisor',
      'control',
      'polling',
      'loop',
    ]);
    for (const o of row!.observers) {
      expect(o.panes).toBe(10);
      expect(o.samples).toBeGreaterThan(0);
      for (const v of [o.observerCpuPct, o.tmuxCpuPct, o.tmuxIdlePct, o.heapPerPaneKB]) {
        expect(Number.isFinite(v) && v >= 0, String(v)).toBe(true);
      }
      expect(o.tmuxAboveIdlePct).toBe(Math.max(0, o.tmuxCpuPct - o.tmuxIdlePct));
      // One busy pane (a tenth of ten) prints a line a second.
      expect(o.latency?.printed).toBe(2);
      expect(o.intervalBusy).not.toBeNull();
    }
    const loop = row!.observers.find((o) => o.observer === 'loop')!;
    expect(loop.cpuVsLoop).toBe(1);
    expect(report.targets).toHaveLength(4);
    expect(report.targets.find((t) => t.target.includes('1000 panes, each'))?.met).toBeNull();
    const text = formatScaleReport(report);
    expect(text).toMatch(/^Machine: .+ cores/m);
    expect(text).toMatch(/^\| 10 \| busy \| paneward control mode \|/m);
    expect(text).toMatch(
      /^\| 10 \| busy \| paneward supervisor, control mode \(to public state\) \|/m,
    );
    expect(text).toMatch(/^\| 10 \| busy \| capture-pane loop \| .* \| 1\.0× \|/m);
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
    expect(fleetProcesses()).toEqual([]);
  }, 120_000);

  it('staggers every pane over ten seconds and measures output to public state', async () => {
    const report = await runScale({
      ...(parseScaleArgs([]) as Exclude<ReturnType<typeof parseScaleArgs>, 'help'>),
      panes: [20],
      workloads: ['staggered'],
      observers: ['supervisor'],
      seconds: 4,
      warmupSeconds: 1,
    });
    const [o] = report.rows[0]!.observers;
    // Every pane prints, once in ten seconds: about 2 lines a second over the 4 s window.
    expect(o!.latency?.printed).toBe(8);
    expect(o!.latency!.seen).toBeGreaterThanOrEqual(4);
    expect(o!.latency!.seen).toBeLessThanOrEqual(12);
    const { p50, p95, p99 } = o!.latency!;
    expect(p50).not.toBeNull();
    expect(p50!).toBeLessThanOrEqual(p95!);
    expect(p95!).toBeLessThanOrEqual(p99!);
    expect(formatScaleReport(report)).toMatch(/^\| 20 \| staggered \| paneward supervisor/m);
    expect(fleetProcesses()).toEqual([]);
  }, 120_000);

  it('prints its usage', () => {
    const out = execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        join(import.meta.dirname, '..', '..', 'scripts', 'bench-scale.ts'),
        '--help',
      ],
      { encoding: 'utf8' },
    );
    expect(out).toContain('usage: npm run bench:scale');
  });
});
