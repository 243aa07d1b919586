/**
 * paneward as a user gets it: `npm pack` of this checkout (once per run), installed globally into
 * a scratch prefix with a fresh HOME, and into two fresh `npm init -y` projects (CommonJS, and
 * `"type": "module"`). From folders that are not the checkout: the installed `paneward --version`,
 * `paneward mcp` driven by the MCP SDK client over a real tmux server, and the README's library
 * snippet, copied out of README.md, run as it is against a real tmux pane. Needs the npm registry
 * for the dependencies (npm's cache makes it quicker); skipped, saying so, when npm cannot reach
 * it, unless CI=1.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueSocketName } from '../e2e/harness/session.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const SCRATCH = resolve('.tmp/install-packed', String(process.pid));
const HOME = join(SCRATCH, 'home');
const PREFIX = join(SCRATCH, 'prefix');
const ELSEWHERE = join(SCRATCH, 'elsewhere');
const MINUTES = 60_000;
/** Two fresh `npm init -y` projects: what npm makes (CommonJS), and one set to ES modules. */
const PROJECTS = [
  { label: 'CommonJS (npm init -y)', dir: join(SCRATCH, 'project-commonjs'), type: null },
  { label: '"type": "module"', dir: join(SCRATCH, 'project-module'), type: 'module' },
];

/** npm's own settings as this user has them: the cache (for speed) and the registry. */
function npmConfig(key: string): string {
  return execFileSync('npm', ['config', 'get', key], { encoding: 'utf8' }).trim();
}

/** Why the registry cannot be used (null when `npm ping` answers). */
function whyNoRegistry(): string | null {
  try {
    execFileSync('npm', ['ping'], { stdio: 'pipe', timeout: 60_000 });
    return null;
  } catch (error) {
    const e = error as { stderr?: Buffer; message: string };
    const said = e.stderr?.toString('utf8').trim().split('\n').at(-1) ?? e.message;
    return `npm cannot reach a registry (npm ping: ${said})`;
  }
}

const noRegistry = whyNoRegistry();
if (noRegistry && process.env.CI === '1') throw new Error(noRegistry);

/** The environment every npm and paneward process here gets: nothing of the user's HOME. */
const ENV = {
  HOME,
  XDG_STATE_HOME: join(HOME, '.local/state'),
  XDG_CONFIG_HOME: join(HOME, '.config'),
  XDG_DATA_HOME: join(HOME, '.local/share'),
  XDG_CACHE_HOME: join(HOME, '.cache'),
  npm_config_cache: npmConfig('cache'),
  npm_config_registry: npmConfig('registry'),
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};
const npm = (args: string[], cwd: string) =>
  execa('npm', [...args, '--prefer-offline'], { cwd, env: ENV });

