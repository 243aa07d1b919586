/// <reference lib="dom" />
/**
 * A question answered from the fleet server's dashboard, in real Chromium: a stand-in CLI in real
 * tmux draws a Claude Code permission dialog on one host (its supervisor and edge), a real
 * nats-server carries the signed `answer` command from the fleet server to that edge. The click
 * types the choice's digit once on the host, the dialog closes, and the host's journal says the
 * fleet's dashboard answered.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FleetEdge } from '../../src/fleet/edge.js';
import { FleetView } from '../../src/fleet/view.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import { CHROMIUM, launchBrowser } from '../dashboard/internal/browser.js';
import { startDialogStandIn, type DialogStandIn } from '../terminal/internal/dialog-stand-in.js';
import { freePort, NatsServer, until } from './internal/harness.js';

const FLEET_TOKEN = 'fleet-dashboard-answer-token-0123456789';
const HTTP_TOKEN = 'fleet-dashboard-bearer-token-0123456789';
const TOKEN_ID = `tok-${createHash('sha256').update(HTTP_TOKEN).digest('hex').slice(0, 8)}`;
const ID = 'host-a/asks';

describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)(
  "the fleet server's dashboard answers a host's question",
  () => {
    let dir: string;
    let nats: NatsServer;
    let running: DialogStandIn;
    let edge: FleetEdge;
    let view: FleetView;
    let http: HttpApp;
    let server: Server;
    let base = '';
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'pw-fleet-dash-answer-'));
      nats = new NatsServer(await freePort(), join(dir, 'nats'));
      await nats.start();
      running = await startDialogStandIn({ pollIntervalSeconds: 0.1, id: 'asks' });
      edge = new FleetEdge({
        supervisor: running.sup,
        nats: nats.url,
        hostId: 'host-a',
        token: FLEET_TOKEN,
      });
      view = new FleetView({ nats: nats.url, token: FLEET_TOKEN });
      await view.ready();
      http = createHttpApp(view, { token: HTTP_TOKEN });
      server = createServer(http.listener);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      await until(
        "host-a's question in the fleet",
        async () =>
          view.ids().includes(ID) && view.get(ID).surface.question !== null ? true : undefined,
        20_000,
      );
      browser = await launchBrowser();
    }, 90_000);

    afterAll(async () => {
      await page?.close();
      await browser?.close();
      server?.close();
      server?.closeAllConnections();
      http?.close();
      await view?.stop();
      await edge?.stop();
      await running?.close();
      await nats?.stop();
      rmSync(dir, { recursive: true, force: true });
    }, 60_000);

    it('a click types its digit once on the host, the dialog closes, the host journals the fleet dashboard and its token', async () => {
      const question = running.sup.get('asks').surface.question!;
      page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      // The fleet server wants its bearer token: the page asks for it, as on one host.
      await page.goto(`${base}/#/t/${encodeURIComponent(ID)}`);
      await page.waitForSelector('#token-form:not([hidden])');
      await page.fill('#token', HTTP_TOKEN);
      await page.click('#token-form button');
      await page.waitForSelector('#question:not([hidden]) #question-choices button');
      // The fleet serves the host's question as it is: the same id, subject and choices.
      expect(await page.textContent('#question-text')).toBe(
        `Question ${question.id} (tool_permission): touch paneward-approved.txt`,
      );
      const buttons = page.locator('#question-choices button');
      expect(await buttons.allTextContents()).toEqual(question.choices.map((c) => c.label));
      await page.waitForFunction(() =>
        Array.from(document.querySelectorAll('#question-choices button')).every(
          (b) => !(b as HTMLButtonElement).disabled,
        ),
      );
      expect(running.typed()).toEqual([]);

      await page.click('#question-choices button[data-choice="allow_once"]');
      await page.waitForFunction(
        () =>
          /^answered allow_once(:| refused)/.test(
            document.querySelector('#action-result')?.textContent ?? '',
          ),
        undefined,
        { timeout: 30_000 },
      );
      expect(await page.textContent('#action-result')).toBe('answered allow_once: done');
      // The dialog is gone on the host, in the fleet's state and on the page.
      expect(running.sup.get('asks').surface.question).toBeNull();
      await page.waitForFunction(
        () => document.querySelector('#question')!.hasAttribute('hidden'),
        undefined,
        { timeout: 15_000 },
      );
      expect(view.get(ID).surface.question).toBeNull();
      // Typed once: nothing more arrives after a while.
      await new Promise((r) => setTimeout(r, 1500));
      expect(running.typed().map((l) => JSON.parse(l) as string)).toEqual(['1']);
      const answered = running.sup
        .history('asks', 500)
        .filter((r) => r.kind === 'question.answered');
      expect(answered).toMatchObject([
        {
          questionId: question.id,
          questionKind: 'tool_permission',
          choice: 'allow_once',
          outcome: 'closed',
          by: { via: 'fleet', client: 'dashboard', tokenId: TOKEN_ID },
        },
      ]);
    }, 60_000);
  },
);
