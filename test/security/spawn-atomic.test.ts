/**
 * A spawn is whole or leaves nothing: concurrent spawns of one id start one CLI, concurrent
 * spawns of one name each get a terminal of their own, and a spawn that fails after it created
 * its window (and worktree, and branch) removes them. And a secret in a spawn's environment
 * leaves by no door: no answer, log line, SSE event or journal record carries it, whatever
 * failed (tmux refusing the start, the CLI dying, a restart that cannot start it again).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { execa } from 'execa';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { createExecaTransport } from '../../src/observe/execa-transport.js';
import type { TmuxArg } from '../../src/observe/tmux-argv.js';
import type { TmuxRunOptions, TmuxTransport } from '../../src/observe/transport.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import { uniqueSocketName } from '../e2e/harness/session.js';
import { makeStandInClaude } from './internal/stand-in-claude.js';

const SECRET = `canary-${process.pid}-7f3a9c`;

interface Answer {
  terminalId: string;
  spawned: { paneId: string };
  error: { code: string; message: string };
}

describe('spawn is atomic, and secrets never leave', () => {
  const socketName = uniqueSocketName('pw-atomic');
  const root = mkdtempSync('/tmp/pw-atomic-');
  const tmux = (...args: string[]) => execa('tmux', ['-L', socketName, ...args]);
  const logged: string[] = [];
  /**
   * tmux subcommands made to fail once each, for real: tmux is asked to act on a pane that does
   * not exist, and refuses (its error is what paneward handles, the whole command line with it).
   */
  const failNext = new Set<string>();
  let bin: string;
  let sup: Supervisor;
  let http: HttpApp;
  let n = 0;

  beforeAll(async () => {
    bin = makeStandInClaude(root);
    await tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'base', '/bin/sleep', '100000');
    const real = createExecaTransport({ socketName });
    const transport: TmuxTransport = {
      run(args: readonly TmuxArg[], opts?: TmuxRunOptions) {
        const command = String(args[0]);
        if (failNext.delete(command)) {
          const t = args.indexOf('-t');
          return real.run(
            args.map((a, i) => (i === t + 1 ? '%999999' : a)),
            opts,
          );
        }
        return real.run(args, opts);
      },
      close: () => real.close(),
    };
    sup = createSupervisor({
      socketName,
      transport,
      dataDir: join(root, 'data'),
      config: { pollIntervalSeconds: 0.1 },
    });
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logged.push(chunk.toString('utf8'));
        done();
      },
    });
    http = createHttpApp(sup, { logger: pino({ level: 'trace' }, sink) });
  });

  afterAll(async () => {
    http?.close();
    await sup?.stop();
    await tmux('kill-server').catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
    rmSync(`${join(root, 'repo')}.worktrees`, { recursive: true, force: true });
  });

  const windows = async () =>
    (await tmux('list-windows', '-a', '-F', '#{window_id}')).stdout.split('\n').length;
  const answers: string[] = [];
  async function spawn(body: Record<string, unknown>): Promise<{ status: number; json: Answer }> {
    n += 1;
    const res = await http.app.request('/v1/terminals', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-paneward': '1' },
      body: JSON.stringify({
        spawn: {
          tool: 'claude_code',
          cwd: root,
          readyTimeoutSeconds: 20,
          ...body,
          env: {
            PATH: `${bin}:/usr/bin:/bin`,
            PW_PROBE_OUT: join(root, `seen-${n}`),
            API_KEY: SECRET,
            ...(body.env as object),
          },
        },
      }),
    });
    const text = await res.text();
    answers.push(text);
    return { status: res.status, json: JSON.parse(text) };
  }

  it('concurrent spawns of one id: one CLI starts, the others are refused before anything', async () => {
    const before = await windows();
    const first = n + 1;
    const all = await Promise.all(
      [1, 2, 3, 4].map(() => spawn({ id: 'same-id', name: 'same-id' })),
    );
    expect(all.map((a) => a.status).sort()).toEqual([201, 400, 400, 400]);
    for (const a of all.filter((a) => a.status === 400)) {
      expect(a.json.error.message).toMatch(/field `id`: terminal same-id already exists/);
    }
    expect(await windows()).toBe(before + 1);
    await new Promise((r) => setTimeout(r, 500));
    const started = [0, 1, 2, 3].filter((i) => existsSync(join(root, `seen-${first + i}.argv`)));
    expect(started).toHaveLength(1);
    await sup.stopTerminal({ id: 'same-id', force: true, timeoutSeconds: 2 });
  }, 60_000);

  it('concurrent spawns of one name: each its own terminal, every CLI supervised', async () => {
    const all = await Promise.all([1, 2, 3].map(() => spawn({ name: 'twin', session: 'twins' })));
    expect(all.map((a) => a.status)).toEqual([201, 201, 201]);
    const ids = all.map((a) => a.json.terminalId as string);
    expect(new Set(ids).size).toBe(3);
    const panes = all.map((a) => a.json.spawned.paneId as string);
    expect(new Set(panes).size).toBe(3);
    for (const id of ids) expect(sup.ids()).toContain(id);
    for (const id of ids) await sup.stopTerminal({ id, force: true, timeoutSeconds: 2 });
  }, 60_000);

  it('a spawn that fails after its window and worktree were made removes both, and the branch', async () => {
    const repo = join(root, 'repo');
    mkdirSync(repo);
    await execa('git', ['init', '-q', '-b', 'main', repo]);
    await execa('git', [
      ...['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@t'],
      ...['commit', '-q', '--allow-empty', '-m', 'start'],
    ]);
    const before = await windows();
    failNext.add('respawn-pane');
    const r = await spawn({ cwd: repo, worktree: 'feature/x', name: 'doomed' });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.json.error.code).toMatch(/^tmux_/);
    expect(await windows()).toBe(before);
    expect(existsSync(join(`${repo}.worktrees`, 'feature/x'))).toBe(false);
    expect(existsSync(`${repo}.worktrees`)).toBe(false);
    const branches = await execa('git', ['-C', repo, 'branch', '--list', 'feature/x']);
    expect(branches.stdout.trim()).toBe('');
    const worktrees = await execa('git', ['-C', repo, 'worktree', 'list']);
    expect(worktrees.stdout.split('\n')).toHaveLength(1);
    expect(sup.ids()).not.toContain('paneward-doomed');
  }, 60_000);

  it('a CLI that keeps dying, and a restart tmux refuses: the secret is in no answer, log, event or record', async () => {
    const events: string[] = [];
    const stream = await http.app.request('/v1/events', { headers: { 'x-paneward': '1' } });
    const reader = stream.body!.getReader();
    const reading = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        events.push(Buffer.from(value).toString('utf8'));
      }
    })().catch(() => undefined);
    // tmux refuses the start.
    failNext.add('set-option');
    expect((await spawn({ name: 'refused' })).status).toBeGreaterThanOrEqual(400);
    // The CLI dies at once, is started again, and tmux refuses the second restart.
    const dying = await spawn({
      name: 'dying',
      env: { PW_PROBE_EXIT: '3' },
      restart: 'on-failure',
      restartLimits: { initialSeconds: 0.2, maxSeconds: 0.4, limit: 3 },
      readyTimeoutSeconds: 3,
    });
    expect(dying.status).toBeGreaterThanOrEqual(400);
    failNext.add('respawn-pane');
    await new Promise((r) => setTimeout(r, 3000));
    // An attack on the window while it backs off: the restart finds no pane.
    await tmux('kill-window', '-t', '=paneward:dying').catch(() => undefined);
    await new Promise((r) => setTimeout(r, 1500));
    await reader.cancel();
    await reading;
    const journal = readdirSync(join(root, 'data'), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => readFileSync(join(root, 'data', f), 'utf8'))
      .join('\n');
    expect(journal).toMatch(/terminal\.spawned/);
    expect(journal).toMatch(/API_KEY/);
    expect(events.join('')).toMatch(/terminal\.spawned|state/);
    expect(logged.length).toBeGreaterThan(0);
    for (const [where, text] of [
      ['answers', answers.join('\n')],
      ['log', logged.join('')],
      ['events', events.join('')],
      ['journal', journal],
    ] as const) {
      expect(text.includes(SECRET), `${where} carries the secret`).toBe(false);
    }
  }, 60_000);
});
