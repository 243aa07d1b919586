import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { PanewardError } from '../errors.js';
import { formatLiteral, tmuxCommandBytes, TMUX_COMMAND_BYTES } from '../observe/tmux-argv.js';
import type { LaunchRecipe } from '../profiles/launch.js';

/** What a spawn starts: every part a separate argv entry, never joined into a shell string. */
export interface LaunchPlan {
  session: string;
  window: string;
  cwd: string;
  /** Environment entries (`NAME=VALUE` for `env`), in order. */
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
 * would go to `sh -c`): `env -- NAME=VALUE… argv…` keeps it several even when argv is the
 * executable alone, and sets the environment. An executable whose path holds `=` would be read
 * by env as a variable, so it is refused; names are checked by the request's schema.
 */
export function direct(plan: Pick<LaunchPlan, 'env' | 'argv'>): string[] {
  const [exe] = plan.argv;
  if (exe === undefined || !isAbsolute(exe) || exe.includes('=')) {
    throw new PanewardError(
      'invalid_input',
      `spawn: field \`tool\`: the executable must be an absolute path without "=", got ${JSON.stringify(exe)}`,
    );
  }
  return ['/usr/bin/env', '--', ...plan.env.map(([k, v]) => `${k}=${v}`), ...plan.argv];
}

/** tmux arguments that open a new session holding the placeholder; it prints the pane id. */
export function newSessionArgs(plan: LaunchPlan, size = { x: 160, y: 45 }): string[] {
  return [
    'new-session',
    '-d',
    '-P',
    '-F',
    '#{pane_id}',
    // tmux expands formats in these three: the names and folder given are passed as literals.
    '-s',
    formatLiteral(plan.session),
    '-n',
    formatLiteral(plan.window),
    '-c',
    formatLiteral(plan.cwd),
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
    formatLiteral(plan.window),
    '-c',
    formatLiteral(plan.cwd),
    '--',
    ...HOLD,
  ];
}

/**
 * tmux arguments that (re)start the CLI in the pane, killing what runs there. The environment
 * is given to `env` (not tmux's `-e`): tmux puts its own client's `PATH` over a `PATH` given with
 * `-e`, and its own `TERM` over a `TERM`, and the CLI is to get exactly what was asked.
 */
export function respawnArgs(paneId: string, plan: LaunchPlan): string[] {
  return ['respawn-pane', '-k', '-t', paneId, '-c', formatLiteral(plan.cwd), '--', ...direct(plan)];
}

/**
 * Refuses, before anything is created, a plan whose command tmux could not carry (its message
 * is bounded: see {@link TMUX_COMMAND_BYTES}), naming the fields that fill it.
 */
export function checkPlanSize(plan: LaunchPlan): void {
  const bytes = Math.max(
    tmuxCommandBytes(respawnArgs('%0000000', plan)),
    tmuxCommandBytes(newSessionArgs(plan)),
  );
  if (bytes > TMUX_COMMAND_BYTES) {
    throw new PanewardError(
      'invalid_input',
      `spawn: fields \`args\` and \`env\`: the command would take ${bytes} bytes, more than the ${TMUX_COMMAND_BYTES} tmux carries in one command`,
    );
  }
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
