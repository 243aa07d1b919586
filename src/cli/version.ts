import { readFileSync } from 'node:fs';
import { packageFile } from '../internal/package-root.js';

/** The version in paneward's package.json (the same file from `src/` and from `dist/`). */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as {
    version?: unknown;
  };
  return typeof pkg.version === 'string' ? pkg.version : 'unknown';
}
