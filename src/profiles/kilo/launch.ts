import { typed, type LaunchRecipe } from '../launch-recipe.js';

/** Kilo: `-c, --continue` continues the last session. */
export const kiloLaunch: LaunchRecipe = {
  tool: 'kilo',
  executable: 'kilo',
  baseArgs: [],
  resumeArgs: ['--continue'],
  exit: typed('/exit'),
  firstRunQuestion: null,
};
