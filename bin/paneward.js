#!/usr/bin/env node
// Runs the build in dist/ when it is there and not older than the sources; otherwise (a checkout
// whose sources changed since the last `npm run build`) runs the TypeScript sources through tsx.
// The rule, and why it is enough, is in docs/cli.md ("How the command starts").
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, URL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const STAMP = join(root, 'dist', '.built');

/** The newest modification time of the TypeScript sources under `dir` (0 when there is none). */
function newestSource(dir) {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (e.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** The build is used when its stamp is at least as new as every source it was built from. */
function buildIsCurrent() {
  if (process.env.PANEWARD_FROM_SOURCE === '1') return false;
  let built;
  try {
    built = statSync(STAMP).mtimeMs;
  } catch {
    return false;
  }
  return Math.max(newestSource(join(root, 'src')), newestSource(join(root, 'machines'))) <= built;
}

let main;
if (buildIsCurrent()) {
  ({ main } = await import('../dist/src/cli/main.js'));
} else {
  const { tsImport } = await import('tsx/esm/api');
  ({ main } = await tsImport('../src/cli/main.ts', import.meta.url));
}
process.exitCode = await main(process.argv.slice(2));
