/**
 * One registration per CLI: its profile names its launch recipe, session record reader and hook
 * mechanism, and every list of CLIs paneward keeps is read from the one list of shipped profiles.
 */
import { describe, expect, it } from 'vitest';
import { hookStatus, installHooks } from '../../src/hooks/install.js';
import { PROFILES, SHIPPED, cliParts } from '../../src/profiles/index.js';
import { LAUNCH_RECIPES, launchRecipe } from '../../src/profiles/launch.js';
import { SESSION_RECORDS, sessionRecordReader } from '../../src/profiles/session-records.js';

const ids = SHIPPED.map((f) => f.cli.id);

describe('one registration per CLI', () => {
  it('every shipped profile is named once, by the id its profile gives', () => {
    expect(new Set(ids).size).toBe(ids.length);
    for (const f of SHIPPED) expect(f().id).toBe(f.cli.id);
    expect(Object.keys(PROFILES)).toEqual([...ids, 'unsupported']);
  });

  it('the launch recipes are the shipped profiles’ own, each for its own tool', () => {
    expect(Object.keys(LAUNCH_RECIPES)).toEqual(ids);
    for (const id of ids) {
      expect(launchRecipe(id)).toBe(cliParts(id)!.launch);
      expect(launchRecipe(id)!.tool).toBe(id);
    }
    expect(launchRecipe('unsupported')).toBeNull();
    expect(launchRecipe('constructor')).toBeNull();
  });

  it('the session record readers are those the profiles name, each for its own tool', () => {
    const withRecord = SHIPPED.filter((f) => f.cli.sessionRecord).map((f) => f.cli.id);
    expect(Object.keys(SESSION_RECORDS)).toEqual(withRecord);
    expect(withRecord).toEqual(
      expect.arrayContaining([
        'claude_code',
        'codex',
        'gemini_cli',
        'qwen_code',
        'copilot',
        'cline',
      ]),
    );
    for (const id of withRecord) expect(sessionRecordReader(id)!.tool).toBe(id);
    expect(sessionRecordReader('pi')).toBeUndefined();
    expect(sessionRecordReader('constructor')).toBeUndefined();
  });

  it('hooks are installed for the CLIs whose profile names a mechanism, and refused for others', () => {
    const hooked = SHIPPED.filter((f) => f.cli.hooks).map((f) => f.cli.id);
    expect(hooked).toEqual(['claude_code', 'opencode', 'kilo', 'cline']);
    const home = '/nonexistent-paneward-home';
    const status = hookStatus({ home, cwd: home, env: {} });
    expect([...new Set(status.map((s) => s.tool))].sort()).toEqual([...hooked].sort());
    expect(() =>
      installHooks('codex', { scope: 'user', home, cwd: home, env: {}, url: 'http://127.0.0.1:1' }),
    ).toThrow(
      /argument `tool`: paneward installs hooks for claude_code, opencode, kilo and cline only/,
    );
  });
});
