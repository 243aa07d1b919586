import { typed, type LaunchRecipe } from '../launch-recipe.js';

/** Claude Code: `-c, --continue` continues the most recent conversation in the folder. */
export const claudeCodeLaunch: LaunchRecipe = {
  tool: 'claude_code',
  executable: 'claude',
  baseArgs: [],
  resumeArgs: ['--continue'],
  exit: typed('/exit'),
  firstRunQuestion:
    'trusts the folder; onboarding, and an API key from the environment, once per HOME',
};
