/// <reference lib="dom" />
/**
 * The dashboard in a real browser (Debian's Chromium driven by playwright-core) against a real
 * server, real tmux and stand-in agent panes: what a person sees. Screenshots are saved under
 * reports/screenshots/.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM, launchBrowser } from './internal/browser.js';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from '../supervisor/internal/stand-in-profile.js';

const SHOTS = join(import.meta.dirname, '../../reports/screenshots');
const TOKEN = 'dashboard-test-token-0123456789';

async function listen(server: Server, port = 0): Promise<number> {
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return (server.address() as { port: number }).port;
}

describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('the dashboard in a browser', () => {
  let agent: AgentSession;
  let dir: string;
  let sup: Supervisor;
  let http: HttpApp;
  let server: Server;
  let port = 0;
  let browser: Browser;
  let page: Page;
  const until = (id: string, pred: (s: TerminalState) => boolean, ms = 15_000) =>
    firstValueFrom(sup.state$(id).pipe(filter(pred), timeout(ms)));
  const rowIds = () =>
    page.$$eval('#grid tbody tr', (rows) => rows.map((r) => (r as HTMLElement).dataset.id));

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    dir = mkdtempSync(join(tmpdir(), 'pw-dash-'));
    agent = await startAgentSession({
      cwd: dir,
      env: { STAND_IN_WORK_MS: '4000' },
      command: [process.execPath, STAND_IN_AGENT],
    });
    for (const _ of [1, 2]) {
      await execa('tmux', [
        ...['-L', agent.socketName, 'new-window', '-d', '-t', 'pw'],
        ...['-e', 'STAND_IN_WORK_MS=4000', process.execPath, STAND_IN_AGENT],
      ]);
    }
    await agent.waitForText(/❯/);
    sup = createSupervisor({
      socketName: agent.socketName,
      dataDir: join(dir, 'data'),
      config: { pollIntervalSeconds: 0.1, settleSeconds: 0.3, stabilitySeconds: 0.3 },
      profiles: { stand_in: standInProfile },
    });
    for (const [id, target] of [
      ['a-ready', 'pw:0.0'],
      ['b-busy', 'pw:1.0'],
      ['z-asks', 'pw:2.0'],
    ]) {
      await sup.attach({ target: target!, tool: 'stand_in', id: id! });
      await until(id!, (s) => s.readiness.status === 'ready');
    }
    http = createHttpApp(sup);
    server = createServer(http.listener);
    port = await listen(server);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForSelector('#connection[data-state="live"]');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    server?.close();
    server?.closeAllConnections();
    http?.close();
    await sup?.stop();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sorts what needs a person first: a terminal blocked on a permission prompt heads the grid', async () => {
    expect(await rowIds()).toEqual(['a-ready', 'b-busy', 'z-asks']);
    // One server's terminals have no host to filter by.
    expect(await page.isHidden('#filter-host-label')).toBe(true);
    await sup.submit('z-asks', 'ask: may I run the tool?');
    await until('z-asks', (s) => s.readiness.status === 'blocked');
    await page.waitForFunction(
      () => document.querySelector('#grid tbody tr td:nth-child(4)')?.textContent === 'blocked',
    );
    const first = page.locator('#grid tbody tr').first();
    expect(await first.getAttribute('data-id')).toBe('z-asks');
    expect(await first.getAttribute('class')).toContain('attention');
    expect(await first.locator('td.why').textContent()).toContain(
      'waits for the operator (tool_permission)',
    );
    await page.screenshot({ path: join(SHOTS, 'grid-blocked-first.png') });
  });

  it('shows a state change within a second of it happening', async () => {
    const changed = until('a-ready', (s) => s.readiness.status === 'waiting').then(() =>
      Date.now(),
    );
    await sup.submit('a-ready', 'a turn to watch');
    const at = await changed;
    await page.waitForFunction(
      () =>
        document.querySelector('#grid tr[data-id="a-ready"] td:nth-child(4)')?.textContent ===
        'waiting',
      undefined,
      { polling: 20, timeout: 5000 },
    );
    const seenAfter = Date.now() - at;
    expect(seenAfter).toBeLessThan(1000);
    await page.screenshot({ path: join(SHOTS, 'grid-working.png') });
  });

  it('refuses the send button while the terminal is not ready, and says why; charts show the live state', async () => {
    await sup.submit('b-busy', 'keep busy');
    await until('b-busy', (s) => s.turn.phase === 'active');
    await page.goto(`http://127.0.0.1:${port}/#/t/b-busy`);
    await page.waitForSelector('#detail-view:not([hidden])');
    await page.waitForFunction(
      () => (document.querySelector('#send') as HTMLButtonElement).disabled,
    );
    expect(await page.textContent('#send-why')).toMatch(/Not now: .*\(wait\)/);
    expect(await page.isEnabled('#interrupt')).toBe(true);
    await page.waitForSelector('.chart[data-chart="turnPhase"] g.node.current');
    expect(await page.textContent('.chart[data-chart="turnPhase"] g.node.current title')).toBe(
      'active',
    );
    await page.waitForFunction(() =>
      (document.querySelector('#screen')?.textContent ?? '').includes('working on turn'),
    );
    await page.screenshot({ path: join(SHOTS, 'detail-busy.png'), fullPage: true });
    // When the turn ends the button comes back, and the charts move with it.
    await until(
      'b-busy',
      (s) => s.readiness.status === 'ready' && s.turn.phase === 'ready',
      20_000,
    );
    await page.waitForFunction(
      () => !(document.querySelector('#send') as HTMLButtonElement).disabled,
    );
    await page.waitForFunction(
      () =>
        document.querySelector('.chart[data-chart="lastTurn"] g.node.current title')
          ?.textContent === 'success',
    );
    expect(await page.textContent('#transitions tbody')).toContain('evt_success_settled');
  });

  it('sends a prompt from the page, with the same rules as the API', async () => {
    await page.goto(`http://127.0.0.1:${port}/#/t/b-busy`);
    await page.waitForSelector('#detail-view:not([hidden])');
    await page.fill('#prompt', 'sent from the dashboard');
    await page.click('#send', { timeout: 8000 });
    await page.waitForFunction(
      () => /sent: turn-\d+/.test(document.querySelector('#action-result')?.textContent ?? ''),
      undefined,
      { timeout: 8000 },
    );
    await until('b-busy', (s) => s.turn.current?.source === 'explicit_input');
    // Forced while busy: the server's 409 is shown, not hidden.
    await page.check('#force');
    await page.fill('#prompt', 'second, too soon');
    await page.uncheck('#force');
    await page.evaluate(
      () => ((document.querySelector('#send') as HTMLButtonElement).disabled = false),
    );
    await page.click('#send');
    await page.waitForFunction(() =>
      /refused: .*not ready/.test(document.querySelector('#action-result')?.textContent ?? ''),
    );
  });

  it('reconnects after the server went away, says so meanwhile, and is live again by Last-Event-ID', async () => {
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForSelector('#connection[data-state="live"]');
    server.close();
    server.closeAllConnections();
    await page.waitForFunction(() =>
      ['reconnecting', 'offline'].includes(
        document.querySelector('#connection')!.getAttribute('data-state')!,
      ),
    );
    await page.screenshot({ path: join(SHOTS, 'grid-reconnecting.png') });
    // While it is away, something happens: the operator answers the prompt in the pane.
    await execa('tmux', ['-L', agent.socketName, 'send-keys', '-t', 'pw:2.0', 'y', 'Enter']);
    server = createServer(http.listener);
    await listen(server, port);
    await page.waitForSelector('#connection[data-state="live"]', { timeout: 20_000 });
    await page.waitForFunction(
      () =>
        document.querySelector('#grid tr[data-id="z-asks"] td:nth-child(4)')?.textContent !==
        'blocked',
    );
  });

  it('works with a bearer token: the page asks for it', async () => {
    const guarded = createHttpApp(sup, { token: TOKEN });
    const other = createServer(guarded.listener);
    const otherPort = await listen(other);
    const p = await browser.newPage();
    try {
      await p.goto(`http://127.0.0.1:${otherPort}/`);
      await p.waitForSelector('#token-form:not([hidden])');
      expect(await p.getAttribute('#connection', 'data-state')).toBe('unauthorized');
      await p.fill('#token', TOKEN);
      await p.click('#token-form button');
      await p.waitForSelector('#connection[data-state="live"]');
      await p.waitForSelector('#grid tbody tr');
      expect(await p.$$eval('#grid tbody tr', (rows) => rows.length)).toBe(3);
    } finally {
      await p.close();
      other.close();
      other.closeAllConnections();
      guarded.close();
    }
  });
});
