// Start time of the command line, both ways in one run: from the build in dist/ (what
// `npm ci` leaves) and from the TypeScript sources through tsx (PANEWARD_FROM_SOURCE=1).
// Prints the median wall time of each command, and the machine it ran on.
//   node scripts/bench-cli-start.mjs [runs]
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath, URL } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/paneward.js', import.meta.url));
const runs = Number(process.argv[2] ?? 15);
/** The newest modification time of the TypeScript under `dir` (the rule bin/paneward.js uses). */
function newestSource(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (e.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

// Without a current build the bin would run the sources both ways: refuse rather than mislead.
const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist/.built');
const current =
  existsSync(stamp) &&
  Math.max(newestSource(join(root, 'src')), newestSource(join(root, 'machines'))) <=
    statSync(stamp).mtimeMs;
if (!current) {
  console.error('dist/ is missing or older than the sources: run `npm run build` first');
  process.exit(2);
}

// `ls` against a port nothing listens on: the whole client path, refused at once.
const COMMANDS = [['--help'], ['--version'], ['ls', '--url', 'http://127.0.0.1:1']];
const WAYS = [
  ['dist', {}],
  ['src (tsx)', { PANEWARD_FROM_SOURCE: '1' }],
];

/**
 * CPU seconds (user + system) of this process's finished children, from /proc (Linux): unlike
 * the wall time it does not grow when other work shares the machine. null elsewhere.
 */
function childCpuMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    // Fields 16 and 17 of stat (cutime, cstime), in clock ticks of 10 ms.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return null;
  }
}

function once(args, env) {
  const cpuBefore = childCpuMs();
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
  if (r.error) throw r.error;
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  const cpuAfter = childCpuMs();
  return { wall, cpu: cpuBefore === null || cpuAfter === null ? NaN : cpuAfter - cpuBefore };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const cpu = cpus();
console.log(
  `machine: ${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, ` +
    `${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ` +
    `load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
);
console.log(
  `median of ${runs} runs (interleaved), milliseconds: wall time, and CPU time (user + system)`,
);
const times = new Map();
for (let i = 0; i < runs; i++) {
  for (const args of COMMANDS) {
    for (const [way, env] of WAYS) {
      const key = `${args.join(' ')}\t${way}`;
      times.set(key, [...(times.get(key) ?? []), once(args, env)]);
    }
  }
}
console.log(
  [
    'command'.padEnd(34),
    ...WAYS.flatMap(([w]) => [`${w} wall`.padStart(16), `${w} cpu`.padStart(16)]),
  ].join(' '),
);
for (const args of COMMANDS) {
  const row = WAYS.flatMap(([way]) => {
    const t = times.get(`${args.join(' ')}\t${way}`);
    return [median(t.map((x) => x.wall)), median(t.map((x) => x.cpu))].map((m) =>
      Number.isNaN(m) ? '-' : m.toFixed(0),
    );
  });
  console.log(
    [`paneward ${args.join(' ')}`.padEnd(34), ...row.map((c) => c.padStart(16))].join(' '),
  );
}
