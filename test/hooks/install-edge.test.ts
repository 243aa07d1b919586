/**
 * `paneward hooks install|uninstall claude_code` on settings files as people have them: a
 * symbolic link into a dotfiles folder, a key given twice, events they keep empty, layouts of
 * their own. Real files in a temporary home.
 */
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import {
  claudeSettingsFile,
  hookStatus,
  installHooks,
  uninstallHooks,
} from '../../src/hooks/install.js';

let dir: string;
let home: string;
const URL_ = 'http://127.0.0.1:7420';
const user = () => ({ scope: 'user' as const, home, env: {} });
const file = () => claudeSettingsFile(user());
const install = (url = URL_) =>
  installHooks('claude_code', {
    url,
    ...user(),
    node: '/usr/bin/node',
    script: '/opt/paneward/bin/paneward-hook.js',
  });
const uninstall = () => uninstallHooks('claude_code', user());
const events = () => hookStatus({ home, env: {}, cwd: dir })[0]!.events.slice().sort();
const ALL = ['Stop', 'StopFailure', 'UserPromptSubmit'];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pw-hooks-edge-'));
  home = join(dir, 'home');
  mkdirSync(join(home, '.claude'), { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a settings file that is a symbolic link', () => {
  it('is written through: the file it points to changes, the link stays, uninstall gives it back', () => {
    const dotfiles = join(dir, 'dotfiles');
    mkdirSync(dotfiles);
    const target = join(dotfiles, 'claude-settings.json');
    const text = '{\n  "model": "opus"\n}\n';
    writeFileSync(target, text, { mode: 0o640 });
    // Two links: settings.json → a link in the dotfiles folder → the file.
    symlinkSync(target, join(dotfiles, 'current.json'));
    symlinkSync(join(dotfiles, 'current.json'), file());
    expect(install().result).toBe('installed');
    expect(lstatSync(file()).isSymbolicLink()).toBe(true);
    expect(readlinkSync(file())).toBe(join(dotfiles, 'current.json'));
    expect(lstatSync(join(dotfiles, 'current.json')).isSymbolicLink()).toBe(true);
    expect(lstatSync(target).isFile()).toBe(true);
    expect(statSync(target).mode & 0o777).toBe(0o640);
    expect(events()).toEqual(ALL);
    expect(JSON.parse(readFileSync(target, 'utf8'))).toMatchObject({ model: 'opus' });
    // No temporary file left beside the link or the file.
    expect(readdirSync(join(home, '.claude'))).toEqual(['settings.json']);
    expect(readdirSync(dotfiles).sort()).toEqual(['claude-settings.json', 'current.json']);
    expect(uninstall().result).toBe('removed');
    expect(lstatSync(file()).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe(text);
  });

  it('a link to a file that does not exist is refused, naming it, and nothing is created', () => {
    symlinkSync(join(dir, 'nowhere', 'settings.json'), file());
    expect(() => install()).toThrow(
      `${file()}: a symbolic link to ${join(dir, 'nowhere', 'settings.json')}, which does not exist; nothing was written`,
    );
    expect(lstatSync(file()).isSymbolicLink()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['home']);
  });
});

describe('a key given twice', () => {
  const GROUP = '[{ "hooks": [{ "type": "command", "command": "notify-send done" }] }]';
  for (const [name, text, says] of [
    [
      'two `hooks` at the top level',
      `{\n  "hooks": { "Stop": ${GROUP} },\n  "model": "opus",\n  "hooks": { "PreToolUse": ${GROUP} }\n}\n`,
      'the key "hooks" is given twice in the top level',
    ],
    [
      'an event twice in `hooks`',
      `{ "hooks": { "Stop": ${GROUP}, "Stop": [] } }`,
      'the key "Stop" is given twice in `hooks`',
    ],
    [
      'a key twice in a group',
      `{ "hooks": { "Stop": [{ "hooks": [], "hooks": [] }] } }`,
      'the key "hooks" is given twice in `hooks.Stop[0]`',
    ],
    [
      'a key twice in a hook',
      `{ "hooks": { "Stop": [{ "hooks": [{ "type": "command", "command": "a", "command": "b" }] }] } }`,
      'the key "command" is given twice in `hooks.Stop[0].hooks[0]`',
    ],
    [
      'another top-level key twice',
      '{ "model": "opus", "model": "sonnet" }',
      'the key "model" is given twice in the top level',
    ],
  ] as const) {
    it(`${name}: install and uninstall refuse it naming the file; nothing is written`, () => {
      writeFileSync(file(), text);
      for (const act of [install, uninstall]) {
        expect(act, name).toThrow(`${file()}: ${says}`);
        expect(readFileSync(file(), 'utf8')).toBe(text);
      }
    });
  }

  it('the command line says so and exits 2', async () => {
    const text = `{ "hooks": {}, "hooks": {} }`;
    writeFileSync(file(), text);
    const saved = process.env.CLAUDE_CONFIG_DIR;
    process.env.CLAUDE_CONFIG_DIR = join(home, '.claude');
    const err: string[] = [];
    const e = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((s: string) => (err.push(s), true)) as typeof process.stderr.write;
    try {
      expect(await main(['hooks', 'uninstall', 'claude_code'])).toBe(2);
    } finally {
      process.stderr.write = e;
      if (saved === undefined) delete process.env.CLAUDE_CONFIG_DIR;
      else process.env.CLAUDE_CONFIG_DIR = saved;
    }
    expect(err.join('')).toContain(`${file()}: the key "hooks" is given twice`);
  });

  it('a key twice inside another setting is not paneward’s to judge: it is left as it is', () => {
    const text = '{ "permissions": { "allow": [], "allow": ["Bash(ls)"] } }';
    writeFileSync(file(), text);
    install();
    expect(events()).toEqual(ALL);
    uninstall();
    expect(readFileSync(file(), 'utf8')).toBe(text);
  });
});

describe('uninstall gives back the exact bytes', () => {
  const USER_STOP = '{ "hooks": [{ "type": "command", "command": "notify-send done" }] }';
  const cases: Array<[string, string]> = [
    ['an empty event', '{\n  "hooks": {\n    "Stop": []\n  }\n}\n'],
    [
      'empty events beside full ones, spaced',
      `{\n  "hooks": {\n    "Stop": [ ],\n    "UserPromptSubmit": [\n    ],\n    "PreToolUse": [${USER_STOP}]\n  },\n  "env": {}\n}\n`,
    ],
    ['an empty `hooks`', '{\n  "model": "opus",\n  "hooks": {}\n}\n'],
    ['an empty `hooks`, spaced', '{\n  "hooks": {\n  },\n  "model": "opus"\n}\n'],
    ['one line', `{"hooks":{"Stop":[${USER_STOP}],"StopFailure":[]},"model":"opus"}`],
    ['an empty file', ''],
    ['an empty object', '{}'],
    ['CRLF lines', '{\r\n  "hooks": {\r\n    "Stop": []\r\n  }\r\n}\r\n'],
    ['tabs', '{\n\t"hooks": {\n\t\t"Stop": [\n\t\t\t' + USER_STOP + '\n\t\t]\n\t}\n}'],
  ];
  for (const [name, text] of cases) {
    it(name, () => {
      writeFileSync(file(), text);
      expect(install().result).toBe('installed');
      const once = readFileSync(file(), 'utf8');
      expect(() => JSON.parse(once) as unknown).not.toThrow();
      expect(events()).toEqual(ALL);
      // Twice is once; another URL replaces ours in place.
      expect(install().result).toBe('updated');
      expect(readFileSync(file(), 'utf8')).toBe(once);
      install('http://127.0.0.1:9999');
      expect(hookStatus({ home, env: {}, cwd: dir })[0]!.url).toBe('http://127.0.0.1:9999');
      expect(uninstall().result).toBe('removed');
      // An empty file comes back as the `{}` it meant.
      expect(readFileSync(file(), 'utf8')).toBe(text === '' ? '{}\n' : text);
      expect(uninstall().result).toBe('absent');
    });
  }

  it('any settings with hooks of the user’s, in any layout (property)', () => {
    const hook = fc.record({
      type: fc.constant('command'),
      command: fc.constantFrom('notify-send done', '~/bin/check.sh', 'echo "}]\\"{"'),
    });
    const group = fc.record(
      { matcher: fc.constantFrom('Bash', '*', ''), hooks: fc.array(hook, { maxLength: 2 }) },
      { requiredKeys: ['hooks'] },
    );
    const eventName = fc.constantFrom('Stop', 'UserPromptSubmit', 'StopFailure', 'PreToolUse');
    const hooks = fc.dictionary(eventName, fc.array(group, { maxLength: 2 }));
    const settings = fc.record(
      {
        model: fc.string({ maxLength: 5 }),
        hooks,
        env: fc.dictionary(fc.constantFrom('A', 'B'), fc.string({ maxLength: 3 })),
      },
      { requiredKeys: [] },
    );
    const layout = fc.constantFrom(0, 2, 4, '\t');
    fc.assert(
      fc.property(settings, layout, fc.boolean(), (value, indent, newline) => {
        const text = JSON.stringify(value, null, indent) + (newline ? '\n' : '');
        writeFileSync(file(), text);
        install();
        expect(events()).toEqual(ALL);
        const parsed = JSON.parse(readFileSync(file(), 'utf8')) as { hooks: unknown };
        // The user's groups are all there, ours after them.
        for (const [event, groups] of Object.entries(value.hooks ?? {})) {
          expect(
            (parsed.hooks as Record<string, unknown[]>)[event]!.slice(0, groups.length),
          ).toEqual(groups);
        }
        uninstall();
        expect(readFileSync(file(), 'utf8')).toBe(text);
      }),
      { numRuns: 150 },
    );
  });
});
