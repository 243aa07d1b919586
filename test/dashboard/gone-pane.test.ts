/// <reference lib="dom" />
/**
 * A pane closed outside paneward (its window killed in tmux) stops counting as needing a person:
 * its own state, "gone" (docs/terminal.md), on the dashboard (count and line, real Chromium) and
 * in `paneward ls`, on real tmux with a stand-in agent.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Browser, Page } from 'playwright-core';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { terminalTable } from '../../src/cli/table.js';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import type { Operations } from '../../src/terminal/operations.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from '../supervisor/internal/stand-in-profile.js';
import { CHROMIUM, launchBrowser } from './internal/browser.js';

describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('a pane closed elsewhere', () => {
  let agent: AgentSession;
  let dir: string;
  let sup: Supervisor;
  let http: HttpApp;
  let server: Server;
  let url = '';
  let browser: Browser;
  let page: Page;
  const until = (id: string, pred: (s: TerminalState) => boolean, ms = 20_000) =>
    firstValueFrom(sup.state$(id).pipe(filter(pred), timeout(ms)));
  const ls = async () => {
    const { terminals } = (await (await fetch(`${url}/v1/terminals`)).json()) as {
      terminals: Array<TerminalState & { operations: Operations }>;
    };
    return terminalTable(terminals, Date.now() / 1000, false);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-gone-'));
    agent = await startAgentSession({
      socketName: `pw-gone-${process.pid}`,
      cwd: dir,
      env: {},
      command: [process.execPath, STAND_IN_AGENT],
    });
    await execa('tmux', [
      ...['-L', agent.socketName, 'new-window', '-d', '-t', 'pw'],
      ...[process.execPath, STAND_IN_AGENT],
    ]);
    await agent.waitForText(/❯/);
    sup = createSupervisor({
      socketName: agent.socketName,
      dataDir: join(dir, 'data'),
      config: { pollIntervalSeconds: 0.1, settleSeconds: 0.3, stabilitySeconds: 0.3 },
      profiles: { stand_in: standInProfile },
    });
    for (const [id, target] of [
      ['a-ready', 'pw:0.0'],
      ['z-asks', 'pw:1.0'],
    ]) {
      await sup.attach({ target: target!, tool: 'stand_in', id: id! });
      await until(id!, (s) => s.readiness.status === 'ready');
    }
    http = createHttpApp(sup);
    server = createServer(http.listener);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
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

  it('needs a person while it asks; once its window is killed it is gone and the count drops', async () => {
    await sup.submit('z-asks', 'ask: may I run the tool?');
    await until('z-asks', (s) => s.readiness.status === 'blocked');
    await page.waitForFunction(
      () =>
        document.querySelector('#attention')?.textContent === '1 needs a person: z-asks (blocked)',
    );
    expect((await ls()).find((l) => l.startsWith('z-asks'))).toMatch(
      /^z-asks\s+\S+\s+\S+\s+blocked /,
    );

    // Someone closes the window in tmux, not through paneward.
    await execa('tmux', ['-L', agent.socketName, 'kill-window', '-t', 'pw:1']);
    const gone = await until('z-asks', (s) => s.diagnostics.availability === 'unavailable');
    // Still attached, in a state of its own: the pane is gone (the chart calls it a failure).
    expect(gone.diagnostics.transport).toBe('tmux_missing');
    expect(sup.ids()).toEqual(['a-ready', 'z-asks']);
    await page.waitForFunction(() => document.querySelector('#attention')!.hasAttribute('hidden'));
    expect(await page.textContent('#count')).toBe('2 terminals, 1 gone');
    expect(await page.locator('#grid tr[data-id="z-asks"]').getAttribute('class')).not.toContain(
      'attention',
    );
    // The "needs a person" filter leaves it out.
    await page.selectOption('#filter-state', 'attention');
    expect(await page.$$eval('#grid tbody tr', (rows) => rows.length)).toBe(0);
    await page.selectOption('#filter-state', '');
    // `paneward ls` says gone where it said blocked.
    expect((await ls()).find((l) => l.startsWith('z-asks'))).toMatch(
      /^z-asks\s+\S+\s+\S+\s+gone .*no such pane \(tmux cannot find it\)$/,
    );
    // Detaching it is still how it is forgotten.
    sup.detach('z-asks');
    await page.waitForFunction(
      () => document.querySelector('#count')?.textContent === '1 terminal',
    );
  }, 60_000);
});
