import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram, COMMAND_SUMMARIES, main } from '../../src/cli/main.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/paneward.js');

describe('the command list', () => {
  it('the top-level help lists every command exactly as its module declares it', async () => {
    const program = await buildProgram();
    const help = program.createHelp();
    const registered = program.commands.map((c) => [help.subcommandTerm(c), c.description()]);
    expect(COMMAND_SUMMARIES.map(([t, d]) => [t, d])).toEqual(registered);
  });

  it('--version prints the version in package.json', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const run = await execa(process.execPath, [BIN, '--version']);
    expect(run.stdout).toBe(pkg.version);
    const out: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((s: string) => (out.push(s), true)) as typeof process.stdout.write;
    try {
      expect(await main(['-V'])).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    expect(out.join('')).toBe(`${pkg.version}\n`);
  });
});

describe('bin/paneward.js: the build or the sources', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paneward-bin-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // A package of the same shape whose two entry points say which one ran.
  mkdirSync(join(dir, 'bin'));
  cpSync(BIN, join(dir, 'bin/paneward.js'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  // A checkout: the build's config is there (an installed package has none).
  writeFileSync(join(dir, 'tsconfig.build.json'), '{}');
  mkdirSync(join(dir, 'dist/src/cli'), { recursive: true });
  mkdirSync(join(dir, 'src/cli/deep'), { recursive: true });
  mkdirSync(join(dir, 'machines'));
  const entry = (from: string) =>
    `export async function main() { process.stdout.write('${from}'); return 0; }\n`;
  writeFileSync(join(dir, 'dist/src/cli/main.js'), entry('dist'));
  writeFileSync(join(dir, 'src/cli/main.ts'), entry('src'));
  writeFileSync(join(dir, 'src/cli/deep/other.ts'), 'export {};\n');
  writeFileSync(join(dir, 'machines/chart.ts'), 'export {};\n');
  const at = (path: string, seconds: number) => utimesSync(join(dir, path), seconds, seconds);
  const run = async (env: Record<string, string> = {}) =>
    (await execa(process.execPath, [join(dir, 'bin/paneward.js')], { env })).stdout;

  it('runs the sources when there is no build, saying so and why on stderr first', async () => {
    const r = await execa(process.execPath, [join(dir, 'bin/paneward.js')]);
    expect(r.stdout).toBe('src');
    expect(r.stderr).toMatch(
      /^paneward: there is no build \(dist\/\.built is missing\): running the TypeScript sources through tsx/,
    );
  });

  it('runs the build when its stamp is as new as every source (also when all dates are equal, as npm packs them)', async () => {
    writeFileSync(join(dir, 'dist/.built'), 'now\n');
    for (const p of [
      'dist/.built',
      'src/cli/main.ts',
      'src/cli/deep/other.ts',
      'machines/chart.ts',
    ]) {
      at(p, 499_162_860);
    }
    expect(await run()).toBe('dist');
    at('dist/.built', 1_700_000_000);
    expect(await run()).toBe('dist');
    expect(await run({ PANEWARD_FROM_SOURCE: '1' })).toBe('src');
  });

  it('runs the sources when any source, however deep, or any chart is newer than the build', async () => {
    at('dist/.built', 1_700_000_000);
    at('src/cli/deep/other.ts', 1_700_000_001);
    const r = await execa(process.execPath, [join(dir, 'bin/paneward.js')]);
    expect(r.stdout).toBe('src');
    expect(r.stderr).toMatch(
      /^paneward: src\/cli\/deep\/other\.ts is newer than the build in dist\//,
    );
    at('src/cli/deep/other.ts', 1_600_000_000);
    at('machines/chart.ts', 1_700_000_001);
    expect(await run()).toBe('src');
    at('machines/chart.ts', 1_600_000_000);
    expect(await run()).toBe('dist');
    // Installed by npm, which dates each file by when it extracted it (sources after dist/): no
    // build config, so the build it was packed with runs whatever the dates say.
    at('src/cli/deep/other.ts', 1_700_000_001);
    rmSync(join(dir, 'tsconfig.build.json'));
    const quiet = await execa(process.execPath, [join(dir, 'bin/paneward.js')]);
    expect([quiet.stdout, quiet.stderr]).toEqual(['dist', '']);
  });
});

describe('bin/paneward.js: the first line comes at once', () => {
  it('from the real sources with a cold tsx cache, the line saying why arrives on stderr within 2 s', async () => {
    // A fresh temporary folder: tsx keeps its compiled files under it, so nothing is compiled yet.
    const tmp = mkdtempSync(join(tmpdir(), 'paneward-cold-'));
    try {
      const started = performance.now();
      const child = execa(process.execPath, [BIN, '--version'], {
        env: { PANEWARD_FROM_SOURCE: '1', TMPDIR: tmp },
        reject: false,
      });
      const firstLine = await new Promise<{ line: string; ms: number }>((resolve, reject) => {
        let err = '';
        child.stderr.on('data', (b: Buffer) => {
          err += b.toString('utf8');
          if (err.includes('\n'))
            resolve({ line: err.split('\n')[0]!, ms: performance.now() - started });
        });
        child.on('exit', () => reject(new Error(`exited with no line on stderr: ${err}`)));
      });
      expect(firstLine.line).toMatch(
        /^paneward: PANEWARD_FROM_SOURCE=1 is set: running the TypeScript sources through tsx/,
      );
      expect(firstLine.ms).toBeLessThan(2000);
      const done = await child;
      expect(done.stdout).toMatch(/^\d+\.\d+\.\d+/);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
