import { typed, type LaunchRecipe } from '../launch-recipe.js';

/** Codex: `codex resume --last` continues the most recent session without the picker. */
export const codexLaunch: LaunchRecipe = {
  tool: 'codex',
  executable: 'codex',
  baseArgs: [],
  resumeArgs: ['resume', '--last'],
  exit: typed('/quit'),
  firstRunQuestion: 'trusts the folder (unless config.toml lists it), sign-in once per HOME',
};
