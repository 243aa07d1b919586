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
   * Runs one tmux command line (several commands may be chained with a `;` argument) and
   * resolves with its stdout, unmodified. Rejects with a `PanewardError` coded `tmux_timeout`,
   * `tmux_missing` (no server, session, window or pane), `tmux_failed` or `aborted`, and
   * `invalid_input` for a timeout the transport cannot wait.
   */
  run(args: readonly string[], opts?: TmuxRunOptions): Promise<string>;
  /** Releases the transport's resources; later calls reject. */
  close(): Promise<void>;
}
