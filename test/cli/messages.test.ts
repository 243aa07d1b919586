import { describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { cliMessage } from '../../src/cli/messages.js';
import { toolLabel } from '../../src/cli/labels.js';
import { terminalNameFor, uniqueName } from '../../src/internal/terminal-name.js';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((c) => ((out += String(c)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((c) => ((err += String(c)), true));
  try {
    return { code: await main(argv), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

describe('errors in the command line’s terms', () => {
  it('names the option the user typed, in plain words, for every command that checks its options', async () => {
    const cases: Array<[string[], string]> = [
      [['watch', '--data-dir', '', 'x:0.0'], 'paneward: watch: --data-dir: must not be empty\n'],
      [
        ['watch', '--duration', 'abc', '--discover'],
        'paneward: watch: --duration: must be a number\n',
      ],
      [
        ['watch', '--format', 'nope', '--discover'],
        'paneward: watch: --format: must be table, brief or json\n',
      ],
      [['watch'], 'paneward: watch: [targets...]: name at least one target, or use --discover\n'],
      [
        ['watch', '--session-budget', 'x', '--discover'],
        'paneward: watch: --session-budget: must be a number of seconds\n',
      ],
      [['journal', '--since', '-1'], 'paneward: journal: --since: must be 0 or more\n'],
      [
        ['doctor', '--window-seconds', 'x'],
        'paneward: doctor: --window-seconds: must be a number of seconds\n',
      ],
      [['serve', '--port', '99999'], 'paneward: serve: --port: must be a port number\n'],
      [['ls', '--url', 'nope'], 'paneward: --url: not a URL: nope\n'],
      [
        ['serve', '--stall-timeout', 'x'],
        'paneward: serve: --stall-timeout must be a number of seconds\n',
      ],
    ];
    for (const [argv, said] of cases) {
      const r = await cli(...argv);
      expect(r, argv.join(' ')).toMatchObject({ code: 2, err: said });
      expect(r.err).not.toMatch(/field `/);
    }
  });

  it('maps the server’s and the library’s field names, and drops where in a request they were', () => {
    const client = { id: '<terminal>', target: '<target>', timeoutSeconds: '--timeout' };
    expect(cliMessage('path: field `id`: letters, digits', client)).toBe(
      '<terminal>: letters, digits',
    );
    expect(cliMessage('body: field `target`: target must be x', client)).toBe(
      '<target>: target must be x',
    );
    expect(cliMessage('attach: field `target`: pane %3 is already attached as a1', client)).toBe(
      '<target>: pane %3 is already attached as a1',
    );
    expect(
      cliMessage(
        'query: field `timeoutSeconds`: Too big: expected number to be <=86400; field `x`: unknown field',
        client,
      ),
    ).toBe('--timeout: must be at most 86400; --x: unknown option');
    // An unknown field is named as an option of this command line is spelled.
    expect(cliMessage('serve: field `config.staleActiveSeconds`: must be more than 5')).toBe(
      'serve: --stale-active-seconds: must be more than 5',
    );
    // Messages that name no field stay as they were.
    expect(cliMessage('no terminal with id t9')).toBe('no terminal with id t9');
  });
});

describe('names people read', () => {
  it('a discovered terminal is named after its session and window, valid and unique', () => {
    expect(terminalNameFor('work', 'claude')).toBe('work-claude');
    expect(terminalNameFor('my project', 'codex:2')).toBe('my-project-codex-2');
    expect(terminalNameFor('_x', '..')).toBe('x');
    expect(terminalNameFor('', '')).toBe('pane');
    expect(terminalNameFor('s'.repeat(80), 'w')).toHaveLength(64);
    for (const name of ['work-claude', 'my-project-codex-2', 'x', 'pane']) {
      expect(name).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/);
    }
    expect(uniqueName('work-claude', new Set(['work-claude', 'work-claude-2']))).toBe(
      'work-claude-3',
    );
    expect(uniqueName('a'.repeat(64), new Set(['a'.repeat(64)]))).toBe(`${'a'.repeat(62)}-2`);
  });

  it('the tool of a pane not yet detected reads "detecting", not the internal "auto"', () => {
    expect(toolLabel('auto')).toBe('detecting');
    expect(toolLabel('codex')).toBe('codex');
  });
});
