import { existsSync } from 'node:fs';
import { PanewardError } from '../errors.js';
import { launchRecipe, type LaunchRecipe } from '../profiles/launch.js';
import { SpawnRequest } from '../schemas/spawn.js';
import { invalid } from './options.js';
import { newSpawnMark, SPAWN_MARKER } from './leftovers.js';
import { checkPlanSize, cliArgv, resolveExecutable } from './spawn-argv.js';
import { isDirectory } from './worktree.js';

/** A spawn request that passed every check made before anything is created. */
export interface CheckedSpawn {
  /** The request as parsed. */
  r: ReturnType<typeof SpawnRequest.parse>;
  recipe: LaunchRecipe;
  cwd: string;
  /** The environment the request sets, as entries. */
  env: Array<[string, string]>;
  /** The spawn's marker value, carried by every process started from its pane. */
  mark: string;
  /** The environment the CLI is launched with: the request's and the marker. */
  launchEnv: Array<[string, string]>;
  executable: string;
  session: string;
  window: string;
  userArgs: readonly string[];
}

/**
 * Checks a spawn request before anything is created: its shape, a launch recipe for its tool,
 * its folder, the CLI's executable on `PATH` (the request's, else the service's `serviceEnv`),
 * and that tmux can carry the command.
 */
export function checkSpawnRequest(
  request: SpawnRequest,
  serviceEnv: NodeJS.ProcessEnv,
): CheckedSpawn {
  const parsed = SpawnRequest.safeParse(request);
  if (!parsed.success) throw invalid('spawn', parsed.error);
  const r = parsed.data;
  const recipe = launchRecipe(r.tool);
  if (!recipe) {
    throw new PanewardError(
      'invalid_input',
      `spawn: field \`tool\`: paneward has no launch recipe for ${r.tool}`,
    );
  }
  const cwd = r.cwd ?? process.cwd();
  if (!existsSync(cwd)) {
    throw new PanewardError('invalid_input', `spawn: field \`cwd\`: no folder ${cwd}`);
  }
  if (!isDirectory(cwd)) {
    throw new PanewardError('invalid_input', `spawn: field \`cwd\`: ${cwd} is not a folder`);
  }
  const env = Object.entries(r.env ?? {});
  // Every process started from the pane carries it, so a stop finds what the CLI left behind.
  const mark = newSpawnMark();
  const launchEnv: Array<[string, string]> = [...env, [SPAWN_MARKER, mark]];
  const path = r.env?.PATH ?? serviceEnv.PATH;
  const executable = resolveExecutable(recipe.executable, path);
  if (executable === null) {
    throw new PanewardError(
      'invalid_input',
      `spawn: field \`tool\`: ${recipe.executable} (${r.tool}) was not found on PATH${r.env?.PATH ? ' (env.PATH)' : ''}`,
    );
  }
  const session = r.session ?? 'paneward';
  const window = r.name ?? r.tool;
  const userArgs = r.args ?? [];
  // Checked before anything is created: tmux could not carry a longer command.
  checkPlanSize({
    session,
    window,
    cwd,
    env: launchEnv,
    argv: cliArgv(recipe, executable, userArgs, true),
  });
  return { r, recipe, cwd, env, mark, launchEnv, executable, session, window, userArgs };
}
