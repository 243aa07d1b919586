/**
 * `paneward spawn`'s command line: the request it makes (arguments after `--` each one entry,
 * `--env` repeatable, the folder made absolute) and its refusals, each naming the option.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isPanewardError } from '../../src/errors.js';
import { cliMessage } from '../../src/cli/messages.js';
import { CLIENT_FIELDS } from '../../src/cli/messages.js';
import { parseEnv, spawnRequest } from '../../src/cli/spawn.js';

const base = { env: [] as string[] };

describe('paneward spawn, as a request', () => {
  it('keeps each argument and each environment value whole', () => {
    const r = spawnRequest('codex', ['a b', 'x;y', '$(id)', '--model=o3'], {
      ...base,
      cwd: 'rel/dir',
      env: ['A=1', 'B=x=y; $(z)', 'EMPTY='],
      restart: 'on-failure',
      budget: '0',
      readyTimeout: '90',
      worktree: 'feat/x',
    });
    expect(r).toEqual({
      tool: 'codex',
      cwd: resolve('rel/dir'),
      worktree: 'feat/x',
      env: { A: '1', B: 'x=y; $(z)', EMPTY: '' },
      args: ['a b', 'x;y', '$(id)', '--model=o3'],
      restart: 'on-failure',
      sessionWallClockSeconds: 0,
      readyTimeoutSeconds: 90,
    });
  });

  it('refuses what it can tell is wrong, naming the option', () => {
    const refusal = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        if (isPanewardError(e)) return e.message;
        throw e;
      }
      return null;
    };
    expect(refusal(() => parseEnv(['NOVALUE']))).toMatch(/field `--env`: must be NAME=VALUE/);
    expect(refusal(() => parseEnv(['=x']))).toMatch(/`--env`/);
    expect(refusal(() => spawnRequest('codex', [], { ...base, restart: 'always' }))).toMatch(
      /field `--restart`: must be never or on-failure/,
    );
    expect(refusal(() => spawnRequest('codex', [], { ...base, budget: 'soon' }))).toMatch(
      /field `--budget`/,
    );
  });

  it("names the service's fields as the options the user typed", () => {
    expect(cliMessage('spawn: field `sessionWallClockSeconds`: too big', CLIENT_FIELDS)).toContain(
      '--budget',
    );
    expect(cliMessage('spawn: field `readyTimeoutSeconds`: ran out', CLIENT_FIELDS)).toContain(
      '--ready-timeout',
    );
  });
});
