/**
 * The spawn and stop faces of the HTTP API: `POST /v1/terminals {spawn}` refuses bad input naming
 * the field before anything starts, and `DELETE ?stop=true` refuses to type into a pane paneward
 * only observes (an observer never types) unless forced.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from '../supervisor/internal/stand-in-profile.js';

describe('spawn and stop over HTTP', () => {
  let agent: AgentSession;
  let dir: string;
  let sup: Supervisor;
  let http: HttpApp;
  const call = (method: string, path: string, body?: unknown) =>
    http.app.request(path, {
      method,
      headers: { 'content-type': 'application/json', 'x-paneward': '1' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const errorOf = async (res: Response) =>
    ((await res.json()) as { error: { code: string; message: string } }).error;

  beforeAll(async () => {
    // Under /tmp: outside any git repository, so the worktree case cannot create one.
    dir = mkdtempSync('/tmp/spawn-http-');
    agent = await startAgentSession({
      cwd: dir,
      env: {},
      command: [process.execPath, STAND_IN_AGENT],
    });
    // An executable named as the recipe says, so the checks after the lookup are reached.
    mkdirSync(join(dir, 'bin'));
    writeFileSync(join(dir, 'bin/claude'), '#!/bin/sh\n');
    chmodSync(join(dir, 'bin/claude'), 0o755);
    await agent.waitForText(/❯/);
    sup = createSupervisor({
      socketName: agent.socketName,
      dataDir: null,
      config: { pollIntervalSeconds: 0.1 },
      profiles: { stand_in: standInProfile },
    });
    http = createHttpApp(sup);
  });

  afterAll(async () => {
    http?.close();
    await sup?.stop();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a bad spawn naming the field, and starts nothing', async () => {
    const windows = async () =>
      (await execa('tmux', ['-L', agent.socketName, 'list-windows', '-a'])).stdout;
    const before = await windows();
    for (const [spawn, field, says] of [
      [{ tool: 'claude_code', env: { 'A B': 'x' } }, 'spawn.env.A B', /variable name/],
      [{ tool: 'claude_code', args: ['ok', 'x\u0000'] }, 'spawn.args.1', /NUL/],
      [{ tool: 'claude_code', cwd: 'relative' }, 'spawn.cwd', /absolute/],
      [{ tool: 'claude_code', restart: 'always' }, 'spawn.restart', /./],
      [{ tool: 'claude_code', worktree: '-b' }, 'spawn.worktree', /branch name/],
      [{ tool: 'stand_in' }, 'tool', /no launch recipe/],
      [
        { tool: 'claude_code', cwd: dir, env: { PATH: join(dir, 'nothing') } },
        'tool',
        /not found on PATH/,
      ],
      [{ tool: 'claude_code', cwd: join(dir, 'missing') }, 'cwd', /no folder/],
      [
        { tool: 'claude_code', cwd: dir, worktree: 'feature-a', env: { PATH: join(dir, 'bin') } },
        'worktree',
        /not in a git repository/,
      ],
    ] as const) {
      const res = await call('POST', '/v1/terminals', { spawn });
      expect(res.status, JSON.stringify(spawn)).toBe(400);
      const e = await errorOf(res);
      expect(e.code).toBe('invalid_input');
      expect(e.message).toContain(`\`${field}\``);
      expect(e.message).toMatch(says);
    }
    expect(await windows()).toBe(before);
    expect(sup.ids()).toEqual([]);
  });

  it('DELETE ?stop=true refuses a pane paneward did not start; plain DELETE detaches', async () => {
    const res = await call('POST', '/v1/terminals', {
      target: agent.target,
      tool: 'stand_in',
      id: 'seen',
    });
    expect(res.status).toBe(201);
    expect(await res.json()).not.toHaveProperty('spawned');
    const refused = await call('DELETE', '/v1/terminals/seen?stop=true');
    expect(refused.status).toBe(409);
    const e = await errorOf(refused);
    expect(e.code).toBe('refused');
    expect(e.message).toMatch(/not started by paneward.*`force`/);
    const bad = await call('DELETE', '/v1/terminals/seen?stop=maybe');
    expect(bad.status).toBe(400);
    const alone = await call('DELETE', '/v1/terminals/seen?removeWorktree=true');
    expect(alone.status).toBe(400);
    expect((await errorOf(alone)).message).toMatch(/removeWorktree.*only with `stop=true`/);
    // Nothing was typed: the pane still runs its agent, and a plain DELETE detaches.
    expect(sup.ids()).toEqual(['seen']);
    const detached = await call('DELETE', '/v1/terminals/seen?stop=false');
    expect(detached.status).toBe(200);
    expect(sup.ids()).toEqual([]);
    const panes = await execa('tmux', [
      '-L',
      agent.socketName,
      'list-panes',
      '-a',
      '-F',
      '#{pane_dead}',
    ]);
    expect(panes.stdout.trim()).toBe('0');
  });
});
