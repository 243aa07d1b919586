import { execa } from 'execa';
import { PanewardError } from '../errors.js';
import { Semaphore } from './internal/semaphore.js';
import { toTmuxError } from './internal/tmux-errors.js';
import { THEN, tmuxArgv, type TmuxArg } from './tmux-argv.js';
import { tmuxArgs, tmuxEnv } from './tmux-locale.js';
import type { TmuxRunOptions, TmuxTransport } from './transport.js';

/** Options for {@link createExecaTransport}. */
export interface ExecaTransportOptions {
  /** tmux `-L`: a named socket in tmux's socket directory. */
  socketName?: string;
  /** tmux `-S`: a full socket path (takes precedence over `socketName` in tmux). */
  socketPath?: string;
  /** The tmux executable; default `tmux` from PATH. */
  tmuxBinary?: string;
  /**
   * Default per-call timeout in ms; default 2000. Per-call and default timeouts are whole
   * milliseconds from 1 to {@link maxTimeoutMs} (Node timers cannot wait longer).
   */
  timeoutMs?: number;
  /** At most this many tmux processes run at once; default 4. */
  maxConcurrent?: number;
  /** Grace period between SIGTERM and SIGKILL for a call that timed out; default 250 ms. */
  forceKillAfterMs?: number;
}

// The longest delay a Node timer honours; longer ones fire at once.
const MAX_TIMER_MS = 2 ** 31 - 1;
// Extra wait, past the kill grace period, before a call that will not settle is abandoned.
const SETTLE_SLACK_MS = 500;

/** The longest per-call timeout a transport with this kill grace period accepts. */
export function maxTimeoutMs(forceKillAfterMs = 250): number {
  return MAX_TIMER_MS - forceKillAfterMs - SETTLE_SLACK_MS;
}

/**
 * A transport that runs one `tmux` process per call through execa. Calls are bounded by a
 * timeout and an AbortSignal, and at most `maxConcurrent` run at once.
 */
export function createExecaTransport(options: ExecaTransportOptions = {}): TmuxTransport {
  const binary = options.tmuxBinary ?? 'tmux';
  const forceKillAfterMs = wholeMs(
    'forceKillAfterMs',
    options.forceKillAfterMs ?? 250,
    0,
    MAX_TIMER_MS - SETTLE_SLACK_MS - 1,
  );
  const longest = maxTimeoutMs(forceKillAfterMs);
  const defaultTimeout = wholeMs('timeoutMs', options.timeoutMs ?? 2000, 1, longest);
  const semaphore = new Semaphore(options.maxConcurrent ?? 4);
  const socketArgs = [
    ...(options.socketName ? ['-L', options.socketName] : []),
    ...(options.socketPath ? ['-S', options.socketPath] : []),
  ];
  let closed = false;

  async function runOnce(args: readonly TmuxArg[], opts: TmuxRunOptions): Promise<string> {
    const timeoutMs = opts.timeoutMs ?? defaultTimeout;
    const first = args[0];
    const command = first === undefined || first === THEN ? '' : first;
    const subprocess = execa(binary, tmuxArgs([...socketArgs, ...tmuxArgv(args)]), {
      // This process's environment as it is now, with the locale tmux needs (tmux-locale.ts).
      env: tmuxEnv(),
      extendEnv: false,
      cancelSignal: opts.signal,
      forceKillAfterDelay: forceKillAfterMs,
      ...(opts.input === undefined ? { stdin: 'ignore' as const } : { input: opts.input }),
      stripFinalNewline: false,
      encoding: 'utf8',
    });
    // The timeout is paneward's own, not execa's: a timer runs before the I/O of the same turn
    // of the event loop, so when this process held the loop (its own overload) past the
    // deadline, a tmux that answered in time would read as timed out. Each deadline looks once
    // more after the loop has taken in what arrived (setImmediate) before it acts.
    let exited = false;
    let timedOut = false;
    void subprocess.then(
      () => (exited = true),
      () => (exited = true),
    );
    const ended = () => exited || subprocess.exitCode !== null || subprocess.signalCode !== null;
    const deadline = setTimeout(() => {
      setImmediate(() => {
        if (ended()) return;
        timedOut = true;
        subprocess.kill();
      });
    }, timeoutMs);
    // A child of the tmux process could keep stdout open after tmux is killed; this bound
    // makes sure the call settles anyway.
    let guard: NodeJS.Timeout | undefined;
    const hardLimit = new Promise<never>((_, reject) => {
      guard = setTimeout(
        () => {
          setImmediate(() => {
            if (exited) return;
            subprocess.kill('SIGKILL');
            reject(Object.assign(new Error('tmux did not exit'), { timedOut: true }));
          });
        },
        timeoutMs + forceKillAfterMs + SETTLE_SLACK_MS,
      );
    });
    try {
      const result = await Promise.race([subprocess, hardLimit]);
      return result.stdout;
    } catch (error) {
      throw toTmuxError(timedOut ? { timedOut: true } : error, command, timeoutMs);
    } finally {
      clearTimeout(deadline);
      clearTimeout(guard);
    }
  }

  return {
    async run(args, opts = {}) {
      if (closed) throw new PanewardError('stopped', 'tmux transport is closed');
      if (opts.timeoutMs !== undefined) wholeMs('timeoutMs', opts.timeoutMs, 1, longest);
      return semaphore.use(() => runOnce(args, opts), opts.signal);
    },
    async close() {
      closed = true;
    },
  };
}

/** Checks a duration option: whole milliseconds within [min, max]. */
function wholeMs(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new PanewardError(
      'invalid_input',
      `${name} must be a whole number of milliseconds from ${min} to ${max}, got ${value}`,
    );
  }
  return value;
}
