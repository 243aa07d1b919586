/**
 * The locale tmux gets: what is added to an environment naming no UTF-8 locale, which installed
 * locale is picked, and, with a real tmux, that format output keeps its tabs and non-ASCII names
 * under no locale only with what paneward adds (`-u`, or the locale variable alone).
 */
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  namesUtf8Locale,
  pickUtf8Locale,
  tmuxArgs,
  tmuxEnv,
  tmuxLocaleOverrides,
  utf8LocaleName,
} from '../../src/observe/tmux-locale.js';
import { uniqueSocketName } from '../e2e/harness/session.js';

describe("tmux's locale", () => {
  it("follows tmux's rule: the first of LC_ALL, LC_CTYPE, LANG that is set decides", () => {
    expect(namesUtf8Locale({})).toBe(false);
    expect(namesUtf8Locale({ LANG: 'C.UTF-8' })).toBe(true);
    expect(namesUtf8Locale({ LANG: 'en_US.utf8' })).toBe(true);
    expect(namesUtf8Locale({ LANG: 'C.UTF-8', LC_CTYPE: 'C' })).toBe(false);
    expect(namesUtf8Locale({ LC_ALL: 'POSIX', LC_CTYPE: 'C.UTF-8' })).toBe(false);
    expect(namesUtf8Locale({ LC_ALL: '', LC_CTYPE: 'C.UTF-8' })).toBe(true);
    expect(namesUtf8Locale({ LANG: 'de_DE.ISO-8859-1' })).toBe(false);
  });

  it('adds nothing to a UTF-8 environment, LC_CTYPE to one without, LC_ALL over a non-UTF-8 LC_ALL', () => {
    const pick = () => 'C.utf8';
    expect(tmuxLocaleOverrides({ LANG: 'en_GB.UTF-8' }, pick)).toEqual({});
    expect(tmuxLocaleOverrides({}, pick)).toEqual({ LC_CTYPE: 'C.utf8' });
    expect(tmuxLocaleOverrides({ LANG: 'fr_FR.ISO-8859-1' }, pick)).toEqual({
      LC_CTYPE: 'C.utf8',
    });
    expect(tmuxLocaleOverrides({ LC_ALL: 'C', LANG: 'C.UTF-8' }, pick)).toEqual({
      LC_ALL: 'C.utf8',
    });
    // The caller's variables stay; what is added comes after; extra comes last.
    expect(tmuxEnv({ TMUX: '' }, { PATH: '/bin', LANG: 'C', X: undefined })).toEqual({
      PATH: '/bin',
      LANG: 'C',
      LC_CTYPE: utf8LocaleName(),
      TMUX: '',
    });
    expect(tmuxArgs(['-L', 's', 'list-panes'])).toEqual(['-u', '-L', 's', 'list-panes']);
  });

  it('picks C.UTF-8, then en_US.UTF-8, then any UTF-8 locale the machine lists', () => {
    expect(pickUtf8Locale(['C', 'C.utf8', 'POSIX', 'en_US.utf8'])).toBe('C.utf8');
    expect(pickUtf8Locale(['C', 'de_DE.UTF-8', 'en_US.UTF-8'])).toBe('en_US.UTF-8');
    expect(pickUtf8Locale(['C', 'POSIX', 'de_DE.utf8', 'de_DE'])).toBe('de_DE.utf8');
    expect(pickUtf8Locale(['C', 'POSIX'])).toBe('C.UTF-8');
    expect(pickUtf8Locale([])).toBe('C.UTF-8');
  });

  it('names a locale this machine has', async () => {
    const listed = (await execa('locale', ['-a'])).stdout.split('\n');
    expect(listed).toContain(utf8LocaleName());
  });

  describe('with a real tmux and no locale', () => {
    const socket = uniqueSocketName('loc-unit');
    const bare = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/' };
    const format = ['-L', socket, 'list-panes', '-a', '-F', '#{session_name}\t#{pane_id}'];
    const run = (args: string[], env: Record<string, string>) =>
      execa('tmux', args, { env, extendEnv: false, stdin: 'ignore' });

    beforeAll(async () => {
      await run(['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'wörk'], bare);
    });
    afterAll(async () => {
      await execa('tmux', ['-L', socket, 'kill-server'], { reject: false });
    });

    it('garbles format output without, and keeps it whole with, what paneward adds', async () => {
      // tmux 3.3a: the tab and `ö` each become `_`.
      expect((await run(format, bare)).stdout).toBe('w_rk_%0');
      expect((await run(tmuxArgs(format), bare)).stdout).toBe('wörk\t%0');
      expect((await run(format, tmuxEnv({}, bare))).stdout).toBe('wörk\t%0');
      expect((await run(tmuxArgs(format), tmuxEnv({}, bare))).stdout).toBe('wörk\t%0');
    });

    it('gives the panes of a server started under no locale a UTF-8 character type', async () => {
      const started = uniqueSocketName('loc-unit-server');
      try {
        await run(
          tmuxArgs(['-L', started, '-f', '/dev/null', 'new-session', '-d', '-s', 's', 'cat']),
          tmuxEnv({}, bare),
        );
        const env = await run(
          tmuxArgs(['-L', started, 'show-environment', '-g', 'LC_CTYPE']),
          tmuxEnv({}, bare),
        );
        expect(env.stdout).toBe(`LC_CTYPE=${utf8LocaleName()}`);
      } finally {
        await execa('tmux', ['-L', started, 'kill-server'], { reject: false });
      }
    });
  });
});
