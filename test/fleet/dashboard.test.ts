/// <reference lib="dom" />
/**
 * The dashboard served by a fleet server, in a real browser (Debian's Chromium): two hosts, each
 * a supervisor on its own tmux server with an edge, on a real nats-server; one fleet view behind
 * the HTTP app. Every host's panes in one grid, a terminal page whose screen and prompt go to the
 * owning host, and each host's own trouble said as that host's; a browser notification when a
 * host stops answering and when it answers again.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FleetEdge } from '../../src/fleet/edge.js';
import { FleetView } from '../../src/fleet/view.js';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import {
  CHROMIUM,
  launchBrowser,
  noteNotifications,
  shownNotifications,
} from '../dashboard/internal/browser.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from '../supervisor/internal/stand-in-profile.js';
import { freePort, NatsServer, until } from './internal/harness.js';

const HOSTS = ['host-a', 'host-b'] as const;

interface Host {
  pane: AgentSession;
  sup: Supervisor;
  edge: FleetEdge;
}

describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)(
  'the dashboard of a fleet server, in a browser',
  () => {
    let dir: string;
    let nats: NatsServer;
    const hosts = new Map<string, Host>();
    let view: FleetView;
    let http: HttpApp;
    let server: Server;
    let base = '';
    let browser: Browser;
    let page: Page;
    const rowIds = () =>
      page.$$eval('#grid tbody tr', (rows) => rows.map((r) => (r as HTMLElement).dataset.id));

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'pw-fleet-dash-'));
      nats = new NatsServer(await freePort(), join(dir, 'nats'));
      await nats.start();
      for (const host of HOSTS) {
        const pane = await startAgentSession({
          socketName: `pw-fleet-${process.pid}-dash-${host}`,
          cwd: dir,
          env: { STAND_IN_WORK_MS: '1000' },
          command: [process.execPath, STAND_IN_AGENT],
        });
        await pane.waitForText(/❯/);
        const sup = createSupervisor({
          socketName: pane.socketName,
          dataDir: join(dir, host),
          config: { pollIntervalSeconds: 0.1, settleSeconds: 0.3, stabilitySeconds: 0.3 },
          profiles: { stand_in: standInProfile },
        });
        await sup.attach({ target: pane.target, tool: 'stand_in', id: 'p0' });
        const edge = new FleetEdge({ supervisor: sup, nats: nats.url, hostId: host });
        hosts.set(host, { pane, sup, edge });
      }
      view = new FleetView({ nats: nats.url });
      await view.ready();
      http = createHttpApp(view);
      server = createServer(http.listener);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      await until(
        'both hosts ready in the fleet',
        async () =>
          HOSTS.every((h) => view.ids().includes(`${h}/p0`)) &&
          view.ids().every((id) => view.get(id).readiness.status === 'ready')
            ? true
            : undefined,
        20_000,
      );
      browser = await launchBrowser();
      page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(`${base}/`);
      await page.waitForSelector('#connection[data-state="live"]');
    }, 90_000);

    afterAll(async () => {
      await browser?.close();
      server?.close();
      server?.closeAllConnections();
      http?.close();
      await view?.stop();
      for (const h of hosts.values()) {
        await h.edge.stop({ before: () => h.sup.stop() });
        await h.pane.close();
      }
      await nats?.stop();
      rmSync(dir, { recursive: true, force: true });
    }, 60_000);

    it('lists every host pane in one grid, by qualified id', async () => {
      await page.waitForFunction(() => document.querySelectorAll('#grid tbody tr').length === 2);
      expect(await rowIds()).toEqual(['host-a/p0', 'host-b/p0']);
    });

    it('filters the grid by host', async () => {
      await page.waitForSelector('#filter-host-label:not([hidden])');
      expect(await page.$$eval('#filter-host option', (o) => o.map((x) => x.textContent))).toEqual([
        'all',
        'host-a',
        'host-b',
      ]);
      await page.selectOption('#filter-host', 'host-b');
      await page.waitForFunction(() => document.querySelectorAll('#grid tbody tr').length === 1);
      expect(await rowIds()).toEqual(['host-b/p0']);
      await page.selectOption('#filter-host', '');
      await page.waitForFunction(() => document.querySelectorAll('#grid tbody tr').length === 2);
    });

    it("opens a terminal page whose screen and prompt go to the owning host, and follows the turn's records", async () => {
      await page.goto(`${base}/#/t/${encodeURIComponent('host-b/p0')}`);
      await page.waitForSelector('#detail-view:not([hidden])');
      await page.waitForFunction(() =>
        (document.querySelector('#screen')?.textContent ?? '').includes('❯'),
      );
      await page.waitForFunction(
        () => !(document.querySelector('#send') as HTMLButtonElement).disabled,
      );
      const marker = `from the fleet dashboard ${Date.now()}`;
      await page.fill('#prompt', marker);
      await page.click('#send');
      await page.waitForFunction(
        () => /sent: turn-\d+/.test(document.querySelector('#action-result')?.textContent ?? ''),
        undefined,
        { timeout: 10_000 },
      );
      const b = hosts.get('host-b')!;
      await b.pane.waitForText(new RegExp(`reply \\d+: ${marker}`), 15_000);
      expect(await hosts.get('host-a')!.pane.capture()).not.toContain(marker);
      // The turn's records reach the page through the stream: its outcome lights the chart.
      await page.waitForFunction(
        () =>
          document.querySelector('.chart[data-chart="lastTurn"] g.node.current title')
            ?.textContent === 'success',
        undefined,
        { timeout: 15_000 },
      );
      await page.waitForFunction(
        (text) => (document.querySelector('#screen')?.textContent ?? '').includes(text),
        `reply`,
        { timeout: 10_000 },
      );
    });

    it("says a host's own trouble as that host's, a host gone in its terminals' rows, and notifies when it goes and comes back", async () => {
      // Notifications on, each one noted.
      await noteNotifications(page, base, true);
      const shown = () => shownNotifications(page);
      await page.goto(`${base}/`);
      await page.waitForSelector('#connection[data-state="live"]');
      // host-b's tmux server goes away: its supervisor's tmux client says so in its heartbeat.
      await hosts.get('host-b')!.pane.close();
      await page.waitForFunction(
        () =>
          /paneward on host-b's tmux client: \w+/.test(
            document.querySelector('#observer:not([hidden])')?.textContent ?? '',
          ),
        undefined,
        { timeout: 30_000 },
      );
      expect(await page.textContent('#observer')).not.toContain('host-a');
      // host-a's edge stops: its row says why it cannot take a prompt.
      const a = hosts.get('host-a')!;
      await a.edge.stop();
      await page.waitForFunction(
        () =>
          (
            document.querySelector('#grid tr[data-id="host-a/p0"] td.why')?.textContent ?? ''
          ).includes('host host-a is unreachable: its edge stopped'),
        undefined,
        { timeout: 15_000 },
      );
      // The person is told once, by the host's name, with how many terminals it takes along.
      await until(
        'the host-gone notification',
        async () => ((await shown()).some((n) => n.title === 'host host-a') ? true : undefined),
        15_000,
      );
      expect((await shown()).filter((n) => n.title.startsWith('host '))).toEqual([
        {
          title: 'host host-a',
          body: 'stopped answering: its terminals are not watched (1 terminal)',
        },
      ]);
      // Its edge starts again: told it answers again.
      a.edge = new FleetEdge({ supervisor: a.sup, nats: nats.url, hostId: 'host-a' });
      await until(
        'the host-back notification',
        async () =>
          (await shown()).some((n) => n.title === 'host host-a' && /answers again/.test(n.body!))
            ? true
            : undefined,
        30_000,
      );
      expect((await shown()).filter((n) => n.title.startsWith('host ')).at(-1)).toEqual({
        title: 'host host-a',
        body: 'answers again (1 terminal)',
      });
    }, 90_000);
  },
);
