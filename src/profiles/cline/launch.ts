import type { LaunchRecipe } from '../launch-recipe.js';

/**
 * Cline CLI: resuming needs a session id (`--id`), so a restart starts afresh; tools ask before
 * they run (`--auto-approve false`, its default is true); Ctrl+C twice quits.
 */
export const clineLaunch: LaunchRecipe = {
  tool: 'cline',
  executable: 'cline',
  baseArgs: ['--auto-approve', 'false'],
  resumeArgs: null,
  exit: [{ keys: ['C-c'] }, { keys: ['C-c'] }],
  firstRunQuestion: null,
};
