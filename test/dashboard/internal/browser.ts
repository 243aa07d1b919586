import { chromium, type Browser } from 'playwright-core';

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
