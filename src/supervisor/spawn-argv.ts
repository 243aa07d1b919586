import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { PanewardError } from '../errors.js';
import type { LaunchRecipe } from '../profiles/launch.js';

/** What a spawn starts: every part a separate argv entry, never joined into a shell string. */
export interface LaunchPlan {
  session: string;
  window: string;
  cwd: string;
  /** Environment entries (`-e K=V`), in order. */
  env: ReadonlyArray<readonly [string, string]>;
  /** The absolute path of the executable, then its arguments. */
  argv: readonly string[];
}

/** Placeholder the window holds until the CLI is started in it (so `remain-on-exit` is set first). */
export const HOLD = ['/bin/sleep', '2147483647'] as const;

/** The CLI's argv: the executable, the recipe's arguments, the resume option (on a restart), the user's. */
export function cliArgv(
  recipe: LaunchRecipe,
  executable: string,
  userArgs: readonly string[],
  resume: boolean,
): string[] {
  return [
    executable,
    ...recipe.baseArgs,
    ...(resume && recipe.resumeArgs ? recipe.resumeArgs : []),
    ...userArgs,
  ];
}

/**
 * The command tmux runs, as several arguments so tmux executes it directly (a single argument
 * would go to `sh -c`): `env -- argv…` keeps it several even when argv is the executable alone.
 * An executable whose path holds `=` would be read by env as a variable, so it is refused.
 */
export function direct(argv: readonly string[]): string[] {
  const [exe] = argv;
  if (exe === undefined || !isAbsolute(exe) || exe.includes('=')) {
    throw new PanewardError(
      'invalid_input',
      `spawn: field \`tool\`: the executable must be an absolute path without "=", got ${JSON.stringify(exe)}`,
    );
  }
  return ['/usr/bin/env', '--', ...argv];
}

/** tmux arguments that open a new session holding the placeholder; it prints the pane id. */
export function newSessionArgs(plan: LaunchPlan, size = { x: 160, y: 45 }): string[] {
  return [
    'new-session',
    '-d',
    '-P',
    '-F',
    '#{pane_id}',
    '-s',
    plan.session,
    '-n',
    plan.window,
    '-c',
    plan.cwd,
    '-x',
    String(size.x),
    '-y',
    String(size.y),
    '--',
    ...HOLD,
  ];
}

/** tmux arguments that open a new window holding the placeholder in a session; it prints the pane id. */
export function newWindowArgs(plan: LaunchPlan): string[] {
  return [
    'new-window',
    '-d',
    '-P',
    '-F',
    '#{pane_id}',
    // `=` asks for exactly this session, not one whose name starts with it.
    '-t',
    `=${plan.session}:`,
    '-n',
    plan.window,
    '-c',
    plan.cwd,
    '--',
    ...HOLD,
  ];
}

/** tmux arguments that (re)start the CLI in the pane, killing what runs there. */
export function respawnArgs(paneId: string, plan: LaunchPlan): string[] {
  return [
    'respawn-pane',
    '-k',
    '-t',
    paneId,
    '-c',
    plan.cwd,
    ...plan.env.flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    '--',
    ...direct(plan.argv),
  ];
}

/**
 * The executable's absolute path: `name` looked up on `PATH` (the one given to the CLI, else
 * the service's). tmux looks commands up on its server's own `PATH`, so paneward resolves it.
 */
export function resolveExecutable(name: string, path: string | undefined): string | null {
  const dirs = (path ?? '').split(delimiter).filter((d) => isAbsolute(d));
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      continue;
    }
  }
  return null;
}
