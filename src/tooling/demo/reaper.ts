import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

/**
 * The processes a demo started, by pid, so that none outlives it: the tmux server's descendants
 * (the panes' CLIs and whatever they started), and any process whose command line or
 * environment names the demo's scratch folder (a daemon a CLI detached, such as Codex's
 * app-server, which no longer descends from its pane). Each pid is kept with its start time, so
 * a pid the system has since given to another process is never signalled. Everything here is
 * synchronous: it also runs in a signal handler, with the process about to end.
 */
export class DemoReaper {
  /** pid → its start time (clock ticks since boot, field 22 of /proc/<pid>/stat). */
  private readonly known = new Map<number, string>();
  private readonly roots = new Set<number>();

  /** `marker`: a path only the demo's processes carry (its scratch folder). */
  constructor(private readonly marker: string) {}

  /** Follows `pid` and, from now on, its descendants. */
  addRoot(pid: number): void {
    this.roots.add(pid);
    this.sample();
  }

  /**
   * Looks again for processes of the demo and remembers them: the descendants of the roots and
   * of every process already known (a daemon that left its parent stays known). Cheap: it reads
   * the children of known processes only.
   */
  sample(): void {
    const queue = [...this.roots, ...this.known.keys()];
    const seen = new Set<number>();
    while (queue.length > 0) {
      const pid = queue.shift()!;
      if (seen.has(pid) || pid === process.pid) continue;
      seen.add(pid);
      const entry = stat(pid);
      if (!entry) continue;
      const known = this.known.get(pid);
      if (known !== undefined && known !== entry.start) continue; // a reused pid
      if (known === undefined) this.known.set(pid, entry.start);
      queue.push(...childrenOf(pid));
    }
  }

  /**
   * Also follows every process newer than the first root whose command line or environment
   * names the marker: a daemon that detached before {@link sample} saw it. It reads every such
   * process, slow on a busy machine, so it does not hold the event loop (a second Ctrl-C is
   * heard meanwhile).
   */
  async findNamed(): Promise<void> {
    const oldest = Math.min(...this.roots);
    for (const name of await readdir('/proc')) {
      const pid = Number(name);
      if (!Number.isInteger(pid) || pid === process.pid || this.known.has(pid)) continue;
      // pids grow until they wrap: one older than the demo's first process is not the demo's.
      if (Number.isFinite(oldest) && pid < oldest) continue;
      for (const file of ['cmdline', 'environ']) {
        const text = await readFile(`/proc/${pid}/${file}`, 'latin1').catch(() => '');
        if (text.includes(this.marker)) {
          this.roots.add(pid);
          break;
        }
      }
    }
    this.sample();
  }

  /** Follows the pids a daemon wrote to files (as Codex's app-server does) as roots. */
  addPidFiles(paths: readonly string[]): void {
    for (const path of paths) {
      try {
        const text = readFileSync(path, 'utf8').trim();
        const pid = Number(/^\d+$/.test(text) ? text : (JSON.parse(text) as { pid?: unknown }).pid);
        // Only a process that names the marker: a stale file's pid may be anyone's by now.
        if (Number.isInteger(pid) && pid > 1 && names(pid, this.marker)) this.roots.add(pid);
      } catch {
        // no such file, or not a pid
      }
    }
  }

  /** The demo's processes still running (zombies count as gone). */
  alive(): number[] {
    return [...this.known].filter(([pid, start]) => stat(pid)?.start === start).map(([p]) => p);
  }

  /** Sends `signal` to every process of the demo still running; returns their pids. */
  signal(signal: NodeJS.Signals): number[] {
    const pids = this.alive();
    for (const pid of pids) {
      try {
        process.kill(pid, signal);
      } catch {
        // exited meanwhile
      }
    }
    return pids;
  }

  /**
   * Ends every process of the demo at once (SIGKILL), looking again until none is left (a
   * process may have started a child meanwhile), for at most `ms`.
   */
  killNow(ms = 300): number[] {
    const deadline = Date.now() + ms;
    for (;;) {
      this.sample();
      const left = this.signal('SIGKILL');
      if (left.length === 0 || Date.now() > deadline) return this.alive();
      // Let the kernel take them down before looking again (a busy wait: no event loop here).
      const until = Date.now() + 20;
      while (Date.now() < until);
    }
  }
}

interface Entry {
  pid: number;
  start: string;
}

function stat(pid: number): Entry | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
    const fields = s.slice(s.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X') return null;
    return { pid, start: fields[19]! };
  } catch {
    return null;
  }
}

/** The children of every thread of `pid` (a thread that forks is the child's parent). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text) out.push(...text.split(' ').map(Number));
    }
  } catch {
    // gone
  }
  return out;
}

/** The process's command line or environment holds `marker` (other users' are unreadable). */
function names(pid: number, marker: string): boolean {
  for (const file of ['cmdline', 'environ']) {
    try {
      if (readFileSync(`/proc/${pid}/${file}`, 'latin1').includes(marker)) return true;
    } catch {
      // gone, or not ours
    }
  }
  return false;
}
