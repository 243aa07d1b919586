// The dashboard's browser test set-up: a server over a supervisor of three stand-in panes, a
// page on it in Chromium; and what the tests measure of the page in the browser.
/// <reference lib="dom" />
import { mkdirSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Page } from 'playwright-core';
import { launchBrowser } from './browser.js';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { createSupervisor, type Supervisor } from '../../../src/index.js';
import { createHttpApp } from '../../../src/server/app.js';
import type { TerminalState } from '../../../src/schemas/terminal-state.js';
import { startAgentSession } from '../../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from '../../supervisor/internal/stand-in-profile.js';

export const SHOTS = join(import.meta.dirname, '../../../reports/screenshots');
/** The bearer token of the test that locks the page. */
export const TOKEN = 'dashboard-test-token-0123456789';

export async function listen(server: Server, port = 0): Promise<number> {
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return (server.address() as { port: number }).port;
}

/** The first state of terminal `id` that `pred` holds for, within `ms`. */
export const untilState = (
  sup: Supervisor,
  id: string,
  pred: (s: TerminalState) => boolean,
  ms = 15_000,
) => firstValueFrom(sup.state$(id).pipe(filter(pred), timeout(ms)));

/** Starts the panes, the supervisor, the server and a page on it, live; the rows ready. */
export async function startDashboard() {
  mkdirSync(SHOTS, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'pw-dash-'));
  const agent = await startAgentSession({
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
  const sup = createSupervisor({
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
    await untilState(sup, id!, (s) => s.readiness.status === 'ready');
  }
  const http = createHttpApp(sup);
  const server = createServer(http.listener);
  const port = await listen(server);
  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.waitForSelector('#connection[data-state="live"]');
  return { agent, dir, sup, http, server, port, browser, page };
}

/** Where the terminal page's parts stand, and how far the page scrolls sideways. */
export function terminalPageBox(page: Page) {
  return page.evaluate(() => {
    const rect = (sel: string) => document.querySelector(sel)!.getBoundingClientRect();
    const charts = Array.from(document.querySelectorAll('.chart')).map(
      (c) => c.getBoundingClientRect().top,
    );
    return {
      screen: rect('#screen'),
      words: rect('#state-words'),
      why: rect('#state-why'),
      send: rect('#send'),
      firstChart: Math.min(...charts),
      overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    };
  });
}

/** The grid as drawn: its edges, its visible columns, and the cells that wrap or are cut off. */
export function gridLayout(page: Page) {
  return page.evaluate(() => {
    const table = document.querySelector('#grid')!.getBoundingClientRect();
    const visible = Array.from(document.querySelectorAll('#grid th')).filter(
      (th) => getComputedStyle(th).display !== 'none',
    );
    const cells = Array.from(document.querySelectorAll('#grid tbody td')).filter(
      (td) => getComputedStyle(td).display !== 'none',
    );
    // How many lines a cell's text takes.
    const lines = (td: Element) => {
      const range = document.createRange();
      range.selectNodeContents(td);
      return new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size;
    };
    return {
      overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      tableRight: table.right,
      viewport: document.documentElement.clientWidth,
      columns: visible.map((th) => th.textContent),
      lastRight: Math.max(...visible.map((th) => th.getBoundingClientRect().right)),
      wrapped: cells.filter((td) => lines(td) > 1).map((td) => td.textContent),
      cut: cells
        .filter((td) => !td.classList.contains('why') && td.scrollWidth > td.clientWidth)
        .map((td) => td.textContent),
    };
  });
}

/** The states and turns drawn on b-busy's timeline. */
export function busyTimeline(page: Page) {
  return page.$eval('.timeline-row[data-id="b-busy"] svg.timeline', (svg) => ({
    states: Array.from(svg.querySelectorAll('rect[data-state]')).map((r) =>
      r.getAttribute('data-state'),
    ),
    turns: Array.from(svg.querySelectorAll('rect[data-turn]')).map((r) => ({
      id: r.getAttribute('data-turn'),
      title: r.querySelector('title')?.textContent ?? '',
      cls: r.getAttribute('class'),
    })),
  }));
}
