import { readFile, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';

/** An agent CLI's version as read from the package it runs from. */
export interface DetectedVersion {
  version: string;
  /** The npm package whose `package.json` said so. */
  packageName: string;
  /** Where that `package.json` is. */
  packageJson: string;
  pid: number;
}

export interface VersionOptions {
  /** Where /proc is; for tests. */
  procRoot?: string;
}

// Programs that run a script named by their first non-option argument.
const SCRIPT_RUNNERS = new Set(['node', 'nodejs', 'bun', 'deno', 'tsx']);
// How far above an executable its package.json may be (`pkg/vendor/<triple>/bin/codex`).
const MAX_LEVELS = 6;

/**
 * The version of an agent CLI running as one of `pids` (in order), read from the `package.json`
 * of the npm package its executable or script belongs to — no flag is run and nothing is typed.
 * A package counts when its name is one of `packages` or a platform build of one
 * (`@github/copilot-linux-x64` for `@github/copilot`). Null when no process leads to such a
 * package: a CLI installed some other way, or one that overwrites its own command line.
 */
export async function detectToolVersion(
  pids: readonly number[],
  packages: readonly string[],
  options: VersionOptions = {},
): Promise<DetectedVersion | null> {
  if (packages.length === 0) return null;
  const proc = options.procRoot ?? '/proc';
  for (const pid of pids) {
    for (const path of await candidatePaths(proc, pid)) {
      const found = await packageAbove(path, packages);
      if (found) return { ...found, pid };
    }
  }
  return null;
}

/** Files a process runs: its executable, and its program and script when they are paths. */
async function candidatePaths(proc: string, pid: number): Promise<string[]> {
  const out: string[] = [];
  const exe = await readlink(`${proc}/${pid}/exe`).catch(() => null);
  const argv = await readFile(`${proc}/${pid}/cmdline`, 'utf8')
    .then((s) => s.split('\0').filter((a) => a !== ''))
    .catch(() => [] as string[]);
  const cwd = await readlink(`${proc}/${pid}/cwd`).catch(() => null);
  const asPath = (arg: string): string | null => {
    if (!arg.includes('/')) return null;
    if (isAbsolute(arg)) return arg;
    return cwd === null ? null : resolve(cwd, arg);
  };
  const program = argv[0];
  if (program !== undefined) {
    if (SCRIPT_RUNNERS.has(basename(program))) {
      const script = argv.slice(1).find((a) => !a.startsWith('-'));
      const p = script === undefined ? null : asPath(script);
      if (p) out.push(p);
    }
    const p = asPath(program);
    if (p) out.push(p);
  }
  if (exe !== null) out.push(exe);
  const real = await Promise.all(out.map((p) => realpath(p).catch(() => p)));
  return [...new Set(real)];
}

async function packageAbove(
  file: string,
  packages: readonly string[],
): Promise<Omit<DetectedVersion, 'pid'> | null> {
  let dir = dirname(file);
  for (let i = 0; i < MAX_LEVELS; i++) {
    const packageJson = join(dir, 'package.json');
    const text = await readFile(packageJson, 'utf8').catch(() => null);
    if (text !== null) {
      const meta = parse(text);
      if (meta && packages.some((p) => meta.name === p || meta.name.startsWith(`${p}-`))) {
        return { version: meta.version, packageName: meta.name, packageJson };
      }
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return null;
}

function parse(text: string): { name: string; version: string } | null {
  try {
    const v = JSON.parse(text) as { name?: unknown; version?: unknown };
    return typeof v.name === 'string' && typeof v.version === 'string'
      ? { name: v.name, version: v.version }
      : null;
  } catch {
    return null;
  }
}
