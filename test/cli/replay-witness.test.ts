import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../replay/ground-truth.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('`paneward replay` of a recording that holds the session record', () => {
  it('prints the witness, and refuses an authority that does not exist naming the option', async () => {
    const file = fixturePath('cline', 'record-normal-turn');
    const cli = await execa('node', ['bin/paneward.js', 'replay', '--format', 'brief', file], {
      cwd: ROOT,
      reject: false,
    });
    expect(cli.stderr).toBe('');
    expect(cli.stdout).toMatch(/last=success@turn-1\(both\)/);
    const bad = await execa(
      'node',
      ['bin/paneward.js', 'replay', '--completion-authority', 'record', file],
      { cwd: ROOT, reject: false },
    );
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/--completion-authority: must be surface, markers or both/);
  });
});
