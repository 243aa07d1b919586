/// <reference lib="dom" />
/**
 * The dashboard's browser notifications (docs/notify.md): off until the person asks, then one
 * for a question and one for the turn's end, read from the record stream, in real Chromium
 * with a stand-in agent on real tmux.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from '../supervisor/internal/stand-in-profile.js';
import {
  CHROMIUM,
  launchBrowser,
  noteNotifications,
  shownNotifications,
} from './internal/browser.js';

describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('dashboard notifications', () => {
  let agent: AgentSession;
  let dir: string;
  let sup: Supervisor;
  let http: HttpApp;
  let server: Server;
  let url = '';
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const until = (id: string, pred: (s: TerminalState) => boolean, ms = 20_000) =>
    firstValueFrom(sup.state$(id).pipe(filter(pred), timeout(ms)));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-dash-notify-'));
    agent = await startAgentSession({
      cwd: dir,
      env: {},
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
    sup = createSupervisor({
      socketName: agent.socketName,
      dataDir: join(dir, 'data'),
      config: { pollIntervalSeconds: 0.1, settleSeconds: 0.3, stabilitySeconds: 0.3 },
      profiles: { stand_in: standInProfile },
    });
    await sup.attach({ target: agent.target, tool: 'stand_in', id: 'd1' });
    await until('d1', (s) => s.readiness.status === 'ready');
    http = createHttpApp(sup);
    server = createServer(http.listener);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    browser = await launchBrowser();
    context = await browser.newContext();
    // Every notification the page raises is noted.
    await noteNotifications(context, url);
    page = await context.newPage();
    await page.goto(`${url}/`);
    await page.waitForSelector('#connection[data-state="live"]');
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    server?.close();
    server?.closeAllConnections();
    http?.close();
    await sup?.stop();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const shown = () => shownNotifications(page);

  it('raises nothing until asked, then tells of a question and of the turn that ended', async () => {
    expect(await page.textContent('#notify-me')).toBe('Notify me');
    // Not asked yet: a turn ends without a notification.
    await sup.submit('d1', 'first, unnoticed');
    await until('d1', (s) => s.lastTurn.result === 'success');
    await page.waitForTimeout(500);
    expect(await shown()).toEqual([]);

    await page.click('#notify-me');
    await page.waitForFunction(
      () => document.querySelector('#notify-me')?.textContent === 'Notifying',
    );
    const turnId = await sup.submit('d1', 'ask: may I run the tests?');
    await until('d1', (s) => s.readiness.status === 'blocked');
    await page.waitForFunction(() => (window as unknown as { shown: unknown[] }).shown.length >= 1);
    expect((await shown())[0]).toEqual({
      title: 'd1 (stand_in)',
      body: 'waits for you: tool_permission',
    });
    await agent.sendText('y');
    await agent.sendKeys('Enter');
    await until('d1', (s) => s.lastTurn.turnId === turnId && s.lastTurn.result === 'success');
    await page.waitForFunction(() => (window as unknown as { shown: unknown[] }).shown.length >= 2);
    expect((await shown())[1]).toEqual({
      title: 'd1 (stand_in)',
      body: `${turnId} ended: success`,
    });

    // Turned off again: the next turn's end raises nothing.
    await page.click('#notify-me');
    await page.waitForFunction(
      () => document.querySelector('#notify-me')?.textContent === 'Notify me',
    );
    await sup.submit('d1', 'third, unnoticed');
    await until('d1', (s) => s.lastTurn.result === 'success' && s.lastTurn.turnId !== turnId);
    await page.waitForTimeout(500);
    expect(await shown()).toHaveLength(2);
  }, 90_000);
});
