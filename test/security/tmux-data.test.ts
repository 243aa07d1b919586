/**
 * No string a client gives reaches tmux as a command or a format: generated spawns over an
 * adversarial alphabet (`;` and `\;` at ends, `#(`, `#{`, `#[`, `%`, quotes, backslashes, line
 * breaks, tabs, long and non-ASCII text), through the HTTP API and the MCP server, start a CLI on
 * a real tmux that receives exactly the argv, folder and environment given, in a window and
 * session named exactly as given, with a journal record of exactly what ran; or they are refused
 * naming the field, with nothing created. A canary command in the text never runs.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { execa } from 'execa';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnRequest } from '../../src/cli/spawn.js';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { embeddedBackend } from '../../src/mcp/backend.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { MAX_COMMAND_TEXT_BYTES } from '../../src/schemas/spawn.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import { uniqueSocketName } from '../e2e/harness/session.js';
import { makeStandInClaude, readSeen } from './internal/stand-in-claude.js';

const RUNS = Number(process.env.PANEWARD_TMUX_DATA_RUNS ?? 12);
const ROOT = mkdtempSync('/tmp/pw-data-');
const CANARY = join(ROOT, 'canary');
const BIN = resolve('bin/paneward.js');

/** Pieces the generated text is made of: each one something tmux or a shell could act on. */
const PIECES = [
  ';',
  '\\;',
  '\\',
  '\\\\;',
  `#(touch ${CANARY})`,
  '#{pid}',
  '#{session_name}',
  '#[fg=red]',
  '##',
  '#',
  '%',
  '%1',
  '%%',
  '"',
  "'",
  '`touch x`',
  `$(touch ${CANARY})`,
  '$HOME',
  '~',
  '{',
  '}',
  ' ',
  '\n',
  '\t',
  '\r',
  'é',
  '日本',
  '❯',
  '-',
  '--',
  '-t',
  'run-shell',
  `touch ${CANARY}`,
  'kill-server',
  'a',
  'Z9',
];
const text = (maxLength: number) =>
  fc
    .array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 3 })), {
      minLength: 1,
      maxLength,
    })
    .map((parts) => parts.join(''));
/** Names as users write them, with the pieces around: most are valid, some are refused. */
const name = text(6).map((s) => s.slice(0, 64));
/** Text that a folder's name can hold (no `/`, no NUL), non-empty. */
const folderName = text(5).map((s) => s.replaceAll('/', '_').replaceAll('\0', '_').slice(0, 80));

const spawnCase = fc.record({
  args: fc.array(text(8), { maxLength: 5 }),
  envValues: fc.array(text(6), { maxLength: 3 }),
  name,
  session: name,
  folder: folderName,
  long: fc.boolean(),
});
type SpawnCase = typeof spawnCase extends fc.Arbitrary<infer T> ? T : never;

/** The attacks as they were reported, each of which must start exactly what it says. */
const REPORTED: SpawnCase[] = [
  {
    args: ['hi;', 'run-shell', `touch ${CANARY}`],
    envValues: ['1;', `#(touch ${CANARY})`],
    name: `m#(touch ${CANARY})#{pid};`,
    session: `s#{pid}#[fg=red]; kill-server;`,
    folder: `m#(touch ${CANARY}); kill-server;`,
    long: false,
  },
  {
    args: ['\\;', ';', '\\', '#{pid}', 'x'.repeat(8000)],
    envValues: [';'],
    name: 'w;',
    session: 'paneward-data',
    folder: '#{pane_id}',
    long: false,
  },
];

