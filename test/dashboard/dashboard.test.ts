/// <reference lib="dom" />
/**
 * The dashboard in a real browser (Debian's Chromium driven by playwright-core) against a real
 * server, real tmux and stand-in agent panes: what a person sees. Screenshots are saved under
 * reports/screenshots/.
 */
import { existsSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM } from './internal/browser.js';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { Supervisor } from '../../src/index.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import type { AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT } from '../supervisor/internal/stand-in-profile.js';
import {
  busyTimeline,
  gridLayout,
  listen,
  SHOTS,
  startDashboard,
  terminalPageBox,
  TOKEN,
  untilState,
} from './internal/dashboard-page.js';

describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('the dashboard in a browser', () => {
  let agent: AgentSession;
  let dir: string;
  let sup: Supervisor;
  let http: HttpApp;
  let server: Server;
  let port = 0;
  let browser: Browser;
  let page: Page;
  const until = (id: string, pred: (s: TerminalState) => boolean, ms?: number) =>
    untilState(sup, id, pred, ms);
  const rowIds = () =>
    page.$$eval('#grid tbody tr', (rows) => rows.map((r) => (r as HTMLElement).dataset.id));

  beforeAll(async () => {
    ({ agent, dir, sup, http, server, port, browser, page } = await startDashboard());
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

  it('keeps the rows in order by id, each a link; a terminal blocked on a permission prompt is highlighted in place', async () => {
    expect(await rowIds()).toEqual(['a-ready', 'b-busy', 'z-asks']);
    // One server's terminals have no host to filter by.
    expect(await page.isHidden('#filter-host-label')).toBe(true);
    // Each row is a real link to its terminal's page.
    expect(
      await page.$$eval('#grid tbody tr', (rows) =>
        rows.map((r) => r.querySelector('a')?.getAttribute('href')),
      ),
    ).toEqual(['#/t/a-ready', '#/t/b-busy', '#/t/z-asks']);
    // The rows are the same elements from one update to the next: marked now, checked later.
    await page.$$eval('#grid tbody tr', (rows) =>
      rows.forEach((r) => ((r as HTMLElement).dataset.mark = (r as HTMLElement).dataset.id)),
    );
    await sup.submit('z-asks', 'ask: may I run the tool?');
    await until('z-asks', (s) => s.readiness.status === 'blocked');
    await page.waitForFunction(
      () =>
        document.querySelector('#grid tr[data-id="z-asks"] td:nth-child(4)')?.textContent ===
        'blocked',
    );
    // Not moved to the top: it keeps its place, and is marked as changed and needing a person.
    expect(await rowIds()).toEqual(['a-ready', 'b-busy', 'z-asks']);
    const row = page.locator('#grid tr[data-id="z-asks"]');
    expect(await row.getAttribute('class')).toContain('attention');
    expect(await row.getAttribute('class')).toContain('changed');
    expect(await row.locator('td.why').textContent()).toContain(
      'waits for the operator (tool_permission)',
    );
    expect(await page.textContent('#attention')).toContain('z-asks (blocked)');
    await page.screenshot({ path: join(SHOTS, 'grid-blocked-highlighted.png') });
    expect(
      await page.$$eval('#grid tbody tr', (rows) =>
        rows.map((r) => (r as HTMLElement).dataset.mark),
      ),
    ).toEqual(['a-ready', 'b-busy', 'z-asks']);
  });

  it('has a legend for every colour and mark the grid uses', async () => {
    const legend = (await page.textContent('#legend')) ?? '';
    expect(await page.isVisible('#legend dl')).toBe(true);
    for (const word of [
      'green',
      'blue',
      'amber',
      'red',
      'grey',
      'amber bar',
      'blue dot',
      'yellow',
      'hatched',
    ]) {
      expect(legend).toContain(word);
    }
    // Every colour class a row uses is one the legend shows.
    const used = await page.$$eval('#grid tbody td.state', (cells) => [
      ...new Set(cells.flatMap((c) => Array.from(c.classList).filter((k) => k.startsWith('s-')))),
    ]);
    const shown = await page.$$eval('#legend .swatch', (s) =>
      s.flatMap((x) => Array.from(x.classList)),
    );
    for (const k of used) expect(shown).toContain(k);
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
    // A running turn is a no at once (the operation table), never a wait.
    expect(await page.textContent('#send-why')).toMatch(/Not now: the agent is working: .*\(no\)/);
    expect(await page.getAttribute('#send', 'title')).toMatch(/^Send: not now: /);
    expect(await page.isEnabled('#interrupt')).toBe(true);
    // Each refused action says why: the verdict's reason, on the button and beside it.
    expect(await page.isDisabled('#resume')).toBe(true);
    expect(await page.getAttribute('#resume', 'title')).toBe(
      'Resume: not now: the session is not blocked',
    );
    expect(await page.textContent('#actions-why')).toContain(
      'Resume: not now: the session is not blocked',
    );
    // The state in words, and why.
    expect(await page.textContent('#state-words')).toMatch(/^Working on turn-\d+/);
    expect(await page.textContent('#state-why')).toMatch(/turn phase active/);
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
    // Past the disabled button at once (the page disables it again at its next render).
    await page.evaluate(() => {
      const send = document.querySelector('#send') as HTMLButtonElement;
      send.disabled = false;
      send.click();
    });
    await page.waitForFunction(() =>
      /refused: .*not ready/.test(document.querySelector('#action-result')?.textContent ?? ''),
    );
  });

  it('leads the terminal page with the screen and the state; the charts come below, at 1400 and at 800 px', async () => {
    for (const [width, height] of [
      [1400, 900],
      [800, 900],
    ] as const) {
      await page.setViewportSize({ width, height });
      await page.goto(`http://127.0.0.1:${port}/#/t/a-ready`);
      await page.waitForSelector('#detail-view:not([hidden])');
      await page.waitForFunction(() =>
        (document.querySelector('#screen')?.textContent ?? '').includes('❯'),
      );
      await page.waitForSelector('.chart[data-chart="readiness"] g.node.current');
      const box = await terminalPageBox(page);
      // The first screenful: the state in words, why, the screen and the actions.
      expect(box.words.top, `${width}`).toBeLessThan(height);
      expect(box.why.bottom, `${width}`).toBeLessThan(height);
      expect(box.screen.top + 100, `${width}`).toBeLessThan(height);
      expect(box.screen.height, `${width}`).toBeGreaterThan(100);
      if (width === 1400) expect(box.send.bottom).toBeLessThan(height);
      // Every chart below all of them.
      expect(box.firstChart, `${width}`).toBeGreaterThan(
        Math.max(box.screen.bottom, box.why.bottom, box.send.bottom),
      );
      expect(box.overflow, `${width}: the page scrolls sideways`).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(SHOTS, `terminal-${width}.png`) });
    }
    await page.setViewportSize({ width: 1400, height: 900 });
  });

  it('draws the seed diagram large, with the extension edges on demand', async () => {
    await page.goto(`http://127.0.0.1:${port}/#/t/a-ready`);
    await page.waitForSelector('.chart[data-chart="readiness"] g.node.current');
    const readiness = page.locator('.chart[data-chart="readiness"]');
    expect(await readiness.textContent()).not.toContain('(ext)');
    // Labels at their own size: 12 px for a state, whatever the width of the page.
    const font = await readiness.evaluate((c) => {
      const text = c.querySelector('g.node text')!;
      return text.getBoundingClientRect().height;
    });
    expect(font).toBeGreaterThanOrEqual(11);
    await page.check('#show-ext');
    await page.waitForFunction(() =>
      (document.querySelector('.chart[data-chart="readiness"]')?.textContent ?? '').includes(
        '(ext)',
      ),
    );
    // Still lit where it is.
    expect(await page.textContent('.chart[data-chart="readiness"] g.node.current title')).toBe(
      'ready',
    );
    await page.uncheck('#show-ext');
    await page.waitForFunction(
      () =>
        !(document.querySelector('.chart[data-chart="readiness"]')?.textContent ?? '').includes(
          '(ext)',
        ),
    );
  });

  it("draws each terminal's last hour from the journal: readiness and its turns", async () => {
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForSelector('#connection[data-state="live"]');
    const line = await busyTimeline(page);
    // The page's own turns: the one that kept it busy succeeded.
    expect(line.states).toContain('waiting');
    expect(line.states.at(-1)).toBe(sup.get('b-busy').readiness.status);
    expect(line.turns.length).toBeGreaterThanOrEqual(2);
    expect(line.turns[0]!.title).toMatch(/^turn-\d+: success /);
    expect(line.turns[0]!.cls).toContain('s-ready');
    // It matches the journal: every turn the terminal started in the hour is drawn.
    const started = sup
      .history('b-busy')
      .filter((r) => r.kind === 'turn.started')
      .map((r) => (r as { turnId: string }).turnId);
    expect(line.turns.map((t) => t.id)).toEqual(started);
    // No record before it was attached: that part of the hour is hatched.
    expect(await page.$$eval('.timeline-row[data-id="b-busy"] rect.tl-gap', (r) => r.length)).toBe(
      1,
    );
    // Zoomed in on the last 5 minutes, the same turns are drawn wider.
    const width = () =>
      page.$eval('.timeline-row[data-id="b-busy"] rect[data-turn]', (r) =>
        Number(r.getAttribute('width')),
      );
    const before = await width();
    await page.selectOption('#grid-view select.range', '5');
    await page.waitForFunction(
      () =>
        document.querySelector('.timeline-row[data-id="b-busy"] .axis span')?.textContent ===
        '−5 min',
    );
    expect(await width()).toBeGreaterThan(before * 5);
    await page.screenshot({ path: join(SHOTS, 'grid-timeline-5min.png'), fullPage: true });
    await page.selectOption('#grid-view select.range', '60');
  });

  it('fits the grid on one line per terminal at 1400 px and cuts no column off at 800 px', async () => {
    // A terminal with a long name and a versioned tool, as real ones have.
    await execa('tmux', [
      ...['-L', agent.socketName, 'new-window', '-d', '-t', 'pw'],
      ...[process.execPath, STAND_IN_AGENT],
    ]);
    await sup.attach({
      target: 'pw:3.0',
      tool: 'stand_in',
      toolVersion: '2.0.14 (stand-in build)',
      id: 'payments-service-refactor',
    });
    await until('payments-service-refactor', (s) => s.readiness.status !== 'waiting');
    onTestFinished(() => sup.detach('payments-service-refactor'));
    for (const width of [1400, 800]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`http://127.0.0.1:${port}/`);
      await page.waitForSelector('#connection[data-state="live"]');
      await page.waitForSelector('#grid tbody tr');
      const m = await gridLayout(page);
      expect(m.overflow, `${width}`).toBeLessThanOrEqual(0);
      expect(m.lastRight, `${width}`).toBeLessThanOrEqual(m.viewport);
      expect(m.tableRight, `${width}`).toBeLessThanOrEqual(m.viewport);
      // No cell wraps.
      expect(m.wrapped, `${width}`).toEqual([]);
      expect(m.cut, `${width}`).toEqual([]);
      expect(m.columns).toEqual(
        expect.arrayContaining(['Terminal', 'Tool', 'Readiness', 'Phase', 'Why not ready']),
      );
      if (width === 1400) expect(m.columns).toHaveLength(9);
      await page.screenshot({ path: join(SHOTS, `grid-${width}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1400, height: 900 });
  });

  it('follows a row to its terminal page wherever the row is clicked', async () => {
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForSelector('#grid tr[data-id="b-busy"]');
    // Where a person clicks: the middle of the row's Phase cell (not on the link's text).
    const cell = (await page.locator('#grid tr[data-id="b-busy"] td:nth-child(5)').boundingBox())!;
    await page.mouse.click(cell.x + cell.width / 2, cell.y + cell.height / 2);
    await page.waitForSelector('#detail-view:not([hidden])');
    expect(page.url()).toMatch(/#\/t\/b-busy$/);
    expect(await page.textContent('#detail-title')).toContain('b-busy');
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
