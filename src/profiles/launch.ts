import { claudeCodeLaunch } from './claude_code/launch.js';
import { clineLaunch } from './cline/launch.js';
import { codexLaunch } from './codex/launch.js';
import { copilotLaunch } from './copilot/launch.js';
import { geminiCliLaunch } from './gemini_cli/launch.js';
import { grokCliLaunch } from './grok_cli/launch.js';
import { kiloLaunch } from './kilo/launch.js';
import type { LaunchRecipe } from './launch-recipe.js';
import { opencodeLaunch } from './opencode/launch.js';
import { piLaunch } from './pi/launch.js';
import { qwenCodeLaunch } from './qwen_code/launch.js';

export type { ExitStep, LaunchRecipe } from './launch-recipe.js';

/** How each shipped CLI is started and ended, by profile id. */
export const LAUNCH_RECIPES: Readonly<Record<string, LaunchRecipe>> = Object.fromEntries(
  [
    claudeCodeLaunch,
    codexLaunch,
    geminiCliLaunch,
    opencodeLaunch,
    kiloLaunch,
    qwenCodeLaunch,
    copilotLaunch,
    piLaunch,
    grokCliLaunch,
    clineLaunch,
  ].map((r) => [r.tool, r]),
);

/** The recipe of a tool, or null when paneward cannot start it. */
export function launchRecipe(tool: string): LaunchRecipe | null {
  return Object.hasOwn(LAUNCH_RECIPES, tool) ? (LAUNCH_RECIPES[tool] ?? null) : null;
}
