import { existsSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { PanewardError } from '../errors.js';

/**
 * `git worktree add -b BRANCH <repo>.worktrees/BRANCH` from the folder's repository: refused
 * (naming the field) when the folder is not in a git repository, the branch exists or is not a
 * valid name, or the path is taken.
 */
export async function addWorktree(
  cwd: string,
  branch: string,
): Promise<{ path: string; branch: string }> {
  const git = (args: string[], dir = cwd) => execa('git', ['-C', dir, ...args], { reject: false });
  const top = await git(['rev-parse', '--show-toplevel']);
  if (top.exitCode !== 0) {
    throw new PanewardError(
      'invalid_input',
      `spawn: field \`worktree\`: ${cwd} is not in a git repository`,
    );
  }
  const repo = top.stdout.trim();
  const ok = await execa('git', ['check-ref-format', '--branch', branch], { reject: false });
  if (ok.exitCode !== 0) {
    throw new PanewardError(
      'invalid_input',
      `spawn: field \`worktree\`: not a branch name: ${branch}`,
    );
  }
  const exists = await git(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], repo);
  if (exists.exitCode === 0) {
    throw new PanewardError(
      'invalid_input',
      `spawn: field \`worktree\`: branch ${branch} already exists in ${repo}`,
    );
  }
  const path = join(`${repo}.worktrees`, branch);
  if (existsSync(path)) {
    throw new PanewardError('invalid_input', `spawn: field \`worktree\`: ${path} already exists`);
  }
  const add = await git(['worktree', 'add', '-b', branch, '--', path], repo);
  if (add.exitCode !== 0) {
    throw new PanewardError(
      'invalid_input',
      `spawn: field \`worktree\`: git worktree add failed: ${add.stderr.trim().slice(0, 300)}`,
    );
  }
  return { path, branch };
}

/** Whether `path` is a folder (following links, as a process's working directory does). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Removes a worktree a failed spawn added (at `<repo>.worktrees/<branch>`), its branch, and the
 * `<repo>.worktrees` folder when that is left empty.
 */
export async function dropWorktree(w: { path: string; branch: string }): Promise<void> {
  const top = w.path.slice(0, w.path.length - w.branch.length - 1);
  const repo = top.slice(0, top.length - '.worktrees'.length);
  await execa('git', ['-C', repo, 'worktree', 'remove', '--force', '--', w.path], {
    reject: false,
  });
  await execa('git', ['-C', repo, 'branch', '-D', w.branch], { reject: false });
  removeEmptyUp(dirname(w.path), top);
}

/** Removes `dir` and its parents up to and including `top` while they are empty folders. */
function removeEmptyUp(dir: string, top: string): void {
  let d = dir;
  while (d.length >= top.length && d.startsWith(top)) {
    try {
      if (readdirSync(d).length > 0) return;
      rmdirSync(d);
    } catch {
      return;
    }
    if (d === top) return;
    d = dirname(d);
  }
}

/** The paths a worktree has changed or added (`git status --porcelain`). */
export async function worktreeChanges(path: string): Promise<string[]> {
  const r = await execa('git', ['-C', path, 'status', '--porcelain'], { reject: false });
  if (r.exitCode !== 0) return [];
  return r.stdout.split('\n').filter((l) => l.trim() !== '');
}

export async function removeWorktreeAt(path: string, force: boolean): Promise<void> {
  const r = await execa(
    'git',
    ['-C', path, 'worktree', 'remove', ...(force ? ['--force'] : []), '--', path],
    { reject: false },
  );
  if (r.exitCode !== 0) {
    throw new PanewardError(
      'internal',
      `the window is closed, but removing the worktree ${path} failed: ${r.stderr.trim().slice(0, 300)}`,
    );
  }
  // `<repo>.worktrees/` and the folders of a branch with slashes go when nothing else is there.
  const top = /^(.*\.worktrees)\//.exec(path)?.[1];
  if (top) removeEmptyUp(dirname(path), top);
}
