import { execa } from 'execa';
import { PanewardError } from '../errors.js';
import { Semaphore } from './internal/semaphore.js';
import { toTmuxError } from './internal/tmux-errors.js';
import type { TmuxRunOptions, TmuxTransport } from './transport.js';

/** Options for {@link createExecaTransport}. */
export interface ExecaTransportOptions {
  /** tmux `-L`: a named socket in tmux's socket directory. */
  socketName?: string;
  /** tmux `-S`: a full socket path (takes precedence over `socketName` in tmux). */
  socketPath?: string;
  /** The tmux executable; default `tmux` from PATH. */
  tmuxBinary?: string;
  /** Default per-call timeout in ms; default 2000. */
  timeoutMs?: number;
  /** At most this many tmux processes run at once; default 4. */
  maxConcurrent?: number;
  /** Grace period between SIGTERM and SIGKILL for a call that timed out; default 250 ms. */
  forceKillAfterMs?: number;
}

/**
 * A transport that runs one `tmux` process per call through execa. Calls are bounded by a
 * timeout and an AbortSignal, and at most `maxConcurrent` run at once.
 */
export function createExecaTransport(options: ExecaTransportOptions = {}): TmuxTransport {
  const binary = options.tmuxBinary ?? 'tmux';
  const defaultTimeout = options.timeoutMs ?? 2000;
  const forceKillAfterMs = options.forceKillAfterMs ?? 250;
  const semaphore = new Semaphore(options.maxConcurrent ?? 4);
  const socketArgs = [
    ...(options.socketName ? ['-L', options.socketName] : []),
    ...(options.socketPath ? ['-S', options.socketPath] : []),
  ];
  let closed = false;

  async function runOnce(args: readonly string[], opts: TmuxRunOptions): Promise<string> {
    const timeoutMs = opts.timeoutMs ?? defaultTimeout;
    const command = args[0] ?? '';
    if (!(timeoutMs > 0)) {
      throw new PanewardError('invalid_input', `timeoutMs must be positive, got ${timeoutMs}`);
    }
    const subprocess = execa(binary, [...socketArgs, ...args], {
      timeout: timeoutMs,
      cancelSignal: opts.signal,
      forceKillAfterDelay: forceKillAfterMs,
      stdin: 'ignore',
      stripFinalNewline: false,
      encoding: 'utf8',
    });
    // A child of the tmux process could keep stdout open after tmux is killed; this bound
    // makes sure the call settles anyway.
    let guard: NodeJS.Timeout | undefined;
    const hardLimit = new Promise<never>((_, reject) => {
      guard = setTimeout(
        () => {
          subprocess.kill('SIGKILL');
          reject(Object.assign(new Error('tmux did not exit'), { timedOut: true }));
        },
        timeoutMs + forceKillAfterMs + 500,
      );
    });
    try {
      const result = await Promise.race([subprocess, hardLimit]);
      return result.stdout;
    } catch (error) {
      throw toTmuxError(error, command, timeoutMs);
    } finally {
      clearTimeout(guard);
    }
  }

  return {
    async run(args, opts = {}) {
      if (closed) throw new PanewardError('stopped', 'tmux transport is closed');
      return semaphore.use(() => runOnce(args, opts), opts.signal);
    },
    async close() {
      closed = true;
    },
  };
}
