import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pw-startup-'));
  writeFileSync(join(dir, 'file'), '');
  mkdirSync(join(dir, 'lockdir', 'lock'), { recursive: true });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the command line and returns its exit code and what it wrote to stderr. */
async function run(argv: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    return { code: await main(argv), stderr };
  } finally {
    process.stderr.write = write;
  }
}

describe('startup errors of serve and watch', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['a file', 'file', /exists and is not a directory \(EEXIST\)/],
    ['under a file', 'file/sub', /is not a directory .*\(ENOTDIR\)/],
    [
      'a lock that is a directory',
      'lockdir',
      /lock is a directory where a file belongs; remove it \(EISDIR\)/,
    ],
  ];
  for (const command of ['serve', 'watch'] as const) {
    for (const [what, sub, reason] of cases) {
      it(`${command} on a data directory that is ${what}: one line naming the path and what to do`, async () => {
        const dataDir = join(dir, sub);
        const args =
          command === 'serve'
            ? ['serve', '--port', '0', '--data-dir', dataDir, '--socket-name', 'jrn-startup-none']
            : ['watch', 'nosuch:0.0', '--data-dir', dataDir, '--socket-name', 'jrn-startup-none'];
        const { code, stderr } = await run(args);
        expect(code).toBe(1);
        expect(stderr).toMatch(reason);
        expect(stderr).toContain(`data directory ${dataDir}`);
        expect(stderr).toContain('choose another with --data-dir');
        expect(stderr.trimEnd().split('\n')).toHaveLength(1);
      });
    }
  }
});
