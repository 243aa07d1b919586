const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Resolves on the first SIGINT, SIGTERM or SIGHUP. The listeners stay registered until
 * `release()`, so cleanup runs to its end: with none left, a library's exit hook (execa's)
 * would raise the signal again and end the process half-way. A second signal while cleaning up
 * ends the process at once, by that signal, as a person pressing Ctrl-C twice expects.
 */
export function untilStopSignal(
  /** Runs (synchronously) on that second signal, before the process ends. */
  onSecond?: (signal: string) => void,
): { stopped: Promise<string>; release(): void } {
  let first: string | null = null;
  let resolve!: (signal: string) => void;
  const stopped = new Promise<string>((r) => (resolve = r));
  const release = () => {
    for (const s of STOP_SIGNALS) process.off(s, onSignal);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (first !== null) {
      try {
        onSecond?.(signal);
      } finally {
        endBy(signal, release);
      }
      return;
    }
    first = signal;
    resolve(signal);
  };
  for (const s of STOP_SIGNALS) process.on(s, onSignal);
  return { stopped, release };
}

/**
 * Ends the process by `signal`, as if it had no handler for it (a shell shows 128 + its number:
 * 130 for SIGINT, 143 for SIGTERM). Not `process.exit`: a read blocked in Node's thread pool (a
 * FIFO being opened) makes that wait for the read at exit, forever. Should the signal not end it
 * (a handler of someone else's), SIGKILL does, shortly after.
 */
export function endBy(signal: string, release: () => void): void {
  release();
  setTimeout(() => process.kill(process.pid, 'SIGKILL'), 300);
  process.kill(process.pid, signal);
}

/**
 * How long `paneward serve` may take to stop once signalled. Whatever is still stopping then (a
 * tmux server that answers nothing, a file that blocks) is given up: the process ends anyway.
 */
export const SHUTDOWN_DEADLINE_MS = 1500;

/** What {@link stopWithin} stops: a running server. */
export interface Stoppable {
  stop(): Promise<void>;
  /** The parts still stopping, to name them when the deadline passes. */
  stopping(): string[];
}

/**
 * Stops `running`, and ends the process if it is still there `ms` after the signal: with a line
 * on stderr naming the parts still stopping, by that same signal (see {@link endBy}).
 */
export async function stopWithin(
  running: Stoppable,
  o: { ms: number; signal: string; release: () => void },
): Promise<void> {
  let done = false;
  const deadline = setTimeout(() => {
    const left = running.stopping();
    process.stderr.write(
      done
        ? `paneward serve: stopped, but something still held the process ${o.ms / 1000} s after ${o.signal}; ending it\n`
        : `paneward serve: the shutdown did not finish within ${o.ms / 1000} s (still stopping: ${left.length > 0 ? left.join(', ') : 'the HTTP server'}); ending it by ${o.signal}\n`,
    );
    endBy(o.signal, o.release);
  }, o.ms);
  await running.stop();
  done = true;
  // Nothing left to wait for: the process ends as soon as nothing else holds it.
  deadline.unref();
}
