/** How one CLI of the demo runs offline: what `paneward demo` prints, and the form's preset. */
export interface AgentRecipe {
  tool: string;
  /** The demo's pane running it (`--live`); null when the demo only offers it. */
  pane: string | null;
  cwd: string;
  /** The environment the CLI gets on top of the tmux server's (no `PATH`: see below). */
  env: Record<string, string>;
  /** The command as the demo starts it (the executable by its full path first). */
  command: string[];
}

/** A word as a POSIX shell reads it back: bare when it is safe so, else in single quotes. */
export function shellWord(s: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The session a by-hand start of `r` gets in the demo's tmux server. */
export const byHandSession = (r: AgentRecipe): string => `${r.tool}-mine`;

/** `tmux … new-session` that starts one more of `r` by hand in the demo's tmux server. */
export function byHandCommand(socketName: string, r: AgentRecipe): string {
  // The environment goes to env(1), not to tmux's -e: tmux puts its own PATH over a -e PATH.
  const env = Object.entries(r.env).map(([k, v]) => shellWord(`${k}=${v}`));
  return [
    ...['tmux', '-L', shellWord(socketName), 'new-session', '-d', '-s', byHandSession(r)],
    ...['-x', '160', '-y', '45', '-c', shellWord(r.cwd), '--'],
    ...['env', ...env, ...r.command.map(shellWord)],
  ].join(' ');
}

/** The `paneward spawn` command that starts one more of `r` through the demo's server. */
export function spawnCommand(serverUrl: string, r: AgentRecipe): string {
  return [
    ...['paneward', 'spawn', r.tool, '--url', shellWord(serverUrl.replace(/\/$/, ''))],
    ...['--cwd', shellWord(r.cwd)],
    ...Object.entries(r.env).flatMap(([k, v]) => ['--env', shellWord(`${k}=${v}`)]),
  ].join(' ');
}

/**
 * The block `paneward demo` prints per CLI: where it runs, its environment one variable a line,
 * and two ways to start one more of it the same way (by hand in tmux, or through paneward).
 */
export function describeAgent(o: {
  recipe: AgentRecipe;
  socketName: string;
  serverUrl: string;
}): string {
  const r = o.recipe;
  const width = Math.max(...Object.keys(r.env).map((k) => k.length));
  return [
    `${r.tool}${r.pane ? ` (pane ${r.pane})` : ''}: ${r.command.join(' ')}`,
    `  in   ${r.cwd}`,
    ...Object.entries(r.env).map(([k, v]) => `  env  ${k.padEnd(width)} ${v}`),
    `  one more by hand, in the demo's tmux, then supervised:`,
    `    ${byHandCommand(o.socketName, r)}`,
    `    paneward attach --url ${shellWord(o.serverUrl.replace(/\/$/, ''))} ${byHandSession(r)}:0.0`,
    `  one more through paneward (supervised, and on the dashboard):`,
    `    ${spawnCommand(o.serverUrl, r)}`,
  ].join('\n');
}
