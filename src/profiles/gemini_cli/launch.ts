import { typed, type LaunchRecipe } from '../launch-recipe.js';

/** Gemini CLI: `--resume latest` continues the most recent session of the project. */
export const geminiCliLaunch: LaunchRecipe = {
  tool: 'gemini_cli',
  executable: 'gemini',
  baseArgs: [],
  resumeArgs: ['--resume', 'latest'],
  exit: typed('/quit'),
  firstRunQuestion: 'trusts the folder (trustedFolders.json), authentication once per HOME',
};
