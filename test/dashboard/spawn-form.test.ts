/// <reference lib="dom" />
/**
 * The grid page's spawn form in a real browser (Chromium) against a real server and tmux: a
 * person picks Claude Code, a folder and a name, and the real CLI (offline, against the loopback
 * model server) starts and joins the grid ready; a bad folder is refused naming the field.
 */
import { existsSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { execa } from 'execa';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import { CLAUDE_CODE_BIN, prepareClaudeCode } from '../../src/tooling/agents/claude_code.js';
import { anthropicProtocol } from '../../src/tooling/model-server/anthropic.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../src/tooling/model-server/server.js';
import { CHROMIUM, launchBrowser } from './internal/browser.js';

const SCRATCH = resolve('.tmp/spawn-form');
const missing = !existsSync(CHROMIUM) || !existsSync(CLAUDE_CODE_BIN);

describe.skipIf(missing && !process.env.CI)('the spawn form in a browser', () => {
  const socketName = `spawn-form-${process.pid}`;
  const path = process.env.PATH;
  let model: FakeModelServer;
  let sup: Supervisor;
  let http: HttpApp;
  let server: Server;
  let browser: Browser;
  let page: Page;
  let work = '';

  beforeAll(async () => {
    rmSync(SCRATCH, { recursive: true, force: true });
    model = await startFakeModelServer({ protocols: [anthropicProtocol] });
    const launch = prepareClaudeCode({
      home: join(SCRATCH, 'home'),
      cwd: join(SCRATCH, 'work'),
      baseUrl: model.url,
    });
    work = launch.cwd;
    // The form sends no environment: the CLI gets the tmux server's, set up for offline use, and
    // is found on the service's PATH.
    const env = Object.entries(launch.env).map(([k, v]) => `${k}=${v}`);
    await execa('env', [
      '-i',
      ...env,
      'tmux',
      '-L',
      socketName,
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-s',
      'base',
    ]);
    process.env.PATH = `${dirname(CLAUDE_CODE_BIN)}:${path}`;
    sup = createSupervisor({ socketName, dataDir: null, config: { pollIntervalSeconds: 0.25 } });
    http = createHttpApp(sup);
    server = createServer(http.listener);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForSelector('#connection[data-state="live"]');
  }, 60_000);

  afterAll(async () => {
    process.env.PATH = path;
    await browser?.close();
    server?.close();
    server?.closeAllConnections();
    http?.close();
    await sup?.stop();
    await execa('tmux', ['-L', socketName, 'kill-server'], { reject: false });
    await model?.close();
    rmSync(SCRATCH, { recursive: true, force: true });
  });

  it('starts Claude Code from the form; the new terminal joins the grid, ready', async () => {
    await page.selectOption('#spawn-tool', 'claude_code');
    await page.fill('#spawn-cwd', work);
    await page.fill('#spawn-name', 'web');
    await page.click('#spawn-form button');
    await page.waitForSelector('#spawn-status[data-state="done"]', { timeout: 60_000 });
    expect(await page.textContent('#spawn-status')).toBe('paneward-web: ready');
    await page.waitForSelector('#grid tr[data-id="paneward-web"]');
    expect(sup.spawnedOf('paneward-web')?.cwd).toBe(work);
    const stopped = await sup.stopTerminal({ id: 'paneward-web' });
    expect(stopped.ended).toBe('exit_command');
  }, 90_000);

  it('a folder that is not absolute is refused, naming the field, and nothing starts', async () => {
    await page.fill('#spawn-cwd', 'not/absolute');
    await page.click('#spawn-form button');
    await page.waitForSelector('#spawn-status[data-state="error"]');
    expect(await page.textContent('#spawn-status')).toMatch(
      /field `spawn\.cwd`: must be an absolute path/,
    );
    expect(sup.ids()).toEqual([]);
  });
});
