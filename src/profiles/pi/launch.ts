import type { LaunchRecipe } from '../launch-recipe.js';

/** pi: `-c, --continue` continues the previous session; Ctrl+D on an empty editor exits. */
export const piLaunch: LaunchRecipe = {
  tool: 'pi',
  executable: 'pi',
  baseArgs: [],
  resumeArgs: ['--continue'],
  exit: [{ keys: ['C-d'] }],
  firstRunQuestion: null,
};
