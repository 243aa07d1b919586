import { SHIPPED } from './index.js';
import type { LaunchRecipe } from './launch-recipe.js';

export type { ExitStep, LaunchRecipe } from './launch-recipe.js';

/** How each shipped CLI is started and ended, by profile id (each named by its profile). */
export const LAUNCH_RECIPES: Readonly<Record<string, LaunchRecipe>> = Object.fromEntries(
  SHIPPED.flatMap((f) => (f.cli.launch ? [[f.cli.id, f.cli.launch]] : [])),
);

/** The recipe of a tool, or null when paneward cannot start it. */
export function launchRecipe(tool: string): LaunchRecipe | null {
  return Object.hasOwn(LAUNCH_RECIPES, tool) ? (LAUNCH_RECIPES[tool] ?? null) : null;
}
