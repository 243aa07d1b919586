import { PanewardError } from '../../errors.js';

// tmux's own wording when the server, session, window or pane does not exist.
const MISSING_PATTERNS: readonly RegExp[] = [
  /no server running/i,
  /error connecting to/i,
  /can't find (pane|session|window|client)/i,
  /session not found/i,
  /no such (session|window|pane)/i,
  /server exited unexpectedly/i,
  // The last session is gone and the server is on its way out.
  /no current (target|session|window|pane)/i,
];

const STDERR_LIMIT = 300;

/** True when tmux's stderr says the server or the target is gone. */
export function isMissingTarget(stderr: string): boolean {
  return MISSING_PATTERNS.some((re) => re.test(stderr));
}

interface ExecaLikeError {
  timedOut?: boolean;
  isCanceled?: boolean;
  code?: string;
  exitCode?: number;
  signal?: string;
  stderr?: unknown;
  shortMessage?: string;
  message?: string;
}

/**
 * Maps a failed tmux invocation to a PanewardError. Only the subcommand name is kept, never the
 * full argument list (send-keys arguments can hold prompt text, `respawn-pane -e` environment
 * values such as API keys): neither the message nor its details name them, and the process
 * error (whose message is the whole command line) is not kept as the cause.
 */
export function toTmuxError(error: unknown, command: string, timeoutMs: number): PanewardError {
  const e = (typeof error === 'object' && error !== null ? error : {}) as ExecaLikeError;
  const stderr = typeof e.stderr === 'string' ? e.stderr.trim().slice(0, STDERR_LIMIT) : '';
  const details = { command, exitCode: e.exitCode ?? null, signal: e.signal ?? null, stderr };
  if (e.isCanceled) {
    return new PanewardError('aborted', `tmux ${command} aborted`, { details });
  }
  if (e.timedOut) {
    return new PanewardError('tmux_timeout', `tmux ${command} timed out after ${timeoutMs} ms`, {
      details,
    });
  }
  if (e.code === 'ENOENT') {
    return new PanewardError('tmux_failed', `tmux binary not found (${command})`, { details });
  }
  if (isMissingTarget(stderr)) {
    return new PanewardError('tmux_missing', `tmux ${command}: ${stderr}`, { details });
  }
  const why =
    stderr ||
    (e.signal ? `killed by ${e.signal}` : null) ||
    (typeof e.exitCode === 'number' ? `exit status ${e.exitCode}` : null) ||
    (typeof e.code === 'string' ? e.code : 'unknown failure');
  return new PanewardError('tmux_failed', `tmux ${command} failed: ${why}`, { details });
}
