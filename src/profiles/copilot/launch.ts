import type { LaunchRecipe } from '../launch-recipe.js';

/** Copilot CLI: `--continue` resumes the most recent session; Ctrl+C twice quits. */
export const copilotLaunch: LaunchRecipe = {
  tool: 'copilot',
  executable: 'copilot',
  baseArgs: ['--no-auto-update'],
  resumeArgs: ['--continue'],
  exit: [{ keys: ['C-c'] }, { keys: ['C-c'] }],
  firstRunQuestion: 'trusts the files in the folder, sign-in once per HOME',
};
