import type { LaunchRecipe } from '../launch-recipe.js';

/** opencode: `-c, --continue` continues the last session; Ctrl+C on an empty prompt quits. */
export const opencodeLaunch: LaunchRecipe = {
  tool: 'opencode',
  executable: 'opencode',
  baseArgs: [],
  resumeArgs: ['--continue'],
  exit: [{ keys: ['C-c'] }],
  firstRunQuestion: null,
};
