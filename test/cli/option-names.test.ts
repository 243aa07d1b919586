/**
 * Every option an error or a hint names is one the command line has. The strings of the
 * service's, the command line's, the MCP server's and the dashboard's code are read (string and
 * template literals, found with the TypeScript parser); each `--option` a sentence in them names
 * must be an option of some `paneward` command. Argument lists for other programs (a lone
 * `'--porcelain'` for git) and the options' own definitions are not sentences, and are left out.
 * And a field the server names in an error reaches the person at the command line as the option
 * or argument of the command they typed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join, relative } from 'node:path';
import type { Command } from 'commander';
import ts from 'typescript';
import { describe, expect, it, vi } from 'vitest';
import { buildProgram, main } from '../../src/cli/main.js';
import { createSupervisor } from '../../src/index.js';
import { createHttpApp } from '../../src/server/app.js';
import { uniqueSocketName } from '../e2e/harness/session.js';
import { cliMessage, fieldNamesOf } from '../../src/cli/messages.js';

const SRC = join(import.meta.dirname, '../../src');
/** What speaks of other programs' options (the agent CLIs' launch recipes and set-up). */
const OTHER_PROGRAMS = [/^profiles\//, /^tooling\//];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return files(path);
    return /\.(ts|js|mjs)$/.test(e.name) ? [path] : [];
  });
}

/** An option's definition (`.option('--x <v>', …)`), not a sentence naming it. */
function isDefinition(node: ts.Node): boolean {
  const call = node.parent;
  if (!call || !ts.isCallExpression(call) || call.arguments[0] !== node) return false;
  const callee = call.expression;
  const name = ts.isPropertyAccessExpression(callee)
    ? callee.name.text
    : ts.isIdentifier(callee)
      ? callee.text
      : '';
  return (
    /^(option|requiredOption|addOption|Option|createOption)$/.test(name) || ts.isNewExpression(call)
  );
}

/** Every `--option` named in a sentence of a string or template literal, with where it is. */
function namedOptions(path: string): Array<{ option: string; where: string }> {
  const text = readFileSync(path, 'utf8');
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const out: Array<{ option: string; where: string }> = [];
  const visit = (node: ts.Node) => {
    let literal: string | null = null;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) literal = node.text;
    else if (ts.isTemplateExpression(node)) {
      literal = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(' ');
    }
    // A lone option is an argument for some program (git, tmux, an agent CLI), not a sentence.
    if (literal !== null && !/^--[\w-]+(=.*)?$/.test(literal) && !isDefinition(node)) {
      for (const m of literal.matchAll(/(?<![\w-])--([a-z][a-z0-9-]*)/g)) {
        const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        out.push({ option: `--${m[1]}`, where: `src/${relative(SRC, path)}:${line}` });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function optionsOf(cmd: Command, into = new Set<string>()): Set<string> {
  for (const o of cmd.options) {
    if (o.long) into.add(o.long);
    // `--no-x` also accepts `--x` when both are defined; commander defines `--no-x` alone.
  }
  for (const sub of cmd.commands) optionsOf(sub, into);
  return into;
}

describe('option names in errors and hints', () => {
  it('name options the command line has', async () => {
    const program = await buildProgram();
    const real = optionsOf(program);
    real.add('--help').add('--version');
    const named = files(SRC)
      .filter((f) => !OTHER_PROGRAMS.some((re) => re.test(relative(SRC, f))))
      .flatMap(namedOptions);
    expect(named.length).toBeGreaterThan(50);
    const unknown = named.filter((n) => !real.has(n.option));
    expect(unknown).toEqual([]);
  }, 120_000);

  it("say a spawn's fields as `spawn`'s own arguments and options", async () => {
    const program = await buildProgram();
    const spawn = program.commands.find((c) => c.name() === 'spawn')!;
    const names = fieldNamesOf(spawn);
    expect(cliMessage('spawn: field `tool`: codex (codex) was not found on PATH', names)).toBe(
      'spawn: <tool>: codex (codex) was not found on PATH',
    );
    expect(cliMessage('spawn: field `id`: terminal x already exists', names)).toBe(
      'spawn: --id: terminal x already exists',
    );
    expect(cliMessage('spawn: field `env.PATH`: must not be empty', names)).toBe(
      'spawn: --env: must not be empty',
    );
    const watch = fieldNamesOf(program.commands.find((c) => c.name() === 'watch')!);
    expect(cliMessage('attach: field `config.staleActiveSeconds`: too short', watch)).toBe(
      '--stale-active: too short',
    );
    const attach = fieldNamesOf(program.commands.find((c) => c.name() === 'attach')!);
    expect(cliMessage('attach: field `id`: terminal t1 already exists', attach)).toBe(
      '--id: terminal t1 already exists',
    );
  });
});

describe('a spawn refused by the server', () => {
  it('names what `paneward spawn` was given: `<tool>` and its options, never `--tool`', async () => {
    // Refused before any tmux is asked: no tmux server runs on this socket.
    const sup = createSupervisor({ socketName: uniqueSocketName('pw-optnames'), dataDir: null });
    const http = createHttpApp(sup);
    const server = createServer(http.listener);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const cli = async (...argv: string[]) => {
      let err = '';
      const e = vi
        .spyOn(process.stderr, 'write')
        .mockImplementation((c) => ((err += String(c)), true));
      const o = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
      try {
        return { code: await main(argv), err };
      } finally {
        e.mockRestore();
        o.mockRestore();
      }
    };
    try {
      const missing = await cli('spawn', 'codex', '--env', 'PATH=/nonexistent', '--url', url);
      expect(missing.code).toBe(2);
      expect(missing.err).toMatch(
        /^paneward: spawn: <tool>: codex \(codex\) was not found on PATH/,
      );
      const nowhere = await cli('spawn', 'codex', '--cwd', '/nonexistent/dir', '--url', url);
      expect(nowhere.err).toMatch(/--cwd: no folder/);
    } finally {
      server.close();
      http.close();
      await sup.stop();
    }
  }, 60_000);
});
