import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  mkdirSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import {
  claudeSettingsFile,
  hookStatus,
  installHooks,
  uninstallHooks,
} from '../../src/hooks/install.js';
import { prepareClaudeCode } from '../../src/tooling/agents/claude_code.js';

let dir: string;
let home: string;
const URL_ = 'http://127.0.0.1:7420';
const user = () => ({ scope: 'user' as const, home, env: {} });
const file = () => claudeSettingsFile(user());
const install = (over: Partial<Parameters<typeof installHooks>[1]> = {}) =>
  installHooks('claude_code', {
    url: URL_,
    ...user(),
    node: '/usr/bin/node',
    script: '/opt/paneward/bin/paneward-hook.js',
    ...over,
  });

/** A user's settings as people write them: their own hooks on the same events, other keys. */
const USERS = `{
  "permissions": {
    "allow": ["Bash(npm run lint)"],
    "defaultMode": "default"
  },
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "~/bin/check-bash.sh"
          }
        ]
      }
    ]
  },
  "env": {
    "FOO": "bar"
  }
}
`;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pw-hooks-'));
  home = join(dir, 'home');
  mkdirSync(join(home, '.claude'), { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('paneward hooks install/uninstall on Claude Code settings', () => {
  it('into the settings file the CLI itself starts with: hooks added, removed to the same bytes', () => {
    prepareClaudeCode({ home, cwd: join(dir, 'work'), baseUrl: URL_ });
    const before = readFileSync(file(), 'utf8');
    expect(install().result).toBe('installed');
    const s = JSON.parse(readFileSync(file(), 'utf8')) as {
      permissions: unknown;
      hooks: Record<string, Array<{ hooks: Array<{ command: string; timeout: number }> }>>;
    };
    expect(s.permissions).toEqual({ defaultMode: 'default' });
    expect(Object.keys(s.hooks)).toEqual(['UserPromptSubmit', 'Stop', 'StopFailure']);
    const cmd = s.hooks.Stop![0]!.hooks[0]!;
    expect(cmd.command).toBe(
      `'/usr/bin/node' '/opt/paneward/bin/paneward-hook.js' claude_code --url '${URL_}'`,
    );
    expect(cmd.timeout).toBe(5);
    expect(uninstallHooks('claude_code', user()).result).toBe('removed');
    expect(readFileSync(file(), 'utf8')).toBe(before);
  });

  it("keeps the user's own hooks and everything else; twice is once; uninstall gives the file back", () => {
    writeFileSync(file(), USERS);
    install();
    const once = readFileSync(file(), 'utf8');
    const s = JSON.parse(once) as { hooks: Record<string, Array<{ hooks: unknown[] }>> };
    expect(s.hooks.Stop).toHaveLength(2);
    expect(s.hooks.Stop![0]).toEqual({
      hooks: [{ type: 'command', command: 'notify-send done' }],
    });
    expect(s.hooks.PreToolUse).toHaveLength(1);
    expect(once.startsWith(USERS.slice(0, USERS.indexOf('"Stop"')))).toBe(true);
    expect(install().result).toBe('updated');
    expect(readFileSync(file(), 'utf8')).toBe(once);
    uninstallHooks('claude_code', user());
    expect(readFileSync(file(), 'utf8')).toBe(USERS);
    expect(uninstallHooks('claude_code', user()).result).toBe('absent');
    expect(readFileSync(file(), 'utf8')).toBe(USERS);
  });

  it('a new URL replaces the hook in place, never a second copy', () => {
    writeFileSync(file(), USERS);
    install();
    install({ url: 'http://127.0.0.1:9999', tokenFile: '/etc/paneward/token' });
    const s = JSON.parse(readFileSync(file(), 'utf8')) as {
      hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>>;
    };
    const ours = Object.values(s.hooks)
      .flat()
      .flatMap((g) => g.hooks)
      .filter((h) => h.command.includes('paneward-hook.js'));
    expect(ours).toHaveLength(3);
    for (const h of ours) {
      expect(h.command).toContain("--url 'http://127.0.0.1:9999'");
      expect(h.command).toContain("--token-file '/etc/paneward/token'");
    }
    expect(hookStatus({ home, env: {}, cwd: dir })[0]).toMatchObject({
      scope: 'user',
      events: ['Stop', 'UserPromptSubmit', 'StopFailure'],
      url: 'http://127.0.0.1:9999',
    });
  });

  it('keeps the indentation (four spaces, tabs) and the file mode; leaves no temporary file', () => {
    for (const indent of ['    ', '\t']) {
      const text = JSON.stringify(JSON.parse(USERS), null, indent);
      writeFileSync(file(), text, { mode: 0o600 });
      install();
      expect(readFileSync(file(), 'utf8')).toContain(`\n${indent}"hooks": {`);
      expect(statSync(file()).mode & 0o777).toBe(0o600);
      uninstallHooks('claude_code', user());
      expect(readFileSync(file(), 'utf8')).toBe(text);
    }
    expect(readdirSync(join(home, '.claude'))).toEqual(['settings.json']);
  });

  it('a file in its own layout (one line, arrays inline) keeps every byte outside `hooks`', () => {
    const text = '{"permissions":{"allow":["Bash(ls)"]},"model":"opus"}';
    writeFileSync(file(), text);
    install();
    const after = readFileSync(file(), 'utf8');
    expect(after.startsWith('{"permissions":{"allow":["Bash(ls)"]},"model":"opus",')).toBe(true);
    uninstallHooks('claude_code', user());
    expect(readFileSync(file(), 'utf8')).toBe(text);
  });

  it('a malformed settings file is a clear error naming it, and nothing is written', () => {
    for (const [text, says] of [
      ['{ "hooks": { ', 'not valid JSON'],
      ['[1, 2]', 'must be a JSON object'],
      ['{ "hooks": [] }', 'field `hooks` must be an object'],
      ['{ "hooks": { "Stop": {} } }', 'field `hooks.Stop` must be an array'],
    ] as const) {
      writeFileSync(file(), text);
      for (const act of [() => install(), () => uninstallHooks('claude_code', user())]) {
        expect(act, text).toThrow(file());
        expect(act, text).toThrow(says);
        expect(readFileSync(file(), 'utf8')).toBe(text);
      }
    }
    expect(readdirSync(join(home, '.claude'))).toEqual(['settings.json']);
  });

  it('project and local scopes write the project folder’s files; an unknown tool is refused', () => {
    const cwd = join(dir, 'proj');
    installHooks('claude_code', { url: URL_, scope: 'project', cwd, env: {} });
    installHooks('claude_code', { url: URL_, scope: 'local', cwd, env: {} });
    expect(readdirSync(join(cwd, '.claude')).sort()).toEqual([
      'settings.json',
      'settings.local.json',
    ]);
    expect(() => installHooks('codex', { url: URL_, ...user() })).toThrow('`tool`');
  });
});

describe('paneward hooks (the command line)', () => {
  const saved = process.env.CLAUDE_CONFIG_DIR;
  const out: string[] = [];
  const err: string[] = [];
  let restore: () => void;
  beforeEach(() => {
    process.env.CLAUDE_CONFIG_DIR = join(home, '.claude');
    out.length = 0;
    err.length = 0;
    const o = process.stdout.write.bind(process.stdout);
    const e = process.stderr.write.bind(process.stderr);
    process.stdout.write = ((s: string) => (out.push(s), true)) as typeof process.stdout.write;
    process.stderr.write = ((s: string) => (err.push(s), true)) as typeof process.stderr.write;
    restore = () => {
      process.stdout.write = o;
      process.stderr.write = e;
    };
  });
  afterEach(() => {
    restore();
    if (saved === undefined) delete process.env.CLAUDE_CONFIG_DIR;
    else process.env.CLAUDE_CONFIG_DIR = saved;
  });

  it('install, status, uninstall; a bad option or a malformed file exits 2 naming it', async () => {
    expect(await main(['hooks', 'install', 'claude_code', '--url', 'http://127.0.0.1:7777'])).toBe(
      0,
    );
    expect(out.join('')).toContain(`claude_code: installed (${file()})`);
    expect(await main(['hooks', 'status', '--json'])).toBe(0);
    const rows = JSON.parse(out.at(-1)!) as Array<{ scope: string; url: string | null }>;
    expect(rows.find((r) => r.scope === 'user')!.url).toBe('http://127.0.0.1:7777');
    expect(await main(['hooks', 'uninstall', 'claude_code'])).toBe(0);
    expect(out.join('')).toContain('claude_code: removed');
    expect(await main(['hooks', 'install', 'claude_code', '--scope', 'everywhere'])).toBe(2);
    expect(err.join('')).toContain('--scope');
    expect(await main(['hooks', 'install', 'claude_code', '--url', 'ftp://x'])).toBe(2);
    expect(err.join('')).toContain('--url');
    writeFileSync(file(), '{ nope');
    expect(await main(['hooks', 'install', 'claude_code'])).toBe(2);
    expect(err.join('')).toContain(file());
    expect(readFileSync(file(), 'utf8')).toBe('{ nope');
  });
});

describe('paneward hooks install/uninstall cline (its hooks folder)', () => {
  const env = () => ({ CLINE_DIR: join(home, '.cline') });
  const dir = () => join(home, '.cline', 'hooks');
  const opts = () => ({
    url: URL_,
    scope: 'user' as const,
    home,
    env: env(),
    node: '/usr/bin/node',
    script: '/opt/paneward/bin/paneward-hook.js',
  });

  it('one executable script per event, beside the user’s own hooks; twice is once; uninstall takes out only ours', () => {
    mkdirSync(dir(), { recursive: true });
    writeFileSync(join(dir(), 'TaskComplete'), '#!/bin/sh\nnotify-send done\n', { mode: 0o755 });
    expect(installHooks('cline', opts()).result).toBe('installed');
    const names = readdirSync(dir()).sort();
    expect(names).toEqual([
      'TaskCancel.sh',
      'TaskComplete',
      'TaskComplete.sh',
      'TaskError.sh',
      'TaskStart.sh',
    ]);
    const script = readFileSync(join(dir(), 'TaskStart.sh'), 'utf8');
    expect(script).toBe(
      "#!/bin/sh\n# paneward hook: `paneward hooks uninstall cline` removes this file\nexec '/usr/bin/node' '/opt/paneward/bin/paneward-hook.js' cline --url 'http://127.0.0.1:7420'\n",
    );
    expect(statSync(join(dir(), 'TaskStart.sh')).mode & 0o777).toBe(0o755);
    expect(installHooks('cline', opts()).result).toBe('updated');
    expect(readdirSync(dir()).sort()).toEqual(names);
    expect(hookStatus({ home, env: env(), cwd: dir() }).at(-1)).toMatchObject({
      tool: 'cline',
      events: ['TaskStart', 'TaskComplete', 'TaskError', 'TaskCancel'],
      url: URL_,
    });
    expect(uninstallHooks('cline', { scope: 'user', home, env: env() }).result).toBe('removed');
    expect(readdirSync(dir())).toEqual(['TaskComplete']);
  });

  it('a file of the user’s with the same name is refused, naming it, and nothing is written', () => {
    mkdirSync(dir(), { recursive: true });
    writeFileSync(join(dir(), 'TaskError.sh'), '#!/bin/sh\nmine\n');
    expect(() => installHooks('cline', opts())).toThrow(join(dir(), 'TaskError.sh'));
    expect(readdirSync(dir())).toEqual(['TaskError.sh']);
    expect(() => installHooks('cline', { ...opts(), scope: 'project' })).toThrow('`scope`');
  });
});
