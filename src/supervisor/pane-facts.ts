import { isPanewardError } from '../errors.js';
import type { TmuxArg } from '../observe/tmux-argv.js';

/** Runs one tmux command and answers its output. */
type Run = (args: readonly TmuxArg[]) => Promise<string>;

/** What tmux and the process table say of a pane's CLI. */
export interface PaneFacts {
  dead: boolean;
  /** The pane's process still runs (it may, a while after its terminal closed). */
  processAlive: boolean;
  /** tmux knows how the process ended: it has its exit status or signal. */
  tmuxDead: boolean;
  status: number | null;
  signal: string | null;
  pid: number | null;
}

/** Whether the pane's process ended (`remain-on-exit` keeps the pane); null when the pane is gone. */
export async function paneFacts(run: Run, paneId: string): Promise<PaneFacts | null> {
  let out: string;
  try {
    out = await run([
      'display-message',
      '-p',
      '-t',
      paneId,
      '#{pane_dead}\t#{pane_dead_status}\t#{pane_dead_signal}\t#{pane_pid}',
    ]);
  } catch (error) {
    if (isPanewardError(error) && error.code === 'tmux_missing') return null;
    throw error;
  }
  const [dead, status, signal, pid] = out.trim().split('\t');
  const p = Number(pid);
  // The pane's process itself: tmux shows the pane dead once its terminal closed, which a CLI
  // can do some time before its process has ended (and tmux knows how it ended).
  let processAlive = false;
  if (Number.isInteger(p) && p > 1) {
    try {
      process.kill(p, 0);
      processAlive = true;
    } catch {
      processAlive = false;
    }
  }
  let alive = dead !== '1';
  // The dead TUI's last screen stays: only the pane's process tells the truth.
  if (alive && Number.isInteger(p) && p > 1) {
    try {
      process.kill(p, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') alive = false;
    }
  }
  return {
    dead: !alive,
    processAlive,
    // tmux may show the pane dead (its terminal closed) a moment before it has reaped the
    // process and knows how it ended, or the other way round: only a status or a signal says.
    tmuxDead: /^\d+$/.test(status ?? '') || /^\d+$/.test(signal ?? ''),
    status: status !== undefined && /^\d+$/.test(status) ? Number(status) : null,
    signal: signal !== undefined && /^\d+$/.test(signal) ? signalName(Number(signal)) : null,
    pid: Number.isInteger(p) && p > 0 ? p : null,
  };
}

/** Polls until the pane's CLI has ended (or the pane is gone); false when time ran out. */
export async function untilDead(run: Run, paneId: string, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const f = await paneFacts(run, paneId);
    if (f === null || f.dead) return true;
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const SIGNALS: Record<number, string> = {
  1: 'SIGHUP',
  2: 'SIGINT',
  3: 'SIGQUIT',
  6: 'SIGABRT',
  9: 'SIGKILL',
  11: 'SIGSEGV',
  13: 'SIGPIPE',
  15: 'SIGTERM',
};
const signalName = (n: number) => SIGNALS[n] ?? `signal ${n}`;
