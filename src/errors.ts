/** Stable error codes; each names what went wrong, not where. */
export type PanewardErrorCode =
  | 'invalid_input'
  | 'invalid_scenario'
  | 'invalid_recording'
  | 'tmux_timeout'
  | 'tmux_failed'
  | 'tmux_missing'
  | 'not_ready'
  | 'refused'
  | 'answer_failed'
  | 'unknown_terminal'
  | 'unknown_turn'
  | 'aborted'
  | 'timeout'
  | 'stopped'
  | 'data_dir_busy'
  | 'journal_corrupt'
  | 'journal_failed'
  | 'host_unreachable'
  | 'host_timeout'
  | 'unauthorized'
  | 'host_refused'
  | 'unsupported'
  | 'internal';

/**
 * The one error type paneward throws: a `code` to branch on, a message for people, optional
 * `details` (e.g. zod issues) and the underlying `cause`. `toJSON()` is safe to send anywhere:
 * it never includes the cause's stack or screen text.
 */
export class PanewardError extends Error {
  override readonly name = 'PanewardError';
  readonly code: PanewardErrorCode;
  readonly details: unknown;

  constructor(
    code: PanewardErrorCode,
    message: string,
    options: { cause?: unknown; details?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.code = code;
    this.details = options.details;
  }

  toJSON(): { code: PanewardErrorCode; message: string; details: unknown } {
    return { code: this.code, message: this.message, details: this.details ?? null };
  }
}

export function isPanewardError(e: unknown): e is PanewardError {
  return e instanceof PanewardError;
}
