import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { execa } from 'execa';
import { machineInfo, processCpuSeconds } from './scale-measure.js';
import { startFleet } from './scale-tmux.js';
import { tmuxArgs } from '../../src/observe/tmux-locale.js';

/**
 * What tmux's side of a control client costs under each option of tmux ≥ 3.2, on the
 * `bench:scale` staggered workload (every pane a line every 10 s, a tenth of them each second):
 * a bare `tmux -C` client that only reads, and the tmux server's CPU above its cost with no
 * client, measured just before and after each mode. Run:
 * `npx tsx scripts/internal/scale-options.ts --panes 1000 --seconds 10`.
 */
interface Mode {
  name: string;
  /** Command lines sent once the client is attached. */
  setup: string[];
}

const MODES: Mode[] = [
  { name: '%output (the default)', setup: [] },
  { name: '%output with pause-after=1', setup: ['refresh-client -f pause-after=1'] },
  { name: 'no-output', setup: ['refresh-client -f no-output'] },
  {
    name: 'no-output + subscription to every pane (once a second at most)',
    setup: [
      'refresh-client -f no-output',
      "refresh-client -B 'act:%*:#{pane_id} #{history_size} #{cursor_y} #{window_activity}'",
    ],
  },
];

const { values } = parseArgs({
  options: {
    panes: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '10' },
  },
});
const panes = Number(values.panes);
const seconds = Number(values.seconds);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const tmuxVersion = (await execa('tmux', ['-V'])).stdout.trim();
const m = machineInfo(tmuxVersion);
console.log(`Machine: ${m.cpu}, ${m.cores} cores; ${m.kernel}; ${m.tmux}; load ${m.loadAtStart}`);
const fleet = await startFleet({
  socketName: `pw-scale-options-${process.pid}`,
  count: panes,
  busyShare: 1,
  periodSeconds: 10,
  cols: 160,
  rows: 45,
});
const tmuxCpu = () => processCpuSeconds(fleet.serverPid) ?? 0;
async function window(): Promise<number> {
  const c0 = tmuxCpu();
  const t0 = performance.now();
  await sleep(seconds * 1000);
  return (100 * (tmuxCpu() - c0)) / ((performance.now() - t0) / 1000);
}
try {
  await sleep(Math.min(10, 1 + panes / 200) * 1000);
  let idleBefore = await window();
  console.log(`| mode | tmux CPU % above idle | notifications/s | bytes read/s |`);
  console.log(`| --- | ---: | ---: | ---: |`);
  for (const mode of MODES) {
    const client = spawn(
      'tmux',
      tmuxArgs(['-L', fleet.socketName, '-C', 'attach', '-t', 'bench']),
      {
        stdio: ['pipe', 'pipe', 'ignore'],
        env: { ...process.env, TMUX: '' },
      },
    );
    let lines = 0;
    let bytes = 0;
    let partial = '';
    client.stdout.setEncoding('utf8');
    client.stdout.on('data', (chunk: string) => {
      bytes += Buffer.byteLength(chunk);
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const l of parts)
        if (l.startsWith('%') && !l.startsWith('%begin') && !l.startsWith('%end')) lines++;
    });
    for (const line of mode.setup) client.stdin.write(line + '\n');
    await sleep(2000);
    const [l0, b0] = [lines, bytes];
    const busy = await window();
    const [l1, b1] = [lines, bytes];
    client.stdin.end();
    client.kill();
    await sleep(1000);
    const idleAfter = await window();
    const above = Math.max(0, busy - (idleBefore + idleAfter) / 2);
    console.log(
      `| ${mode.name} | ${above.toFixed(1)} (${busy.toFixed(1)} − idle ${idleBefore.toFixed(1)}/${idleAfter.toFixed(1)}) | ${((l1 - l0) / seconds).toFixed(0)} | ${((b1 - b0) / seconds).toFixed(0)} |`,
    );
    idleBefore = idleAfter;
  }
} finally {
  await fleet.close();
}
