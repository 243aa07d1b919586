import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  benchPipeline,
  listRecordings,
  loadRecording,
} from '../../scripts/internal/bench-pipeline.js';
import { benchProbe } from '../../scripts/internal/bench-probe.js';
import { formatReport } from '../../scripts/internal/bench-report.js';
import { DEFAULT_FIXTURES, parseBenchArgs, runBench } from '../../scripts/internal/bench-run.js';
import { PROFILES } from '../../src/profiles/index.js';

// Shape only: benchmarks print what one run measured; no timing is asserted here.
const FIXTURE = join(DEFAULT_FIXTURES, 'codex', 'normal-turn.jsonl');

function framesIn(file: string): number {
  return loadRecording(file).lines.filter((l) => l.type === 'frame').length;
}

function parsedFramesIn(file: string): number {
  return loadRecording(file).lines.filter(
    (l) => l.type === 'frame' && l.transport === 'tmux_up' && l.process !== 'tui_down',
  ).length;
}

const positive = (v: number) => expect(Number.isFinite(v) && v > 0, String(v)).toBe(true);

describe('bench', () => {
  it('lists every recording of every tool and no server log', () => {
    const files = listRecordings(DEFAULT_FIXTURES);
    expect(files).toContain(FIXTURE);
    expect(files.some((f) => f.endsWith('.server.jsonl'))).toBe(false);
    expect(new Set(files.map((f) => loadRecording(f).header.tool))).toEqual(
      new Set(Object.keys(PROFILES).filter((id) => id !== 'unsupported')),
    );
  });

  it('times every frame of one recording over one pass', () => {
    const rec = loadRecording(FIXTURE);
    const frames = framesIn(FIXTURE);
    expect(frames).toBeGreaterThan(0);
    const r = benchPipeline([rec], { passes: 1, warmupPasses: 0 });
    expect(Object.keys(r.byTool)).toEqual(['codex']);
    for (const g of [r.overall, r.byTool.codex!]) {
      expect(g.recordings).toBe(1);
      expect(g.framesPerPass).toBe(frames);
      expect(g.frame.count).toBe(frames);
      expect(g.parse.count).toBe(parsedFramesIn(FIXTURE));
      for (const v of [g.frame.medianUs, g.frame.p99Us, g.frame.meanUs, g.frame.framesPerSecond])
        positive(v);
      for (const v of [g.parse.medianUs, g.parse.p99Us, g.parse.meanUs, g.parse.shareOfFrame])
        positive(v);
      expect(g.frame.p99Us).toBeGreaterThanOrEqual(g.frame.medianUs);
    }
  });

  it('counts frames per pass: two passes measure twice the frames', () => {
    const r = benchPipeline([loadRecording(FIXTURE)], { passes: 2, warmupPasses: 1 });
    expect(r.overall.frame.count).toBe(2 * framesIn(FIXTURE));
    expect(r.passes).toBe(2);
    expect(r.warmupPasses).toBe(1);
  });

  it('probes a real tmux pane and kills its server', async () => {
    const socketName = `pw-bench-test-${process.pid}`;
    const r = await benchProbe({ probes: 3, warmupProbes: 1, socketName });
    expect(r.cols).toBe(120);
    expect(r.rows).toBe(40);
    expect(r.tmuxVersion).toMatch(/^tmux /);
    for (const s of [r.full, r.tmuxOnly]) {
      expect(s.count).toBe(3);
      for (const v of [s.medianMs, s.p99Ms, s.meanMs, s.probesPerSecond]) positive(v);
    }
    const ls = spawnSync('tmux', ['-L', socketName, 'list-sessions'], { stdio: 'pipe' });
    expect(ls.status).not.toBe(0);
  });

  it('reports one object with a probe-to-frame ratio and prints it as tables', async () => {
    const report = await runBench({
      files: [FIXTURE],
      passes: 1,
      warmupPasses: 0,
      probes: 3,
      includeAnsi: false,
    });
    expect(report.pipeline.overall.frame.count).toBe(framesIn(FIXTURE));
    expect(report.probe?.full.count).toBe(3);
    positive(report.probeToFrameRatio ?? NaN);
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
    const text = formatReport(report);
    expect(text).toMatch(/^codex\s+1\s+\d+/m);
    expect(text).toMatch(/^all\s+1\s+\d+/m);
    expect(text).toContain('tmux call only');
  });

  it('parses options and rejects bad counts', () => {
    const o = parseBenchArgs(['--passes', '3', '--probes', '0', '--json']);
    expect(o).not.toBe('help');
    if (o === 'help') return;
    expect(o).toMatchObject({ passes: 3, probes: 0, json: true, warmupPasses: 2 });
    expect(o.files.length).toBeGreaterThan(0);
    expect(parseBenchArgs(['--help'])).toBe('help');
    expect(() => parseBenchArgs(['--passes', '0'])).toThrow(/--passes/);
    expect(() => parseBenchArgs(['--probes', 'x'])).toThrow(/--probes/);
    expect(() => parseBenchArgs(['--nope'])).toThrow();
  });

  it('skips the probe with --probes 0 and prints JSON with --json', () => {
    const out = execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        join(DEFAULT_FIXTURES, '..', '..', 'scripts', 'bench.ts'),
        '--fixtures',
        join(DEFAULT_FIXTURES),
        '--passes',
        '1',
        '--warmup',
        '0',
        '--probes',
        '0',
        '--json',
      ],
      { encoding: 'utf8' },
    );
    const report = JSON.parse(out) as Awaited<ReturnType<typeof runBench>>;
    expect(report.probe).toBeNull();
    expect(report.probeToFrameRatio).toBeNull();
    expect(report.pipeline.overall.recordings).toBe(listRecordings(DEFAULT_FIXTURES).length);
  }, 60_000);
});