describe('strings reach tmux as data', () => {
  const socketName = uniqueSocketName('pw-data');
  let sup: Supervisor;
  let http: HttpApp;
  let mcp: Client;
  let bin: string;
  let n = 0;
  const tmux = (...args: string[]) => execa('tmux', ['-L', socketName, ...args]);

  beforeAll(async () => {
    bin = makeStandInClaude(ROOT);
    await tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'base', '/bin/sleep', '100000');
    sup = createSupervisor({
      socketName,
      dataDir: join(ROOT, 'data'),
      config: { pollIntervalSeconds: 0.1 },
    });
    http = createHttpApp(sup);
    const server = createMcpServer(embeddedBackend(sup, 'test'), '0.0.0-test', {
      progressMs: 500,
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    mcp = new Client({ name: 'paneward-test', version: '0' });
    await Promise.all([server.connect(b), mcp.connect(a)]);
  });

  afterAll(async () => {
    await mcp?.close();
    http?.close();
    await sup?.stop();
    await tmux('kill-server').catch(() => undefined);
    rmSync(ROOT, { recursive: true, force: true });
  });

  /** The request a case makes, with the probe's own output path among its environment. */
  function requestOf(c: SpawnCase): { body: Record<string, unknown>; out: string; cwd: string } {
    n += 1;
    const out = join(ROOT, `seen-${n}`);
    const cwd = join(ROOT, `${n}-${c.folder.replaceAll('/', '_')}`);
    mkdirSync(cwd);
    const env: Record<string, string> = { PATH: `${bin}:/usr/bin:/bin`, PW_PROBE_OUT: out };
    c.envValues.forEach((v, i) => (env[`V${i}`] = v));
    const args = [...c.args];
    // Near the size tmux can carry: the request is whole or refused naming the field.
    if (c.long) args.push('x;'.repeat(Math.floor(MAX_COMMAND_TEXT_BYTES / 2 / 3)));
    return {
      body: {
        tool: 'claude_code',
        cwd,
        name: c.name,
        session: c.session,
        env,
        args,
        readyTimeoutSeconds: 30,
      },
      out,
      cwd,
    };
  }

  const seen = readSeen;

  async function until(what: () => boolean, ms = 10_000): Promise<void> {
    const end = Date.now() + ms;
    while (!what()) {
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Checks one answered spawn against what the CLI, tmux and the journal say. */
  async function checkStarted(
    id: string,
    paneId: string,
    req: ReturnType<typeof requestOf>,
    via: {
      history(id: string): Promise<Array<Record<string, unknown>>>;
      stop(id: string): Promise<unknown>;
    } = inProcess,
  ): Promise<void> {
    const body = req.body as { args: string[]; env: Record<string, string> } & Record<
      string,
      string
    >;
    await until(() => existsSync(`${req.out}.env`));
    const s = seen(req.out);
    expect(s.argv).toEqual(body.args);
    expect(s.cwd).toBe(realpathSync(req.cwd));
    for (const [k, v] of Object.entries(body.env)) expect(s.env.get(k), k).toBe(v);
    const fmt = (f: string) => tmux('display-message', '-p', '-t', paneId, f).then((r) => r.stdout);
    expect(await fmt('#{session_name}')).toBe(body.session);
    expect(await fmt('#{window_name}')).toBe(body.name);
    const records = await via.history(id);
    // The latest: an earlier terminal of the same id has its own.
    const spawned = records.findLast((r) => r.kind === 'terminal.spawned');
    expect(spawned).toMatchObject({
      session: body.session,
      window: body.name,
      cwd: body.cwd,
      argv: [join(bin, 'claude'), ...body.args],
      envNames: Object.keys(body.env),
    });
    await via.stop(id);
    started += 1;
  }
  const inProcess = {
    history: async (id: string) => sup.history(id, 50) as unknown as Array<Record<string, unknown>>,
    stop: (id: string) => sup.stopTerminal({ id, force: true, timeoutSeconds: 2 }),
  };
  let started = 0;

  const windows = async () => (await tmux('list-windows', '-a', '-F', '#{window_id}')).stdout;

  it('over HTTP: exactly what was given, or a refusal naming the field', async () => {
    await fc.assert(
      fc.asyncProperty(spawnCase, async (c) => {
        const req = requestOf(c);
        const before = await windows();
        const res = await http.app.request('/v1/terminals', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-paneward': '1' },
          body: JSON.stringify({ spawn: req.body }),
        });
        const answer = (await res.json()) as {
          terminalId?: string;
          spawned?: { paneId: string };
          error?: { code: string; message: string };
        };
        expect(res.status, JSON.stringify(answer)).toBeLessThan(500);
        if (res.status >= 400) {
          expect(answer.error?.code).toBe('invalid_input');
          expect(answer.error?.message).toMatch(/`spawn\.(name|session|args)/);
          expect(await windows()).toBe(before);
          return;
        }
        await checkStarted(answer.terminalId!, answer.spawned!.paneId, req);
        expect(existsSync(CANARY)).toBe(false);
      }),
      { numRuns: RUNS, endOnFailure: true, examples: REPORTED.map((c) => [c]) },
    );
    expect(existsSync(CANARY)).toBe(false);
    expect(started).toBeGreaterThanOrEqual(REPORTED.length);
  }, 600_000);

  it('over MCP: the same', async () => {
    await fc.assert(
      fc.asyncProperty(spawnCase, async (c) => {
        const req = requestOf(c);
        const before = await windows();
        const r = (await mcp.callTool({ name: 'spawn', arguments: req.body })) as CallToolResult;
        if (r.isError) {
          const said = r.content.map((x) => (x.type === 'text' ? x.text : '')).join('\n');
          expect(said).toMatch(/name|session|args/);
          expect(said).not.toMatch(/internal|tmux_failed/);
          expect(await windows()).toBe(before);
          return;
        }
        const out = r.structuredContent as { terminalId: string; spawned: { paneId: string } };
        await checkStarted(out.terminalId, out.spawned.paneId, req);
        expect(existsSync(CANARY)).toBe(false);
      }),
      {
        numRuns: Math.max(3, Math.round(RUNS / 3)),
        endOnFailure: true,
        examples: REPORTED.map((c) => [c]),
      },
    );
    expect(existsSync(CANARY)).toBe(false);
  }, 600_000);

  it('through `paneward spawn` against `paneward serve`: the same', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as { port: number }).port;
    probe.close();
    const serve = execa(
      process.execPath,
      [
        BIN,
        'serve',
        ...['--port', String(port), '-L', socketName, '--data-dir', join(ROOT, 'serve-data')],
        ...['--no-discover', '--poll-interval', '0.1', '--log-level', 'warn'],
      ],
      { stdin: 'ignore', reject: false },
    );
    const url = `http://127.0.0.1:${port}`;
    try {
      for (let i = 0; i < 150; i++) {
        if (
          await fetch(`${url}/healthz`).then(
            (r) => r.ok,
            () => false,
          )
        )
          break;
        await new Promise((r) => setTimeout(r, 200));
      }
      const cli = (...args: string[]) =>
        execa(process.execPath, [BIN, args[0]!, '--url', url, ...args.slice(1)], {
          reject: false,
          stdin: 'ignore',
        });
      const overCli = {
        history: async (id: string) => {
          const r = await fetch(`${url}/v1/terminals/${encodeURIComponent(id)}/history`);
          return ((await r.json()) as { records: Array<Record<string, unknown>> }).records;
        },
        stop: (id: string) => cli('stop', id, '--force', '--timeout', '2'),
      };
      await fc.assert(
        fc.asyncProperty(spawnCase, async (c) => {
          const req = requestOf(c);
          const b = req.body as { args: string[]; env: Record<string, string> } & Record<
            string,
            string
          >;
          const before = await windows();
          const r = await cli(
            'spawn',
            'claude_code',
            `--cwd=${b.cwd}`,
            `--name=${b.name}`,
            `--session=${b.session}`,
            ...Object.entries(b.env).map(([k, v]) => `--env=${k}=${v}`),
            '--ready-timeout=30',
            '--',
            ...b.args,
          );
          if (r.exitCode !== 0) {
            expect(r.stderr).toMatch(/--(name|session)|argument/);
            expect(r.stderr).not.toMatch(/internal|tmux_failed|5\d\d/);
            expect(await windows()).toBe(before);
            return;
          }
          const [id, paneId] = r.stdout.trim().split(/\s+/);
          await checkStarted(id!, paneId!, req, overCli);
          expect(existsSync(CANARY)).toBe(false);
        }),
        { numRuns: 3, endOnFailure: true, examples: REPORTED.map((c) => [c]) },
      );
    } finally {
      serve.kill('SIGTERM');
      await serve;
    }
    expect(existsSync(CANARY)).toBe(false);
  }, 600_000);

  it("the command line's request keeps every argument and value whole", () => {
    fc.assert(
      fc.property(fc.array(text(8), { maxLength: 6 }), text(6), (args, value) => {
        const r = spawnRequest('claude_code', args, { env: [`V=${value}`], cwd: ROOT });
        expect(r.args ?? []).toEqual(args);
        expect(r.env).toEqual({ V: value });
      }),
    );
  });
});
