import { typed, type LaunchRecipe } from '../launch-recipe.js';

/** grok-cli: no option continues a conversation (a restart starts afresh); `exit` quits. */
export const grokCliLaunch: LaunchRecipe = {
  tool: 'grok_cli',
  executable: 'grok',
  baseArgs: [],
  resumeArgs: null,
  exit: typed('exit'),
  firstRunQuestion: null,
};
