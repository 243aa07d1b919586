/**
 * tmux's note on a pane whose process ended while `remain-on-exit` is on:
 * `Pane is dead (signal 9, Sun Nov 22 08:39:32 2026)`, `Pane is dead (status 0, …)`, or bare.
 */
const PANE_DEAD = /^Pane is dead(?: \((?:signal|status) \d+, [^)]*\))?$/;

/** Shell prompts a pane shows once the CLI is gone (matched against the trimmed line). */
const SHELL_PROMPTS: readonly RegExp[] = [
  // `bash-5.2#`, `host%`, `~/work $`, `$`: one word without spaces, then the prompt sign.
  /^[\w.@:~/+-]* ?[#$%>]$/,
  // `user@host:~/my dir$`, `user@host ~ %`: user@host, then the folder (which may hold spaces).
  /^[\w.+-]+@[\w.-]+(?::| )[^#$%]*[#$%]$/,
  // `[user@host work]$` (Red Hat's default).
  /^\[[\w.+-]+@[\w.-]+(?: [^\]]*)?\][#$]$/,
];

/** True for tmux's dead-pane note: the pane's process has ended. */
export function isPaneDeadLine(line: string): boolean {
  return PANE_DEAD.test(line.trimEnd());
}

/** True for a line that looks like an interactive shell's prompt, waiting for a command. */
export function isShellPromptLine(line: string): boolean {
  const l = line.trim();
  return l !== '' && SHELL_PROMPTS.some((re) => re.test(l));
}
