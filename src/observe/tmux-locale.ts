import { execFileSync } from 'node:child_process';

/**
 * How every tmux process paneward starts gets its locale (docs/observe.md, "tmux and the
 * locale"). tmux decides whether its client can take UTF-8 from the first of `LC_ALL`,
 * `LC_CTYPE` and `LANG` that is set: unless it names UTF-8 (or `-u` is given), tmux 3.3a
 * replaces every tab and non-ASCII byte of what it prints (format output, control-mode replies)
 * with `_`, and paneward can read neither fields nor names. A server started by a command takes
 * that command's environment as its global one, which the programs of its panes inherit.
 *
 * So every tmux command is given `-u`, and, when the environment names no UTF-8 locale, a
 * UTF-8 one that exists on this machine: the client prints UTF-8 whatever the environment,
 * and the panes of a server paneward starts get a UTF-8 character type.
 */

/** tmux's flag: the client takes UTF-8 whatever the locale says. */
export const TMUX_UTF8_FLAG = '-u';

/** Environment variables as a process has them (values may be missing). */
export type Environment = Readonly<Record<string, string | undefined>>;

/** tmux's own rule: the first of LC_ALL, LC_CTYPE and LANG that is set and not empty names UTF-8. */
export function namesUtf8Locale(env: Environment): boolean {
  const effective = [env.LC_ALL, env.LC_CTYPE, env.LANG].find((v) => v !== undefined && v !== '');
  return effective !== undefined && /utf-?8/i.test(effective);
}

let installed: string | undefined;

/**
 * A UTF-8 locale this machine has, as `locale -a` lists it: `C.UTF-8` first (glibc 2.35 and
 * later have it built in; Debian, Ubuntu and Fedora ship it), then `en_US.UTF-8` (macOS, older
 * systems), then any other. `C.UTF-8` when nothing can be listed (musl has no `locale -a` and
 * takes any name). Looked up once per process, and only when a caller's environment needs it.
 */
export function utf8LocaleName(): string {
  if (installed !== undefined) return installed;
  let names: string[] = [];
  try {
    names = execFileSync('locale', ['-a'], {
      encoding: 'utf8',
      timeout: 2000,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    }).split('\n');
  } catch {
    // No `locale` program: the fallback below.
  }
  installed = pickUtf8Locale(names);
  return installed;
}

/** The UTF-8 locale to use among those listed (see {@link utf8LocaleName}). */
export function pickUtf8Locale(listed: readonly string[]): string {
  const utf8 = listed.map((n) => n.trim()).filter((n) => /\.utf-?8$/i.test(n));
  return (
    utf8.find((n) => /^C\.utf-?8$/i.test(n)) ??
    utf8.find((n) => /^en_US\.utf-?8$/i.test(n)) ??
    utf8[0] ??
    'C.UTF-8'
  );
}

/**
 * The locale variables to set for tmux on top of `env`: none when it names a UTF-8 locale;
 * otherwise `LC_CTYPE` (other categories stay as the caller has them), or `LC_ALL` when a
 * non-UTF-8 `LC_ALL` would override `LC_CTYPE`.
 */
export function tmuxLocaleOverrides(
  env: Environment = process.env,
  locale: () => string = utf8LocaleName,
): Record<string, string> {
  if (namesUtf8Locale(env)) return {};
  return env.LC_ALL ? { LC_ALL: locale() } : { LC_CTYPE: locale() };
}

/**
 * The whole environment for a tmux process: the caller's (`env`, default this process's), the
 * locale variables of {@link tmuxLocaleOverrides}, then `extra`.
 */
export function tmuxEnv(
  extra: Record<string, string> = {},
  env: Environment = process.env,
): Record<string, string> {
  const whole: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) whole[k] = v;
  return { ...whole, ...tmuxLocaleOverrides(env), ...extra };
}

/** tmux's arguments with {@link TMUX_UTF8_FLAG} first. */
export function tmuxArgs(args: readonly string[]): string[] {
  return [TMUX_UTF8_FLAG, ...args];
}

/**
 * What is said when tmux's format output comes without its tab separators: how a tmux client
 * that takes no UTF-8 prints it (or a tmux that does not honour `-u`). Named, so it is never
 * read as "no panes".
 */
export function withoutSeparators(command: string, line: string): string {
  const shown = JSON.stringify(line.length > 80 ? `${line.slice(0, 80)}…` : line);
  return `tmux ${command} answered ${shown} without its tab separators: tmux printed it for a client that takes no UTF-8 (see "tmux and the locale" in docs/observe.md)`;
}

/** Why a pane's facts line (tab-separated) could not be read: its separators are gone, or else. */
export function unexpectedOutput(line: string): string {
  return line !== '' && !line.includes('\t')
    ? withoutSeparators('display-message', line)
    : 'unexpected tmux output';
}