/** The newest modification time of the `.ts` files under `dir`: the rule bin/paneward.js uses. */
function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (e.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Makes a tarball of this checkout; `prepare` builds dist/ first unless the build is current. */
async function pack(into: string): Promise<string> {
  const stamp = join(ROOT, 'dist/.built');
  const current =
    existsSync(stamp) &&
    Math.max(newestSource(join(ROOT, 'src')), newestSource(join(ROOT, 'machines'))) <=
      statSync(stamp).mtimeMs;
  const r = await execa(
    'npm',
    ['pack', '--json', '--pack-destination', into, ...(current ? ['--ignore-scripts'] : [])],
    { cwd: ROOT },
  );
  const { filename, files } = (
    JSON.parse(r.stdout) as Array<{
      filename: string;
      files: Array<{ path: string; mode: number }>;
    }>
  )[0]!;
  const paths = files.map((f) => f.path);
  // What the installed command and `import 'paneward'` load, and the stamp that says it is current.
  expect(paths).toEqual(
    expect.arrayContaining(['bin/paneward.js', 'dist/.built', 'dist/src/index.js']),
  );
  expect(paths.filter((p) => /^(test|node_modules|\.tmp)\//.test(p))).toEqual([]);
  expect(files.find((f) => f.path === 'bin/paneward.js')!.mode & 0o111).not.toBe(0);
  return join(into, filename);
}

/** Every file and folder under `dir` whose path names paneward. */
function panewardPaths(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((p) => /paneward/i.test(p));
}

/** The README's fenced js block in its section "Installing into another project". */
function readmeSnippet(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme
    .split(/^## /m)
    .find((s) => s.startsWith('Installing into another project'));
  const blocks = [...(section ?? '').matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  expect(blocks).toHaveLength(1);
  return blocks[0]!;
}

describe.skipIf(noRegistry !== null)(
  `paneward packed and installed${noRegistry ? ` (skipped: ${noRegistry})` : ''}`,
  () => {
    const socketName = uniqueSocketName('pw-install');
    let tarball = '';
    const timings: Record<string, number> = {};
    const timed = async <T>(label: string, work: Promise<T>): Promise<T> => {
      const t0 = performance.now();
      try {
        return await work;
      } finally {
        timings[label] = Math.round(performance.now() - t0);
      }
    };

    beforeAll(async () => {
      rmSync(SCRATCH, { recursive: true, force: true });
      for (const d of [HOME, PREFIX, ELSEWHERE]) mkdirSync(d, { recursive: true });
      tarball = await timed('pack', pack(SCRATCH));
      // The three installs at once: npm's cache serves what one of them fetched first.
      await Promise.all([
        timed('install -g', npm(['install', '-g', '--prefix', PREFIX, tarball], ELSEWHERE)),
        ...PROJECTS.map(async ({ dir, type }) => {
          mkdirSync(dir, { recursive: true });
          await npm(['init', '-y'], dir);
          if (type) await npm(['pkg', 'set', `type=${type}`], dir);
          await timed(`install in ${type ?? 'commonjs'} project`, npm(['install', tarball], dir));
        }),
      ]);
    }, 20 * MINUTES);

    afterAll(async () => {
      await execa('tmux', ['-L', socketName, 'kill-server'], { reject: false });
      rmSync(SCRATCH, { recursive: true, force: true });
      console.log(`install-packed timings (ms): ${JSON.stringify(timings)}`);
    }, 5 * MINUTES);

    it(
      'the installed paneward runs its build from any folder',
      async () => {
        const r = await execa(join(PREFIX, 'bin/paneward'), ['--version'], {
          cwd: ELSEWHERE,
          env: ENV,
        });
        // Nothing on stderr: the build ran, not the sources through tsx.
        expect([r.stdout, r.stderr]).toEqual([PKG.version, '']);
        // Runtime dependencies only: no compiler, test runner or linter came along.
        const deps = readdirSync(join(PREFIX, 'lib/node_modules/paneward/node_modules'));
        expect(deps).toEqual(expect.arrayContaining(['execa', 'xstate', 'zod']));
        expect(
          deps.filter((d) => ['typescript', 'vitest', 'eslint', 'prettier'].includes(d)),
        ).toEqual([]);
      },
      MINUTES,
    );

    it(
      'the installed `paneward mcp`, started by the MCP SDK client elsewhere, lists its tools and reads a real tmux server',
      async () => {
        // A pane playing a real Claude Code recording under the CLI's process name, with the player
        // and recording of the installed package.
        const installed = join(PREFIX, 'lib/node_modules/paneward');
        const bin = join(SCRATCH, 'player-bin');
        mkdirSync(bin, { recursive: true });
        symlinkSync(process.execPath, join(bin, 'claude'));
        await execa('tmux', [
          ...['-L', socketName, '-f', '/dev/null', 'new-session', '-d', '-s', 'rec'],
          ...['-x', '160', '-y', '45', '--', join(bin, 'claude')],
          join(installed, 'src/tooling/demo/player.mjs'),
          join(installed, 'recordings/claude_code/normal-turn.jsonl'),
          '6',
        ]);
        const transport = new StdioClientTransport({
          command: join(PREFIX, 'bin/paneward'),
          args: ['mcp', '-L', socketName],
          cwd: ELSEWHERE,
          env: { ...ENV, PATH: process.env.PATH ?? '/usr/bin:/bin' },
          stderr: 'pipe',
        });
        let stderr = '';
        transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
        const client = new Client({ name: 'install-test', version: '0' });
        await client.connect(transport);
        try {
          const { tools } = await client.listTools();
          expect(tools.map((t) => t.name)).toEqual(
            expect.arrayContaining(['list_terminals', 'terminal_state', 'send_prompt']),
          );
          type Listed = { terminals: Array<{ terminalId: string; target: string; tool: string }> };
          let found: Listed['terminals'][number] | undefined;
          const deadline = Date.now() + 30_000;
          while (!found) {
            if (Date.now() > deadline) throw new Error(`nothing discovered; stderr: ${stderr}`);
            const r = await client.callTool({ name: 'list_terminals', arguments: {} });
            found = (r.structuredContent as Listed).terminals.find((t) => t.tool === 'claude_code');
            if (!found) await new Promise((r) => setTimeout(r, 300));
          }
          expect(found.target).toMatch(/^%\d+$/);
        } finally {
          await client.close();
        }
        expect(stderr).toContain('paneward mcp: serving');
        expect(stderr).not.toMatch(/running the TypeScript sources/);
      },
      2 * MINUTES,
    );

    describe.each(PROJECTS)('the README snippet in a fresh project, $label', ({ dir, type }) => {
      const project = dir;

      it(
        'runs as written against a real tmux pane, prints what it read, and leaves nothing behind',
        async () => {
          const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
            type?: string;
          };
          expect(manifest.type ?? 'commonjs').toBe(type ?? 'commonjs');
          // The snippet names the tmux server `agents`; these tests use a private one.
          const snippet = readmeSnippet();
          expect(snippet.split("socketName: 'agents'")).toHaveLength(2);
          writeFileSync(
            join(project, 'agents.js'),
            snippet.replace("socketName: 'agents'", `socketName: '${socketName}'`),
          );
          // Its target is `work:0.0`: a shell there, which paneward knows is no agent.
          await execa('tmux', ['-L', socketName, 'kill-session', '-t', 'work'], { reject: false });
          await execa('tmux', [
            ...['-L', socketName, '-f', '/dev/null', 'new-session', '-d', '-s', 'work'],
            ...['-x', '120', '-y', '30', '--', 'sh'],
          ]);
          const r = await execa(process.execPath, ['agents.js'], {
            cwd: project,
            env: ENV,
            reject: false,
            timeout: MINUTES,
          });
          expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, 't1 unsupported failed', '']);
          // No data dir, journal or state of paneward under HOME or the XDG folders.
          expect(panewardPaths(HOME)).toEqual([]);
        },
        2 * MINUTES,
      );

      it.runIf(type === null)('require("paneward") works too', async () => {
        const r = await execa(
          process.execPath,
          ['-e', "console.log(typeof require('paneward').createSupervisor)"],
          { cwd: project, env: ENV },
        );
        expect(r.stdout).toBe('function');
      });
    });
  },
);
