import { describe, expect, it } from 'vitest';
import { isPaneDeadLine, isShellPromptLine } from '../../../src/profiles/internal/exit.js';
import { getProfile } from '../../../src/profiles/index.js';
import { recordedScreen } from '../real-frame.js';

describe('isPaneDeadLine', () => {
  it('reads tmux’s remain-on-exit note as recorded', () => {
    const killed = recordedScreen('claude_code', 'cli-killed', -1).trimEnd().split('\n').at(-1)!;
    expect(killed).toBe('Pane is dead (signal 9, Sun Nov 22 08:39:32 2026)');
    expect(isPaneDeadLine(killed)).toBe(true);
    expect(isPaneDeadLine('Pane is dead (status 0, Sun Nov 22 08:39:32 2026)')).toBe(true);
  });

  it('does not read reply text about a dead pane', () => {
    expect(isPaneDeadLine('  Pane is dead (signal 9, …) is what tmux prints')).toBe(false);
    expect(isPaneDeadLine('The pane is dead')).toBe(false);
  });
});

describe('isShellPromptLine', () => {
  it.each([
    'bash-5.2#',
    'bash-5.2$ ',
    'sh-5.2$',
    'host%',
    'user@host ~ %',
    'user@host:~$',
    'user@host:~/work$',
    'user@host:~/my dir$',
    'root@box:/srv/app#',
    '[user@host work]$',
    '~/work $',
    '$',
    '#',
  ])('reads %j as a shell prompt', (line) => {
    expect(isShellPromptLine(line)).toBe(true);
  });

  it.each([
    '',
    'Token usage so far: total=1,222 input=1,200 output=22',
    '● Hello! The price is 5$',
    '  gpt-fake-1 default · /work · Fake session',
    '│ ● 1. Allow once │',
    'echo $HOME',
  ])('does not read %j as a shell prompt', (line) => {
    expect(isShellPromptLine(line)).toBe(false);
  });
});

describe('exit detection is the same in every profile', () => {
  it.each(['claude_code', 'codex', 'gemini_cli'])(
    '%s reads a bare shell prompt of any common shape as disconnected',
    (tool) => {
      for (const prompt of ['bash-5.2#', 'host%', 'user@host:~/my dir$', '[user@host work]$']) {
        const r = getProfile(tool).parse({ text: `${prompt}\n\n` });
        expect(r.surface.availability, prompt).toBe('disconnected');
        expect(r.surface.inputMode, prompt).toBe('closed');
      }
    },
  );
});
