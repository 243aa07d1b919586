/// <reference lib="dom" />
/**
 * `paneward demo` as a newcomer runs it: the command as a process, its dashboard in a real
 * Chromium. The recorded demo needs only tmux; `--live` runs the installed Claude Code against
 * the built-in model server, and a prompt sent from the page gets a real turn.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE_CODE_BIN } from '../../../src/tooling/agents/claude_code.js';
import { CHROMIUM, launchBrowser } from '../../dashboard/internal/browser.js';

const BIN = fileURLToPath(new URL('../../../bin/paneward.js', import.meta.url));
const SHOTS = join(import.meta.dirname, '../../../reports/screenshots');
/** With PANEWARD_DOCS_SCREENSHOTS set, the dashboard's pictures in docs/ are refreshed too. */
const DOCS = process.env.PANEWARD_DOCS_SCREENSHOTS
  ? join(import.meta.dirname, '../../../docs')
  : null;

interface RunningDemo {
  child: ChildProcess;
  url: string;
  socket: string;
  out: () => string;
}

async function startDemo(args: string[]): Promise<RunningDemo> {
  const child = spawn(process.execPath, [BIN, 'demo', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + 60_000;
  while (!/dashboard\s+(http:\S+)/.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`demo did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    url: /dashboard\s+(http:\S+)/.exec(out)![1]!,
    socket: /tmux -L (\S+)/.exec(out)![1]!,
    out: () => out,
  };
}

async function stopDemo(demo: RunningDemo): Promise<number | null> {
  if (demo.child.exitCode !== null) return demo.child.exitCode;
  const exited = new Promise<number | null>((r) =>
    demo.child.once('exit', (code, signal) => {
      if (code !== 0) console.log(`demo exited with ${code ?? signal}:\n${demo.out()}`);
      r(code);
    }),
  );
  demo.child.kill('SIGINT');
  return exited;
}

describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('paneward demo', () => {
  let browser: Browser;
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('opens a dashboard with terminals of three CLIs changing state; Ctrl-C leaves nothing behind', async () => {
    const demo = await startDemo([]);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    try {
      await page.goto(demo.url);
      await page.waitForSelector('#connection[data-state="live"]');
      await page.waitForFunction(() => document.querySelectorAll('#grid tbody tr').length >= 4);
      const tools = await page.$$eval('#grid tbody tr td:nth-child(3)', (cells) =>
        cells.map((c) => c.textContent ?? ''),
      );
      expect(new Set(tools.map((t) => t.split(' ')[0]))).toEqual(
        new Set(['claude_code', 'codex', 'gemini_cli']),
      );
      // Watch the grid as a person would: every terminal's readiness, sampled for 30 s.
      const seen = new Map<string, Set<string>>();
      let blockedMarked = false;
      let unsorted: string[] | null = null;
      for (let i = 0; i < 150; i++) {
        const rows = await page.$$eval('#grid tbody tr', (trs) =>
          trs.map((tr) => [
            (tr as HTMLElement).dataset.id ?? '',
            tr.querySelector('td:nth-child(4)')?.textContent ?? '',
            tr.className,
          ]),
        );
        const ids = rows.map(([id]) => id!);
        if (ids.join() !== [...ids].sort().join()) unsorted = ids;
        for (const [id, readiness] of rows) {
          if (!seen.has(id!)) seen.set(id!, new Set());
          seen.get(id!)!.add(readiness!);
        }
        // A terminal blocked on a prompt keeps its place (rows are by id) and is marked.
        if (
          !blockedMarked &&
          rows.some(([, r, cls]) => r === 'blocked' && cls!.includes('attention'))
        ) {
          blockedMarked = true;
          await page.screenshot({ path: join(SHOTS, 'demo-grid.png') });
          if (DOCS) await page.screenshot({ path: join(DOCS, 'dashboard-grid.png') });
        }
        await new Promise((r) => setTimeout(r, 200));
      }
      const changing = [...seen.values()].filter((states) => states.size >= 2);
      expect(
        changing.length,
        JSON.stringify([...seen].map(([k, v]) => [k, [...v]])),
      ).toBeGreaterThanOrEqual(3);
      expect(blockedMarked).toBe(true);
      expect(unsorted).toBeNull();
      // A recording reads no input: a prompt is refused (409, saying why), never credited with
      // the recording's next reply, and the page says so where Send is.
      const api = `${demo.url}v1/terminals/gemini-error-500`;
      const view = (await (await fetch(api)).json()) as {
        operations: { sendInput: { allowed: string; reason: string } };
      };
      expect(view.operations.sendInput).toEqual({
        allowed: 'no',
        reason:
          'the pane reads no input: it plays a recording (run `paneward demo --live` to prompt real agents)',
      });
      const sent = await fetch(`${api}/input`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'hello', force: true }),
      });
      expect(sent.status).toBe(409);
      expect(((await sent.json()) as { error: { message: string } }).error.message).toContain(
        'the pane reads no input: it plays a recording',
      );
      await page.goto(`${demo.url}#/t/gemini-error-500`);
      await page.waitForSelector('.chart[data-chart="readiness"] g.node.current');
      expect(await page.isDisabled('#send')).toBe(true);
      expect(await page.textContent('#send-why')).toContain('it plays a recording');
      await page.screenshot({ path: join(SHOTS, 'demo-detail.png'), fullPage: true });
      if (DOCS) {
        await page.waitForFunction(() => document.querySelector('#screen')?.textContent);
        await page.screenshot({ path: join(DOCS, 'dashboard-terminal.png') });
      }
    } finally {
      await page.close();
      expect(await stopDemo(demo)).toBe(0);
    }
    const left = await execa('tmux', ['-L', demo.socket, 'ls'], { reject: false });
    expect(left.exitCode).not.toBe(0);
    const players = await execa('pgrep', ['-f', 'src/tooling/demo/player.mjs'], { reject: false });
    expect(players.stdout.trim()).toBe('');
  }, 120_000);

  it.skipIf(!existsSync(CLAUDE_CODE_BIN) && !process.env.CI)(
    '--live: a prompt sent from the page gets a real turn of Claude Code, to success',
    async () => {
      const demo = await startDemo(['--live']);
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      try {
        await page.goto(`${demo.url}#/t/claude_code-live`);
        await page.waitForSelector('#detail-view:not([hidden])');
        await page.waitForFunction(
          () => !(document.querySelector('#send') as HTMLButtonElement).disabled,
          undefined,
          { timeout: 60_000 },
        );
        await page.fill('#prompt', 'hello from the dashboard');
        await page.click('#send');
        await page.waitForFunction(() =>
          /sent: turn-\d+/.test(document.querySelector('#action-result')?.textContent ?? ''),
        );
        const turn = /sent: (turn-\d+)/.exec((await page.textContent('#action-result')) ?? '')![1]!;
        await page.waitForFunction(
          (id) =>
            (document.querySelector('#detail-summary')?.textContent ?? '').includes(
              `success ${id}`,
            ),
          turn,
          { timeout: 60_000 },
        );
        expect(await page.textContent('#screen')).toContain('hello from the dashboard');
        await page.screenshot({ path: join(SHOTS, 'demo-live-detail.png'), fullPage: true });
      } finally {
        await page.close();
        expect(await stopDemo(demo)).toBe(0);
      }
    },
    180_000,
  );
});
