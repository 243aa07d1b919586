#!/usr/bin/env node
// Runs the build in dist/ when it is there and not older than the sources; otherwise (a checkout
// whose sources changed since the last `npm run build`) runs the TypeScript sources through tsx,
// and says so on stderr first: the first run through tsx compiles every module it loads.
// The rule, and why it is enough, is in docs/cli.md ("How the command starts").
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, URL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const STAMP = join(root, 'dist', '.built');

/** The newest TypeScript source under `dir`: its modification time and path (time 0 when none). */
function newestSource(dir) {
  let newest = { mtimeMs: 0, path: null };
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return newest;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    const found = e.isDirectory()
      ? newestSource(path)
      : e.name.endsWith('.ts')
        ? { mtimeMs: statSync(path).mtimeMs, path }
        : newest;
    if (found.mtimeMs > newest.mtimeMs) newest = found;
  }
  return newest;
}

/**
 * Null when the build is used: its stamp is at least as new as every source it was built from.
 * Otherwise why the sources run instead.
 */
function whyFromSource() {
  if (process.env.PANEWARD_FROM_SOURCE === '1') return 'PANEWARD_FROM_SOURCE=1 is set';
  let built;
  try {
    built = statSync(STAMP).mtimeMs;
  } catch {
    return 'there is no build (dist/.built is missing)';
  }
  // An installed package (no build config: it is not a checkout) runs the build it was packed
  // with: npm gives the files it extracts the time of extraction, sources after dist/.
  if (!existsSync(join(root, 'tsconfig.build.json'))) return null;
  const src = newestSource(join(root, 'src'));
  const machines = newestSource(join(root, 'machines'));
  const newest = src.mtimeMs >= machines.mtimeMs ? src : machines;
  if (newest.mtimeMs <= built) return null;
  return `${relative(root, newest.path)} is newer than the build in dist/`;
}

const why = whyFromSource();
let main;
if (why === null) {
  ({ main } = await import('../dist/src/cli/main.js'));
} else {
  process.stderr.write(
    `paneward: ${why}: running the TypeScript sources through tsx (the first run compiles ` +
      `them, which can take a minute; \`npm run build\` makes the start fast)\n`,
  );
  const { tsImport } = await import('tsx/esm/api');
  ({ main } = await tsImport('../src/cli/main.ts', import.meta.url));
}
process.exitCode = await main(process.argv.slice(2));
