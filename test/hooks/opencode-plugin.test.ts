import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installHooks, uninstallHooks, opencodePluginFile } from '../../src/hooks/install.js';
import { hookTurnEvent } from '../../src/hooks/events.js';

/** Events as opencode 1.18.33 hands them to a plugin (captured offline; only what matters). */
const status = (type: string) => ({
  type: 'session.status',
  properties: { sessionID: 's', status: { type } },
});
const idle = { type: 'session.idle', properties: { sessionID: 's' } };
const error = (name: string) => ({
  type: 'session.error',
  properties: { sessionID: 's', error: { name, data: { message: 'SECRET' } } },
});
const SUCCESS = [
  status('busy'),
  { type: 'message.updated', properties: {} },
  status('busy'),
  status('idle'),
  idle,
];
const INTERRUPTED = [
  status('busy'),
  status('busy'),
  error('MessageAbortedError'),
  status('idle'),
  idle,
  status('idle'),
  idle,
];
const FAILED = [
  status('busy'),
  status('busy'),
  error('APIError'),
  status('idle'),
  idle,
  status('idle'),
  idle,
];

describe('the opencode plugin', () => {
  let dir: string;
  let server: Server;
  const got: Array<{
    url: string;
    auth: string | undefined;
    body: { event: string; error?: string };
  }> = [];
  const saved = { pane: process.env.TMUX_PANE, tmux: process.env.TMUX };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-oc-plugin-'));
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        got.push({ url: req.url ?? '', auth: req.headers.authorization, body: JSON.parse(text) });
        res.writeHead(200).end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    process.env.TMUX_PANE = '%3';
    process.env.TMUX = '/tmp/tmux-1/default,99,0';
  });
  afterAll(async () => {
    process.env.TMUX_PANE = saved.pane;
    process.env.TMUX = saved.tmux;
    if (saved.pane === undefined) delete process.env.TMUX_PANE;
    if (saved.tmux === undefined) delete process.env.TMUX;
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('installed, passes on busy, the error kind and a clean idle, which read as the right endings', async () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const env = { XDG_CONFIG_HOME: join(dir, 'config') };
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'a-token-of-at-least-sixteen-characters\n');
    expect(installHooks('opencode', { url, tokenFile, scope: 'user', env }).result).toBe(
      'installed',
    );
    const file = opencodePluginFile({ env });
    const plugin = (await import(pathToFileURL(file).href)) as {
      PanewardHook: () => Promise<{ event: (x: { event: unknown }) => Promise<void> }>;
    };
    const hooks = await plugin.PanewardHook();
    const run = async (events: unknown[]) => {
      for (const event of events) await hooks.event({ event });
      await new Promise((r) => setTimeout(r, 150));
    };
    await run(SUCCESS);
    await run(INTERRUPTED);
    await run(FAILED);
    expect(got.map((g) => g.body)).toEqual([
      { event: 'session.busy', pane: '%3', tmux: '/tmp/tmux-1/default,99,0' },
      { event: 'session.idle', pane: '%3', tmux: '/tmp/tmux-1/default,99,0' },
      { event: 'session.busy', pane: '%3', tmux: '/tmp/tmux-1/default,99,0' },
      {
        event: 'session.error',
        pane: '%3',
        tmux: '/tmp/tmux-1/default,99,0',
        error: 'MessageAbortedError',
      },
      { event: 'session.busy', pane: '%3', tmux: '/tmp/tmux-1/default,99,0' },
      { event: 'session.error', pane: '%3', tmux: '/tmp/tmux-1/default,99,0', error: 'APIError' },
    ]);
    expect(got.every((g) => g.url === '/v1/hooks/opencode')).toBe(true);
    expect(got[0]!.auth).toBe('Bearer a-token-of-at-least-sixteen-characters');
    expect(JSON.stringify(got)).not.toContain('SECRET');
    expect(got.map((g) => hookTurnEvent('opencode', g.body.event, g.body.error))).toEqual([
      { type: 'turn_started', event: 'session.busy' },
      { type: 'turn_ended', event: 'session.idle', ending: { reason: 'success' } },
      { type: 'turn_started', event: 'session.busy' },
      { type: 'turn_ended', event: 'session.error', ending: { reason: 'interrupted' } },
      { type: 'turn_started', event: 'session.busy' },
      {
        type: 'turn_ended',
        event: 'session.error',
        ending: { reason: 'known_failure', kind: 'APIError' },
      },
    ]);
    // A plugin of the user's under that name is never overwritten; uninstall removes ours only.
    expect(uninstallHooks('opencode', { scope: 'user', env }).result).toBe('removed');
    expect(readdirSync(join(dir, 'config', 'opencode', 'plugin'))).toEqual([]);
    mkdirSync(join(dir, 'config', 'opencode', 'plugin'), { recursive: true });
    writeFileSync(file, 'export const Mine = 1;\n');
    expect(() => installHooks('opencode', { url, scope: 'user', env })).toThrow(file);
    expect(uninstallHooks('opencode', { scope: 'user', env }).result).toBe('absent');
    expect(readFileSync(file, 'utf8')).toBe('export const Mine = 1;\n');
  });
});
