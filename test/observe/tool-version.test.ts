/**
 * Reading a running CLI's version from its package: real processes started the ways the CLIs
 * run: a script under node through a node_modules/.bin link, a native executable inside a
 * platform package, a relative path. The live suite checks the real CLIs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectToolVersion } from '../../src/observe/tool-version.js';

const root = mkdtempSync(join(tmpdir(), 'pw-version-'));
const started: ChildProcess[] = [];

afterAll(() => {
  for (const c of started) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

/** A package folder with a package.json, and `file` written inside it. */
function pkg(name: string, version: string, file: string, body: string, mode = 0o755): string {
  const dir = join(root, 'node_modules', name);
  mkdirSync(dirname(join(dir, file)), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version }));
  writeFileSync(join(dir, file), body, { mode });
  return join(dir, file);
}

/** Starts a process and waits until it has exec'd (its cmdline is the one asked for). */
async function start(cmd: string, args: string[], cwd = root): Promise<number> {
  const child = spawn(cmd, args, { cwd, stdio: 'ignore' });
  started.push(child);
  await new Promise((r) => setTimeout(r, 300));
  return child.pid!;
}

const SLEEP = 'setTimeout(() => {}, 60_000);\n';

describe('detectToolVersion', () => {
  it('reads the package of a script run by node through a node_modules/.bin link', async () => {
    const script = pkg('@openai/codex', '9.8.7', 'bin/codex.js', SLEEP);
    mkdirSync(join(root, 'node_modules/.bin'), { recursive: true });
    symlinkSync(script, join(root, 'node_modules/.bin/codex'));
    const pid = await start(process.execPath, [join(root, 'node_modules/.bin/codex')]);
    expect(await detectToolVersion([pid], ['@openai/codex'])).toMatchObject({
      version: '9.8.7',
      packageName: '@openai/codex',
      pid,
    });
  });

  it('reads a native executable inside a platform build of the package', async () => {
    const exe = pkg('@github/copilot-linux-x64', '1.2.3', 'copilot', '');
    copyFileSync('/bin/sleep', exe);
    const pid = await start(exe, ['60']);
    expect(await detectToolVersion([pid], ['@github/copilot'])).toMatchObject({
      version: '1.2.3',
      packageName: '@github/copilot-linux-x64',
    });
  });

  it('resolves a relative script path against the process working folder', async () => {
    pkg('@google/gemini-cli', '0.99.0', 'bundle/gemini.js', SLEEP);
    const pid = await start(process.execPath, ['node_modules/@google/gemini-cli/bundle/gemini.js']);
    expect((await detectToolVersion([pid], ['@google/gemini-cli']))?.version).toBe('0.99.0');
  });

  it('says nothing rather than guess: a package of another name, a gone pid, no packages', async () => {
    const script = pkg('left-pad', '1.0.0', 'index.js', SLEEP);
    const pid = await start(process.execPath, [script]);
    expect(await detectToolVersion([pid], ['@openai/codex'])).toBeNull();
    expect(await detectToolVersion([2 ** 22 + 17], ['@openai/codex'])).toBeNull();
    expect(await detectToolVersion([pid], [])).toBeNull();
  });
});
