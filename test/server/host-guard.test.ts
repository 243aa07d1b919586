import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServer } from '../../src/cli/serve.js';
import { hostName } from '../../src/server/app.js';

/** One raw request: `fetch` would not let a test choose `Host`. */
function call(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('paneward serve answers only to its own names and its own origin', () => {
  let dir: string;
  let running: RunningServer;
  let port = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-host-'));
    running = await startServe({
      port: '0',
      dataDir: join(dir, 'data'),
      socketName: 'pw-host-guard-test',
      discover: false,
      logLevel: 'silent',
      allowedHost: ['paneward.lan'],
      cors: ['https://ops.example'],
    });
    port = Number(new URL(running.url).port);
  });

  afterAll(async () => {
    await running?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves loopback names and --allowed-host ones; refuses any other Host naming it, dashboard included', async () => {
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `[::1]:${port}`,
      `paneward.lan:${port}`,
      'PANEWARD.LAN',
    ]) {
      expect((await call(port, 'GET', '/healthz', { host })).status, host).toBe(200);
    }
    for (const host of [
      `evil.example:${port}`,
      `paneward.lan.evil.example:${port}`,
      `127.0.0.2:${port}`,
    ]) {
      for (const path of ['/', '/healthz', '/v1/terminals', '/v1/events']) {
        const r = await call(port, 'GET', path, { host });
        expect(r.status, `${host} ${path}`).toBe(403);
        expect(JSON.parse(r.text)).toMatchObject({ error: { code: 'forbidden' } });
        expect(r.text).toContain('header `Host`');
      }
    }
  });

  it('an action from its own origin, or an allowed CORS one, passes; from any other origin it is refused', async () => {
    const post = (origin: string | undefined, extra: Record<string, string> = {}) =>
      call(port, 'POST', '/v1/terminals/nope/interrupt', {
        host: `127.0.0.1:${port}`,
        ...(origin ? { origin } : {}),
        ...extra,
      });
    // Past the guard, the terminal is unknown: 404.
    expect((await post(undefined, { 'x-paneward': '1' })).status).toBe(404);
    expect((await post(`http://127.0.0.1:${port}`, { 'x-paneward': '1' })).status).toBe(404);
    expect((await post('https://ops.example', { 'x-paneward': '1' })).status).toBe(404);
    for (const origin of [
      `http://localhost:${port + 1}`,
      'http://127.0.0.1:1',
      'null',
      'https://evil.example',
    ]) {
      const r = await post(origin, { 'x-paneward': '1' });
      expect(r.status, origin).toBe(403);
      expect(r.text).toContain('header `Origin`');
    }
    // Neither a JSON body nor the header: what a form or a beacon sends.
    const bare = await post(undefined);
    expect(bare.status).toBe(403);
    expect(bare.text).toContain('header `Content-Type`');
    const json = await call(
      port,
      'DELETE',
      '/v1/terminals/nope',
      {
        host: `localhost:${port}`,
        'content-type': 'application/json; charset=utf-8',
        'content-length': '2',
      },
      '{}',
    );
    expect(json.status).toBe(404);
  });

  it('refuses a malformed --allowed-host naming the option', async () => {
    await expect(
      startServe({ allowedHost: ['evil.example/path'], logLevel: 'silent', discover: false }),
    ).rejects.toThrow(/field `allowedHost.0`: --allowed-host must be a host name/);
  });

  it('hostName: the name of a Host header, in lower case, without port', () => {
    expect(hostName('LocalHost:7420')).toBe('localhost');
    expect(hostName('[::1]:7420')).toBe('[::1]');
    expect(hostName('::1')).toBe('[::1]');
    expect(hostName('example.com')).toBe('example.com');
  });
});
