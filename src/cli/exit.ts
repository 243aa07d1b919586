/**
 * Exit codes of the client commands, for scripts: 0 success; 1 the turn ended without success;
 * 2 usage or invalid input; 3 not ready; 4 the server (or, through a fleet server, the pane's
 * host) is unreachable: the command did not run; 5 no such terminal (or turn); 6 unauthorized; 7 `send
 * --wait` timed out; 8 the command may have run: the connection was lost after it was sent (or
 * a host did not answer in time), or any other server error.
 */
export const EXIT = {
  ok: 0,
  turnFailed: 1,
  usage: 2,
  notReady: 3,
  unreachable: 4,
  notFound: 5,
  unauthorized: 6,
  timeout: 7,
  server: 8,
  mayHaveRun: 8,
} as const;

/** The exit codes as `--help` lists them. */
export const EXIT_HELP = `Exit codes of the client commands:
  0  success
  1  the turn ended without success (send --wait)
  2  usage or invalid input (also: a pane that names several terminals)
  3  not ready (or the action is refused now)
  4  the server (for watch: the tmux server) is unreachable: the command did not run
  5  no such terminal (or no such turn on it)
  6  unauthorized
  7  send --wait timed out
  8  the command may have run: the connection was lost after it was sent; or another server error`;

/** A command's outcome for the exit code: thrown, caught by `main`. */
export class CliExit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}
