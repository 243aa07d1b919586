import type { TmuxArg } from './tmux-argv.js';

/** Per-call options for a tmux command. */
export interface TmuxRunOptions {
  /** Cancels the call; the call rejects with a `PanewardError` coded `aborted`. */
  signal?: AbortSignal;
  /** Overrides the transport's default timeout for this call. */
  timeoutMs?: number;
  /**
   * Written to the command's stdin (for `load-buffer -`), so text of any length reaches tmux
   * whole and is never read as a command line.
   */
  input?: string;
}

/**
 * How paneward talks to one tmux server. Every call is bounded by a timeout and honours an
 * AbortSignal. Implementations: one process per call (`createExecaTransport`); a long-lived
 * `tmux -C` control-mode client can implement the same interface.
 */
export interface TmuxTransport {
  /**
   * Runs one tmux invocation and resolves with its stdout, unmodified. Every string in `args` is
   * data: an implementation passes it so that tmux reads it literally (`tmuxArgv`), and commands
   * are chained only with the `THEN` separator. Rejects with a `PanewardError` coded `tmux_timeout`,
   * `tmux_missing` (no server, session, window or pane), `tmux_failed` or `aborted`, and
   * `invalid_input` for a timeout the transport cannot wait.
   */
  run(args: readonly TmuxArg[], opts?: TmuxRunOptions): Promise<string>;
  /** Releases the transport's resources; later calls reject. */
  close(): Promise<void>;
}
