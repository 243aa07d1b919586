import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, release } from 'node:os';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';

/** Clock ticks per second of /proc's CPU times (USER_HZ); 100 on Linux. */
export const CLOCK_TICKS = clockTicks();

function clockTicks(): number {
  try {
    const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(n) && n > 0 ? n : 100;
  } catch {
    return 100;
  }
}

/** CPU seconds a process has used (user + system), from /proc; null when it is gone. */
export function processCpuSeconds(pid: number): number | null {
  const stat = readStat(pid);
  if (!stat) return null;
  return (Number(stat[11]) + Number(stat[12])) / CLOCK_TICKS;
}

/** CPU seconds of this process's reaped children (cutime + cstime), from /proc. */
export function reapedChildrenCpuSeconds(): number {
  const stat = readStat(process.pid);
  return stat ? (Number(stat[13]) + Number(stat[14])) / CLOCK_TICKS : 0;
}

/** This process's CPU seconds, at microsecond resolution. */
export function selfCpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** Resident set size of a process in bytes (VmRSS); null when it is gone. */
export function processRssBytes(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Busy and total jiffies of the whole host (all cores), from /proc/stat. */
export function hostJiffies(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  const idle = (f[3] ?? 0) + (f[4] ?? 0);
  return { busy: total - idle, total };
}

/** The fields of /proc/<pid>/stat after the command name (state is [0]). */
function readStat(pid: number): string[] | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return s.slice(s.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

let gcFn: (() => void) | null = null;

/** Runs a full garbage collection (with or without `--expose-gc`). */
export function collectGarbage(): void {
  if (!gcFn) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (exposed) gcFn = exposed;
    else {
      setFlagsFromString('--expose-gc');
      gcFn = runInNewContext('gc') as () => void;
    }
  }
  gcFn();
  gcFn();
}

/** V8 heap in use and this process's RSS, after a full collection. */
export function memoryAfterGc(): { heapUsed: number; rss: number } {
  collectGarbage();
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, rss: m.rss };
}

/** The machine a report was measured on. */
export interface MachineInfo {
  cpu: string;
  cores: number;
  memoryGiB: number;
  kernel: string;
  node: string;
  tmux: string;
  /** /proc/loadavg when the run started. */
  loadAtStart: string;
}

export function machineInfo(tmuxVersion: string): MachineInfo {
  const c = cpus();
  let memoryGiB = 0;
  try {
    const m = /^MemTotal:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'));
    memoryGiB = m ? Math.round((Number(m[1]) / 1024 / 1024) * 10) / 10 : 0;
  } catch {
    // Not Linux: left at 0.
  }
  let loadAtStart = '';
  try {
    loadAtStart = readFileSync('/proc/loadavg', 'utf8').trim().split(' ').slice(0, 3).join(' ');
  } catch {
    // Not Linux.
  }
  return {
    cpu: c[0]?.model.trim() ?? 'unknown',
    cores: c.length,
    memoryGiB,
    kernel: `${process.platform} ${release()}`,
    node: process.version,
    tmux: tmuxVersion,
    loadAtStart,
  };
}

/** Nearest-rank percentile of unsorted values (`q` in 0..1); NaN when empty. */
export function percentileOf(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1]!;
}
