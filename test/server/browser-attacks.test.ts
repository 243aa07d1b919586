/// <reference lib="dom" />
/**
 * What a web page on another site can make the service do, tried in a real browser (Debian's
 * Chromium driven by playwright-core) against a real server and a real tmux pane: a form post,
 * `fetch` with `no-cors` and `navigator.sendBeacon` to the action routes, and a page on a DNS
 * name rebound to loopback. None may type anything: the supervisor is never asked.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import type { SupervisorPort } from '../../src/service/port.js';
import { CHROMIUM, launchBrowser } from '../dashboard/internal/browser.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from '../supervisor/internal/stand-in-profile.js';

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return (server.address() as { port: number }).port;
}

const ACTIONS = ['submit', 'interrupt', 'resume', 'detach', 'attach'] as const;

describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('attacks from a web page', () => {
  let agent: AgentSession;
  let dir: string;
  let sup: Supervisor;
  let http: HttpApp;
  let service: Server;
  let evil: Server;
  let port = 0;
  let evilPort = 0;
  let browser: Browser;
  /** Every time the HTTP app asked the supervisor to act. */
  const asked: string[] = [];
  /** Every request the service answered: method, path, status. */
  const answered: Array<{ method: string; path: string; status: number; host: string }> = [];
  let attackPage = '';

  const until = (pred: (s: TerminalState) => boolean, ms = 15_000) =>
    firstValueFrom(sup.state$('a1').pipe(filter(pred), timeout(ms)));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-attack-'));
    agent = await startAgentSession({
      cwd: dir,
      env: { STAND_IN_WORK_MS: '60000' },
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
    sup = createSupervisor({
      socketName: agent.socketName,
      dataDir: join(dir, 'data'),
      config: { pollIntervalSeconds: 0.1, settleSeconds: 0.3, stabilitySeconds: 0.3 },
      profiles: { stand_in: standInProfile },
    });
    await sup.attach({ target: agent.target, tool: 'stand_in', id: 'a1' });
    await until((s) => s.readiness.status === 'ready');
    // The port the app serves records every command it passes on.
    const port_ = new Proxy(sup as unknown as SupervisorPort, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if ((ACTIONS as readonly string[]).includes(String(key))) asked.push(String(key));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    http = createHttpApp(port_);
    service = createServer((req, res) => {
      res.on('finish', () =>
        answered.push({
          method: req.method ?? '',
          path: req.url ?? '',
          status: res.statusCode,
          host: req.headers.host ?? '',
        }),
      );
      http.listener(req, res);
    });
    port = await listen(service);
    const target = `http://127.0.0.1:${port}/v1/terminals/a1`;
    attackPage = `<!doctype html><title>cats</title>
<iframe name="sink1"></iframe><iframe name="sink2"></iframe><iframe name="sink3"></iframe>
<form id="f1" target="sink1" method="POST" action="${target}/interrupt"></form>
<form id="f2" target="sink2" method="POST" action="${target}/resume" enctype="text/plain">
  <input name='{"x":"' value='"}'></form>
<form id="f3" target="sink3" method="POST" action="${target}/input" enctype="text/plain">
  <input name='{"text":"rm -rf ~","force":true,"x":"' value='"}'></form>
<script>
  window.attack = async () => {
    const send = [];
    for (const what of ['interrupt', 'resume']) {
      send.push(fetch('${target}/' + what, { method: 'POST', mode: 'no-cors' }).catch(() => {}));
      send.push(fetch('${target}/' + what, { method: 'POST', mode: 'no-cors', body: '{}',
        headers: { 'content-type': 'text/plain' } }).catch(() => {}));
      navigator.sendBeacon('${target}/' + what);
      navigator.sendBeacon('${target}/' + what, new Blob(['{}'], { type: 'text/plain' }));
    }
    send.push(fetch('${target}/input', { method: 'POST', mode: 'no-cors',
      body: JSON.stringify({ text: 'rm -rf ~', force: true }) }).catch(() => {}));
    send.push(fetch('${target}', { method: 'DELETE', mode: 'no-cors' }).catch(() => {}));
    await Promise.all(send);
    for (const id of ['f1', 'f2', 'f3']) document.getElementById(id).submit();
  };
</script>`;
    evil = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(attackPage);
    });
    evilPort = await listen(evil);
    browser = await launchBrowser(['--host-resolver-rules=MAP evil.example 127.0.0.1']);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    for (const s of [service, evil]) {
      s?.close();
      s?.closeAllConnections();
    }
    http?.close();
    await sup?.stop();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const requestsTo = (suffix: string) =>
    answered.filter((a) => a.path.startsWith('/v1/terminals/a1') && a.path.endsWith(suffix));

  it('a page on another origin posting a form, fetch no-cors and sendBeacon to /interrupt, /resume and /input types nothing', async () => {
    const page: Page = await browser.newPage();
    try {
      await page.goto(`http://evil.example:${evilPort}/`);
      await page.evaluate(() => (window as unknown as { attack(): Promise<void> }).attack());
      // Every attack reached the service (a beacon is sent when the browser gets to it).
      const deadline = Date.now() + 10_000;
      while (
        (requestsTo('/interrupt').length < 5 ||
          requestsTo('/resume').length < 5 ||
          requestsTo('/input').length < 2) &&
        Date.now() < deadline
      ) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(requestsTo('/interrupt').length).toBeGreaterThanOrEqual(5);
      expect(requestsTo('/resume').length).toBeGreaterThanOrEqual(5);
      expect(requestsTo('/input').length).toBeGreaterThanOrEqual(2);
      for (const a of answered.filter((a) => a.method !== 'GET')) {
        expect(a.status, `${a.method} ${a.path}`).toBe(403);
      }
      expect(asked).toEqual([]);
      // The pane saw nothing: still ready, no turn, no interrupt.
      await new Promise((r) => setTimeout(r, 700));
      const s = sup.get('a1');
      expect(s.readiness.status).toBe('ready');
      expect(s.turn.phase).not.toBe('active');
      expect(s.lastTurn.turnId).toBeNull();
      expect(await agent.capture()).not.toMatch(/rm -rf|\^C/);
    } finally {
      await page.close();
    }
  });

  it('a page on a name rebound to loopback neither loads the dashboard nor reads state, nor acts', async () => {
    const before = asked.length;
    const page: Page = await browser.newPage();
    try {
      const res = await page.goto(`http://evil.example:${port}/`);
      expect(res?.status()).toBe(403);
      expect(await page.$('#grid')).toBeNull();
      expect(await page.textContent('body')).toContain('Host');
      const reads = await page.evaluate(async () => {
        const out: Record<string, number> = {};
        for (const path of [
          '/v1/terminals',
          '/v1/terminals/a1',
          '/v1/terminals/a1/screen',
          '/v1/terminals/a1/history',
          '/healthz',
          '/app.js',
        ]) {
          out[path] = (await fetch(path)).status;
        }
        const events = await fetch('/v1/events');
        out['/v1/events'] = events.status;
        // Same origin as far as the browser knows: a JSON post and the custom header pass CORS.
        out['POST /input'] = (
          await fetch('/v1/terminals/a1/input', {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-paneward': '1' },
            body: JSON.stringify({ text: 'exfiltrate', force: true }),
          })
        ).status;
        out['POST /interrupt'] = (
          await fetch('/v1/terminals/a1/interrupt', {
            method: 'POST',
            headers: { 'x-paneward': '1' },
          })
        ).status;
        return out;
      });
      for (const [path, status] of Object.entries(reads)) expect(status, path).toBe(403);
      expect(asked.length).toBe(before);
      expect(
        answered.filter((a) => a.host.startsWith('evil.example')).every((a) => a.status === 403),
      ).toBe(true);
    } finally {
      await page.close();
    }
  });

  it('the dashboard on its own origin still loads and acts (interrupt, with the header it sends)', async () => {
    const page: Page = await browser.newPage();
    try {
      const res = await page.goto(`http://127.0.0.1:${port}/`);
      expect(res?.status()).toBe(200);
      await page.waitForSelector('#connection[data-state="live"]');
      await page.waitForSelector('#grid tr[data-id="a1"]');
      const status = await page.evaluate(async () => {
        const r = await fetch('/v1/terminals/a1/interrupt', {
          method: 'POST',
          headers: { 'x-paneward': '1' },
        });
        return { status: r.status, body: (await r.json()) as { error?: { code: string } } };
      });
      // Past the Host, Origin and header checks, the request reaches the supervisor, whose gate
      // answers for itself: no turn runs in the pane, so there is nothing to interrupt.
      expect(asked).toContain('interrupt');
      expect(status.status).toBe(409);
      expect(status.body.error?.code).toBe('refused');
    } finally {
      await page.close();
    }
  });
});
