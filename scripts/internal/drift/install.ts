/** Installs a release into its own scratch folder, never over the pinned `.tmp/agents/`. */
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execa } from 'execa';

/** `.tmp/drift/<id>@<version>/`: the scratch folder of one release. */
export const scratchOf = (root: string, id: string, version: string): string =>
  resolve(root, '.tmp/drift', `${id}@${version}`);

/** The executable of an install folder. */
export const binIn = (dir: string, bin: string): string => join(dir, 'node_modules/.bin', bin);

/** The pinned install `scripts/install-agent.sh` made. */
export const pinnedBin = (root: string, id: string, bin: string): string =>
  binIn(resolve(root, '.tmp/agents', id), bin);

export type InstallResult =
  { status: 'installed' | 'present'; bin: string } | { status: 'failed'; why: string };

/** Installs `pkg@version` into `dir` (kept when its executable is already there). */
export async function installRelease(
  dir: string,
  pkg: string,
  version: string,
  bin: string,
  timeoutMs = 15 * 60_000,
): Promise<InstallResult> {
  const exe = binIn(dir, bin);
  if (existsSync(exe)) return { status: 'present', bin: exe };
  mkdirSync(dir, { recursive: true });
  const r = await execa(
    'npm',
    [
      'install',
      '--prefix',
      dir,
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `${pkg}@${version}`,
    ],
    { reject: false, timeout: timeoutMs, env: { NO_UPDATE_NOTIFIER: '1' } },
  );
  if (r.timedOut)
    return { status: 'failed', why: `npm install took over ${timeoutMs / 60_000} min` };
  if (r.exitCode !== 0) {
    const last = r.stderr.trim().split('\n').slice(-2).join(' ');
    return { status: 'failed', why: `npm install exited ${r.exitCode}: ${last}` };
  }
  if (!existsSync(exe))
    return { status: 'failed', why: `no ${bin} under ${dir}/node_modules/.bin` };
  return { status: 'installed', bin: exe };
}
