import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's own folder (the one holding its package.json), found upward from a module's
 * URL: the same answer whether the module runs from `src/` or from the build in `dist/src/`.
 */
export function packageRoot(moduleUrl: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(moduleUrl));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** A file of the package (recordings, the dashboard, scripts), by its path in the repository. */
export function packageFile(path: string): string {
  return join(packageRoot(), path);
}
