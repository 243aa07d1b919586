import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe } from '../../src/cli/serve.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('paneward serve, started', () => {
  it('refuses a port in use naming the field, and leaves nothing running: the data directory can be used at once', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
    const port = (busy.address() as { port: number }).port;
    const dataDir = mkdtempSync(join(tmpdir(), 'pw-serve-'));
    dirs.push(dataDir);
    const options = {
      port: String(port),
      dataDir,
      socketName: 'pw-serve-port-test',
      discover: false,
      logLevel: 'silent',
    };
    await expect(startServe(options)).rejects.toThrow(
      new RegExp(`field \`port\`: cannot listen on 127.0.0.1:${port}: the port is in use`),
    );
    busy.close();
    // The journal's lock was released: a second start on the same directory works.
    const running = await startServe(options);
    expect(running.url).toBe(`http://127.0.0.1:${port}`);
    await running.stop();
  });

  it('refuses bad options naming the field before anything starts', async () => {
    await expect(startServe({ source: 'carrier-pigeon', logLevel: 'silent' })).rejects.toThrow(
      /serve: field `source`/,
    );
    await expect(startServe({ inspect: 'abc', logLevel: 'silent' })).rejects.toThrow(
      /serve: field `inspect`/,
    );
  });
});
