import { typed, type LaunchRecipe } from '../launch-recipe.js';

/** Qwen Code: `-c, --continue` resumes the most recent session for the project. */
export const qwenCodeLaunch: LaunchRecipe = {
  tool: 'qwen_code',
  executable: 'qwen',
  baseArgs: [],
  resumeArgs: ['--continue'],
  exit: typed('/quit'),
  firstRunQuestion: 'trusts the folder ("Do you trust …"), authentication once per HOME',
};
