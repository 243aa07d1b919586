import { readFile, readdir, readlink } from 'node:fs/promises';
import type { SessionContext } from '../../../src/profiles/session-record.js';

/** Epoch ms of the machine's boot, from `/proc/stat`. */
async function bootMs(): Promise<number> {
  const btime = (await readFile('/proc/stat', 'utf8')).match(/^btime (\d+)$/m)?.[1];
  if (!btime) throw new Error('no btime in /proc/stat');
  return Number(btime) * 1000;
}

/** What `/proc` tells of a running process, as a session-record reader gets it. */
export async function contextFromProc(
  pid: number,
  claimed: ReadonlySet<string> = new Set(),
): Promise<SessionContext> {
  const environ = await readFile(`/proc/${pid}/environ`, 'utf8');
  const env: Record<string, string> = {};
  for (const entry of environ.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  const openFiles: string[] = [];
  for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [])) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => null);
    if (target?.startsWith('/')) openFiles.push(target);
  }
  return {
    pid,
    cwd: await readlink(`/proc/${pid}/cwd`),
    env,
    openFiles,
    startedAtMs: (await bootMs()) + ticks * 10,
    claimed,
  };
}
