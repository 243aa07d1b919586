// `paneward serve` with a signing secret, a header and a kind filter, end to end: a stand-in
// agent on real tmux, the options as the command line hands them over, a real receiver on
// 127.0.0.1 checking the signature with the code docs/notify.md gives.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServer } from '../../src/cli/serve.js';
import { NotifyEvent } from '../../src/schemas/notify.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT } from '../supervisor/internal/stand-in-profile.js';
import { startReceiver } from './internal/receiver.js';

const PROFILES = fileURLToPath(new URL('../fleet/internal/profiles.ts', import.meta.url));
const DOCS = fileURLToPath(new URL('../../docs/notify.md', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/paneward.js', import.meta.url));
const SECRET = '9c2e7f41b8d35a60e1f4c7b29d08a3e5';

type Verify = (secret: string, header: unknown, raw: Buffer, maxAge?: number) => boolean;

describe('paneward serve --notify-secret-file --notify-header --notify-kinds, end to end', () => {
  let agent: AgentSession;
  let dir: string;
  let running: RunningServer | null = null;
  let verify: Verify;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-serve-notify-signed-'));
    const text = readFileSync(DOCS, 'utf8');
    const code = /```js\n([\s\S]*?)```/.exec(text.slice(text.indexOf('## Signed webhooks')))![1]!;
    writeFileSync(join(dir, 'verify.mjs'), code);
    verify = (
      (await import(pathToFileURL(join(dir, 'verify.mjs')).href)) as { verifyPaneward: Verify }
    ).verifyPaneward;
    agent = await startAgentSession({
      socketName: uniqueSocketName('pw-hns-e2e'),
      cwd: dir,
      env: { STAND_IN_WORK_MS: '400' },
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
  });

  afterAll(async () => {
    await running?.stop();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('posts only the ended turn, signed and with the header; the question before it is not posted', async () => {
    const rx = await startReceiver();
    const keyFile = join(dir, 'notify.key');
    writeFileSync(keyFile, `${SECRET}\n`, { mode: 0o600 });
    let log = '';
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _enc, done) {
          log += chunk.toString('utf8');
          done();
        },
      }),
    );
    running = await startServe(
      {
        port: '0',
        dataDir: join(dir, 'data'),
        socketName: agent.socketName,
        discover: false,
        logLevel: 'silent',
        pollInterval: '0.1',
        settle: '0.3',
        profileModule: PROFILES,
        notify: [rx.url],
        notifySecretFile: keyFile,
        notifyHeader: ['Authorization: Bearer receiver-token-1'],
        notifyKinds: ['turn_ended'],
        notifyDebounce: '0',
      },
      logger,
    );
    // The start line says the webhook is signed, which header and kinds; never a secret.
    const listening = log.split('\n').find((l) => l.includes('paneward serve listening'))!;
    expect(JSON.parse(listening)).toMatchObject({
      notify: ['webhook:1 http://127.0.0.1:' + new URL(rx.url).port],
      notifySigned: true,
      notifyHeaders: ['Authorization'],
      notifyKinds: ['turn_ended'],
    });
    const sup = running.supervisor!;
    const id = await sup.attach({ target: agent.target, tool: 'stand_in', id: 's1' });
    const until = async (check: () => boolean, ms = 20_000) => {
      const end = Date.now() + ms;
      while (!check()) {
        if (Date.now() > end) throw new Error('timed out waiting');
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await until(() => sup.get(id).readiness.status === 'ready');
    // The stand-in agent asks before it works on an `ask:` prompt: the terminal is blocked.
    const turnId = await sup.submit(id, 'ask: may I run the tests', {});
    await until(() => sup.get(id).readiness.status === 'blocked');
    await agent.sendText('y');
    await agent.sendKeys('Enter');
    const [got] = await rx.waitFor(1, 20_000);
    expect(NotifyEvent.parse(got!.body)).toMatchObject({
      kind: 'turn_ended',
      terminalId: 's1',
      turnId,
      outcome: 'success',
    });
    expect(got!.headers.authorization).toBe('Bearer receiver-token-1');
    const signature = got!.headers['x-paneward-signature'];
    expect(verify(SECRET, signature, got!.raw)).toBe(true);
    expect(verify('not-the-secret-at-all', signature, got!.raw)).toBe(false);
    expect(verify(SECRET, signature, Buffer.from(`${got!.raw.toString('utf8')} `))).toBe(false);
    // The question was seen (the journal has it) but never posted.
    const blocked = (sup.history(id, 500) as Array<{ kind: string; changed?: object }>).some(
      (r) => r.kind === 'state' && JSON.stringify(r.changed).includes('"blocked"'),
    );
    expect(blocked).toBe(true);
    await new Promise((r) => setTimeout(r, 1000));
    expect(rx.received.map((r) => (r.body as NotifyEvent).kind)).toEqual(['turn_ended']);
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metrics).toMatch(/^paneward_notify_delivered_total\{sink="webhook:1"\} 1$/m);
    await running.stop();
    running = null;
    expect(log).not.toContain(SECRET);
    expect(log).not.toContain('receiver-token-1');
    await rx.close();
  }, 90_000);

  it('the command line refuses a header with a CR in it, naming the option, and exits 2', async () => {
    const rx = await startReceiver();
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [
          BIN,
          'serve',
          '--port',
          '0',
          '-L',
          uniqueSocketName('pw-hns-cli'),
          '--no-discover',
          '--data-dir',
          join(dir, 'cli-data'),
          '--notify',
          rx.url,
          '--notify-header',
          'X-Tenant: a\r\nHost: evil.example',
        ],
        { timeout: 60_000 },
        (_error, _stdout, stderr) => resolve({ code: child.exitCode, stderr }),
      );
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^paneward: serve: --notify-header value of X-Tenant holds a control character \(U\+000D\)$/m,
    );
    expect(rx.received).toHaveLength(0);
    await rx.close();
  }, 90_000);
});
