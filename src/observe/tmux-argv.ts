import { PanewardError } from '../errors.js';

/**
 * How every string reaches tmux as data (docs/design.md, "Strings reach tmux as data").
 *
 * tmux reads the arguments of one invocation as commands: an argument that ends in `;` ends a
 * command and starts the next one (`hi;` then `run-shell …`). So an argument is never passed as
 * given: {@link tmuxArgv} writes one that ends in `;` as tmux's escape for a literal `;` (a
 * backslash before it, which tmux takes away), and a separator can only come from the constant
 * {@link THEN}, which no request, file or program can produce.
 *
 * Some options expand tmux formats (`#{…}`, `#(shell command)`) in their value: the names and
 * folder of `new-session`/`new-window` (`-s`, `-n`, `-c`). Text for them passes through
 * {@link formatLiteral}, which doubles the `#` tmux would read (it reads `##` as one `#`), so it
 * expands to itself. Format strings themselves (`-F`, `display-message -p`) are constants of paneward's.
 */

/** The separator between two tmux commands in one invocation. */
export const THEN: unique symbol = Symbol('tmux command separator');

/** One argument of a tmux invocation: data, or the separator between two commands. */
export type TmuxArg = string | typeof THEN;

/** The argv that makes tmux see every string argument literally, and commands only at {@link THEN}. */
export function tmuxArgv(args: readonly TmuxArg[]): string[] {
  return args.map((arg) => {
    if (arg === THEN) return ';';
    if (arg.includes('\0')) {
      throw new PanewardError('invalid_input', 'a tmux argument cannot hold NUL');
    }
    // tmux takes the backslash before a final `;` away, and keeps the `;`.
    return arg.endsWith(';') ? `${arg.slice(0, -1)}\\;` : arg;
  });
}

/**
 * Text that an option expanding tmux formats reads back as itself. tmux reads `##` as `#`, but
 * copies a run of `#` before `[` (a style) as it is: such a run is left alone, every other `#`
 * is doubled.
 */
export function formatLiteral(text: string): string {
  return text.replace(/#+/g, (run, at: number) =>
    text[at + run.length] === '[' ? run : run + run,
  );
}

/**
 * The bytes tmux's client sends of one invocation must fit in one message of 16 KiB (tmux's
 * MAX_IMSGSIZE); a longer command is refused by tmux. Each argument costs its UTF-8 bytes and
 * a NUL. This is what paneward allows itself, with room for the message's own header.
 */
export const TMUX_COMMAND_BYTES = 16_000;

/** The bytes one invocation's arguments take in tmux's message. */
export function tmuxCommandBytes(args: readonly TmuxArg[]): number {
  let n = 0;
  for (const a of tmuxArgv(args)) n += Buffer.byteLength(a, 'utf8') + 1;
  return n;
}
