// `--notify-header-file`: headers read from a real file, sent with each webhook POST to a real
// receiver on 127.0.0.1 (an event from a stand-in agent on real tmux), and every bad line
// refused at start naming the option, the file and the line, through the command line too.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe } from '../../src/cli/serve.js';
import { NotifyEvent } from '../../src/schemas/notify.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT } from '../supervisor/internal/stand-in-profile.js';
import { startReceiver } from './internal/receiver.js';

const PROFILES = fileURLToPath(new URL('../fleet/internal/profiles.ts', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/paneward.js', import.meta.url));

describe('paneward serve --notify-header-file', () => {
  let dir: string;
  let agent: AgentSession;
  const file = (name: string, text: string, mode = 0o600) => {
    const f = join(dir, name);
    writeFileSync(f, text, { mode });
    return f;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-notify-header-file-'));
    agent = await startAgentSession({
      socketName: uniqueSocketName('pw-header-file'),
      cwd: dir,
      env: {},
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
  }, 60_000);

  afterAll(async () => {
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("sends the file's headers, beside --notify-header's, with each POST", async () => {
    const rx = await startReceiver();
    // A token that `ps` must not show, a blank line, and a file others may read (not checked).
    const headers = file(
      'hook.headers',
      'Authorization: Bearer s3cr3t-from-a-file\n\nX-Tenant:   build farm 7  \n',
      0o644,
    );
    const running = await startServe({
      port: '0',
      dataDir: join(dir, 'data'),
      socketName: agent.socketName,
      discover: false,
      logLevel: 'silent',
      pollInterval: '0.1',
      profileModule: PROFILES,
      notify: [rx.url],
      notifyHeader: ['X-From-Flag: yes'],
      notifyHeaderFile: headers,
      notifyKinds: ['gone'],
    });
    try {
      const post = async (method: string, path: string, body?: unknown) =>
        fetch(`${running.url}${path}`, {
          method,
          headers: body ? { 'content-type': 'application/json' } : { 'x-paneward': '1' },
          body: body ? JSON.stringify(body) : undefined,
        });
      const attached = await post('POST', '/v1/terminals', {
        target: agent.target,
        tool: 'stand_in',
        id: 'h1',
      });
      expect(attached.status).toBe(201);
      expect((await post('DELETE', '/v1/terminals/h1')).status).toBeLessThan(300);
      const [got] = await rx.waitFor(1);
      expect(NotifyEvent.parse(got!.body)).toMatchObject({ kind: 'gone', terminalId: 'h1' });
      expect(got!.headers).toMatchObject({
        authorization: 'Bearer s3cr3t-from-a-file',
        'x-tenant': 'build farm 7',
        'x-from-flag': 'yes',
        'content-type': 'application/json',
      });
    } finally {
      await running.stop();
      await rx.close();
    }
  }, 60_000);

  /** startServe's error for a header file; the data directory must not have been made. */
  async function refused(text: string | null, more: Record<string, unknown> = {}) {
    const dataDir = join(dir, `never-${Math.random().toString(36).slice(2)}`);
    const headers = typeof text === 'string' ? file('bad.headers', text) : undefined;
    const error = await startServe({
      port: '0',
      dataDir,
      socketName: 'pw-header-file-never-started',
      discover: false,
      logLevel: 'silent',
      notify: ['http://127.0.0.1:9/hook'],
      ...(headers ? { notifyHeaderFile: headers } : {}),
      ...more,
    }).then(
      async (r) => {
        await r.stop();
        return null;
      },
      (e: Error) => e,
    );
    expect(error, String(text)).toBeInstanceOf(Error);
    expect(existsSync(dataDir)).toBe(false);
    return error!.message;
  }

  it('refuses a control character, a bad or reserved name and a repeat, naming the line', async () => {
    const at = (line: number) =>
      `field \`notifyHeaderFile\`: --notify-header-file ${join(dir, 'bad.headers')} line ${line}: `;
    expect(await refused('X-A: 1\nX-B: a\tb\n')).toBe(
      `${at(2)}value of X-B holds a control character (U+0009)`,
    );
    // A CR (a file with CRLF endings) would end a header on the wire: refused as the flag does.
    expect(await refused('X-A: 1\r\nX-B: 2\r\n')).toBe(
      `${at(1)}value of X-A holds a control character (U+000D)`,
    );
    expect(await refused('\nX-A: 1\n\nX\u0001B: 2')).toBe(
      `${at(4)}name holds a control character (U+0001)`,
    );
    expect(await refused('X A: 1')).toMatch(new RegExp(`^${escape(at(1))}name "X A" is not`));
    expect(await refused('no colon here')).toMatch(/line 1: must be 'Name: value'/);
    expect(await refused('Host: example.com')).toBe(
      `${at(1)}cannot set Host: paneward sets it (or it is not for a webhook to be given)`,
    );
    expect(await refused('X-A: \n')).toBe(`${at(1)}X-A has no value`);
    expect(await refused('X-A: 1\nx-a: 2')).toMatch(/line 2: x-a is given twice/);
    expect(await refused('X-A: 1', { notifyHeader: ['x-A: 0'] })).toMatch(
      /line 1: X-A is given twice \(in the file or by --notify-header\)/,
    );
  });

  it('refuses an empty file, a FIFO, a directory, a missing file, and the option without --notify', async () => {
    expect(await refused('\n\n')).toMatch(/field `notifyHeaderFile`: .*bad\.headers is empty/);
    const fifo = join(dir, 'fifo.headers');
    execFileSync('mkfifo', [fifo]);
    expect(await refused(null, { notifyHeaderFile: fifo })).toMatch(
      /field `notifyHeaderFile`: .*fifo\.headers is a FIFO; the headers must be in a regular file/,
    );
    const d = join(dir, 'a-dir');
    mkdirSync(d);
    expect(await refused(null, { notifyHeaderFile: d })).toMatch(/is a directory/);
    expect(await refused(null, { notifyHeaderFile: join(dir, 'absent') })).toMatch(
      /field `notifyHeaderFile`: cannot read .*absent \(ENOENT\)/,
    );
    expect(
      await refused(null, { notify: [], notifyHeaderFile: file('ok.headers', 'X-A: 1') }),
    ).toMatch(/field `notifyHeaderFile`: --notify-header-file needs --notify URL/);
  });

  it('the command line refuses a bad line before serving, and --help lists the option', async () => {
    const bad = file('cli.headers', 'X-Ok: 1\nX-Bad: a\u0000b\n');
    const run = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [
          BIN,
          'serve',
          '--port',
          '0',
          '-L',
          'pw-header-file-never-started',
          '--data-dir',
          join(dir, 'cli-data'),
          '--notify',
          'http://127.0.0.1:9/hook',
          '--notify-header-file',
          bad,
        ],
        { encoding: 'utf8', timeout: 30_000 },
        (error, _stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stderr }),
      ),
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      `--notify-header-file ${bad} line 2: value of X-Bad holds a control character (U+0000)`,
    );
    expect(existsSync(join(dir, 'cli-data'))).toBe(false);
    const help = execFileSync(process.execPath, [BIN, 'serve', '--help'], { encoding: 'utf8' });
    expect(help).toMatch(/--notify-header-file <file>\s+send the headers in this file/);
  }, 60_000);
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
