import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXIT } from '../../src/cli/client.js';
import { main } from '../../src/cli/main.js';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import { createHttpApp, type HttpApp } from '../../src/server/app.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../e2e/harness/session.js';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((c) => ((out += String(c)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((c) => ((err += String(c)), true));
  try {
    const code = await main(argv);
    return { code, out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

describe('the command line goes through the gate', () => {
  let shell: AgentSession;
  let dir: string;
  let sup: Supervisor;
  let http: HttpApp;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-gate-cli-'));
    // A plain shell: no agent CLI runs in it.
    shell = await startAgentSession({
      socketName: uniqueSocketName('gate'),
      cwd: dir,
      env: {},
      command: ['sh', '-c', 'echo READY; exec cat'],
    });
    await shell.waitForText(/READY/);
    sup = createSupervisor({
      socketName: shell.socketName,
      dataDir: null,
      config: { pollIntervalSeconds: 0.1 },
    });
    http = createHttpApp(sup);
    server = createServer(http.listener);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });

  afterAll(async () => {
    server?.close();
    server?.closeAllConnections();
    http?.close();
    await sup?.stop();
    await shell?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('interrupt, resume and send to a plain shell are refused (exit 3), and nothing is typed', async () => {
    const id = await sup.attach({ target: shell.target });
    await firstValueFrom(
      sup.state$(id).pipe(
        filter((s) => s.tool === 'unsupported' && s.diagnostics.parse === 'unsupported_tool'),
        timeout(10_000),
      ),
    );
    expect(sup.operations(id).interrupt).toEqual({
      allowed: 'no',
      reason: 'no agent CLI in this pane',
    });
    const before = await shell.capture();
    const interrupt = await cli('interrupt', id, '--url', url);
    expect(interrupt.code).toBe(EXIT.notReady);
    expect(interrupt.err).toContain('no agent CLI in this pane');
    const resume = await cli('resume', id, '--url', url);
    expect(resume.code).toBe(EXIT.notReady);
    expect(resume.err).toContain('the session is not blocked');
    const send = await cli('send', id, 'echo typed;', '--url', url);
    expect(send.code).toBe(EXIT.notReady);
    await new Promise((r) => setTimeout(r, 300));
    // cat still runs (no Ctrl-C reached it) and nothing was typed.
    expect(await shell.capture()).toBe(before);
    expect(sup.get(id).diagnostics.process).not.toBe('tui_down');
  });

  it('a prompt with a NUL or an escape is a 400 naming `text`, never a 500, never echoed', async () => {
    const [id] = sup.ids();
    for (const text of ['secret\u0000', 'secret\u001b[201~', 'secret\r']) {
      const r = await fetch(`${url}/v1/terminals/${id}/input`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text, force: true }),
      });
      expect(r.status).toBe(400);
      const body = await r.text();
      expect(body).toContain('`text`');
      expect(body).toContain('control characters');
      expect(body).not.toContain('secret');
    }
  });
});
