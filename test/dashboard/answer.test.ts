/// <reference lib="dom" />
/**
 * The dashboard's answer buttons, clicked in real Chromium: a stand-in CLI in real tmux draws a
 * Claude Code permission dialog (read by the Claude Code profile). A click answers that very
 * question with the CLI's key for the choice, typed once; the journal says the dashboard did it.
 * A dialog that stays after the keys says so on the page, and the keys are not typed again.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import { startDialogStandIn, type DialogStandIn } from '../terminal/internal/dialog-stand-in.js';
import { CHROMIUM, launchBrowser } from './internal/browser.js';

describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)(
  'the dashboard answers a question',
  () => {
    let browser: Browser;
    let running: DialogStandIn | undefined;
    let http: HttpApp | undefined;
    let server: Server | undefined;
    let page: Page;

    beforeAll(async () => {
      browser = await launchBrowser();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
    });
    afterEach(async () => {
      await page?.close();
      server?.close();
      server?.closeAllConnections();
      http?.close();
      await running?.close();
    });

    /** The stand-in in its pane, supervised and served, and its terminal page open. */
    async function open(env: Record<string, string> = {}) {
      running = await startDialogStandIn({ env, pollIntervalSeconds: 0.1, id: 'asks' });
      http = createHttpApp(running.sup);
      server = createServer(http.listener);
      await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
      const port = (server.address() as { port: number }).port;
      page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(`http://127.0.0.1:${port}/#/t/asks`);
      await page.waitForSelector('#question:not([hidden]) #question-choices button');
      const typed = () => running!.typed().map((l) => JSON.parse(l) as string);
      return { typed, s: running.sup };
    }

    it('one button per choice; a click types its digit once, the dialog closes, the journal names the dashboard', async () => {
      const { typed, s } = await open();
      const question = s.get('asks').surface.question!;
      expect(await page.textContent('#question-text')).toBe(
        `Question ${question.id} (tool_permission): touch paneward-approved.txt`,
      );
      const buttons = page.locator('#question-choices button');
      expect(await buttons.allTextContents()).toEqual(question.choices.map((c) => c.label));
      expect(
        await buttons.evaluateAll((bs) => bs.map((b) => (b as HTMLButtonElement).disabled)),
      ).toEqual(question.choices.map(() => false));
      expect(await page.textContent('#question-why')).toBe('');

      await page.click('#question-choices button[data-choice="allow_once"]');
      await page.waitForFunction(() => document.querySelector('#question')!.hasAttribute('hidden'));
      expect(await page.textContent('#action-result')).toBe('answered allow_once: done');
      expect(typed()).toEqual(['1']);
      expect(s.history('asks', 200).filter((r) => r.kind === 'question.answered')).toMatchObject([
        {
          questionId: question.id,
          choice: 'allow_once',
          by: { via: 'dashboard', tokenId: null },
          outcome: 'closed',
        },
      ]);
    }, 60_000);

    it('a dialog that stays after the keys: the page says so, and nothing is typed again', async () => {
      const { typed, s } = await open({ DIALOG_STUCK: '1' });
      await page.click('#question-choices button[data-choice="deny"]');
      await page.waitForFunction(
        () => document.querySelector('#action-result')?.getAttribute('data-kind') === 'error',
        undefined,
        { timeout: 15_000 },
      );
      expect(await page.textContent('#action-result')).toMatch(
        /^answered deny refused: .*still drawn after "deny" was typed; nothing more was typed/,
      );
      expect(typed()).toEqual(['3']);
      expect(s.get('asks').surface.question).not.toBeNull();
      // Still asking: the buttons are there to try again, by a person who looked at the pane.
      expect(await page.locator('#question-choices button').count()).toBe(3);
    }, 60_000);
  },
);
