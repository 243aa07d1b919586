import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (or PANEWARD_CHROMIUM), headless, as the browser tests use it. */
export const CHROMIUM = process.env.PANEWARD_CHROMIUM ?? '/usr/bin/chromium';

/** `extraArgs`: more Chromium switches (`--host-resolver-rules=…` to point a name at loopback). */
export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}

/** A notification the page raised: its title and body. */
export interface Shown {
  title: string;
  body?: string;
}

/**
 * Notes every notification the pages of `target` raise from their next load on (headless
 * Chromium shows none), with the browser's permission granted for `origin`; `on` also turns the
 * dashboard's notifications on, as its button would.
 */
export async function noteNotifications(
  target: BrowserContext | Page,
  origin: string,
  on = false,
): Promise<void> {
  const context = 'context' in target ? target.context() : target;
  await context.grantPermissions(['notifications'], { origin });
  await target.addInitScript((turnOn: boolean) => {
    if (turnOn) localStorage.setItem('paneward.notify', 'on');
    const Real = window.Notification;
    const shown: Shown[] = [];
    (window as unknown as { shown: Shown[] }).shown = shown;
    class Noted extends Real {
      constructor(title: string, options?: NotificationOptions) {
        shown.push({ title, body: options?.body });
        super(title, options);
      }
    }
    window.Notification = Noted;
  }, on);
}

/** The notifications the page raised so far, in order. */
export const shownNotifications = (page: Page): Promise<Shown[]> =>
  page.evaluate(() => (window as unknown as { shown: Shown[] }).shown);
