// Signed webhooks, headers of one's own and the kind filter: a real receiver on 127.0.0.1 checks
// what arrives; the signature is checked with the code docs/notify.md gives a receiver.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { NotifyConfig } from '../../src/notify/notifier.js';
import { verifyNotification } from '../../src/notify/signature.js';
import { createLogger, serve } from '../../src/serve.js';
import { startServe } from '../../src/cli/serve.js';
import { buildProgram } from '../../src/cli/main.js';
import { NotifyEvent, NotifySignature } from '../../src/schemas/notify.js';
import { start } from './internal/notifier-harness.js';
import { startReceiver } from './internal/receiver.js';
import { testPort } from './internal/test-port.js';

const CAPTURE = fileURLToPath(new URL('./internal/capture-event.mjs', import.meta.url));
const DOCS = fileURLToPath(new URL('../../docs/notify.md', import.meta.url));
const SECRET = 'f3a9c1d27e5b48a6b0c4d9e8f7a6b5c4';

type Verify = (secret: string, header: unknown, raw: Buffer, maxAge?: number) => boolean;

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'pw-notify-auth-'));
  dirs.push(d);
  return d;
}

/** The receiver's check as docs/notify.md prints it: its first `js` block under the heading. */
async function documentedVerify(): Promise<Verify> {
  const text = readFileSync(DOCS, 'utf8');
  const section = text.slice(text.indexOf('## Signed webhooks'));
  const code = /```js\n([\s\S]*?)```/.exec(section)![1]!;
  const file = join(tmp(), 'verify.mjs');
  writeFileSync(file, code);
  const mod = (await import(pathToFileURL(file).href)) as { verifyPaneward: Verify };
  return mod.verifyPaneward;
}

describe('notify: signed webhooks', () => {
  it('signs the exact body bytes with a timestamp; the documented check takes it, and refuses another secret, a changed body or an old request', async () => {
    const verify = await documentedVerify();
    const rx = await startReceiver();
    const p = testPort();
    p.put('t1');
    start(p.port, { webhooks: [rx.url], secret: SECRET });
    const before = Math.floor(Date.now() / 1000);
    p.turnEnded('t1', 'turn-1');
    const [got] = await rx.waitFor(1);
    const after = Math.floor(Date.now() / 1000);
    const header = got!.headers['x-paneward-signature'];
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const { t } = NotifySignature.parse(header);
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(after);
    // The bytes on the wire are the JSON of the event, and they are what is signed.
    expect(got!.raw.toString('utf8')).toBe(JSON.stringify(NotifyEvent.parse(got!.body)));

    expect(verify(SECRET, header, got!.raw)).toBe(true);
    expect(verifyNotification(SECRET, header as string, got!.raw)).toBeNull();
    // Another secret, or one character short of this one.
    expect(verify('another-secret-of-sixteen', header, got!.raw)).toBe(false);
    expect(verify(SECRET.slice(0, -1), header, got!.raw)).toBe(false);
    expect(verifyNotification('another-secret-of-sixteen', header as string, got!.raw)).toBe(
      'mismatch',
    );
    // A body changed on the way: another terminal, or the same object with other spacing.
    const forged = Buffer.from(got!.raw.toString('utf8').replace('"t1"', '"t2"'));
    expect(forged.equals(got!.raw)).toBe(false);
    expect(verify(SECRET, header, forged)).toBe(false);
    const respaced = Buffer.from(JSON.stringify(got!.body, null, 1));
    expect(verify(SECRET, header, respaced)).toBe(false);
    // The same request sent again ten minutes later is too old; a changed `t` does not match.
    vi.spyOn(Date, 'now').mockReturnValue((t + 600) * 1000);
    expect(verify(SECRET, header, got!.raw)).toBe(false);
    vi.restoreAllMocks();
    expect(verifyNotification(SECRET, header as string, got!.raw, { now: t + 600 })).toBe(
      'too_old',
    );
    const shifted = (header as string).replace(/^t=\d+/, `t=${t + 1}`);
    expect(verify(SECRET, shifted, got!.raw)).toBe(false);
    expect(verify(SECRET, undefined, got!.raw)).toBe(false);
    await rx.close();
  });

  it('signs each attempt anew over the same bytes; without a secret there is no signature', async () => {
    const verify = await documentedVerify();
    const rx = await startReceiver((n, res) => res.writeHead(n === 1 ? 500 : 204).end());
    const plain = await startReceiver();
    const p = testPort();
    p.put('t1');
    start(p.port, { webhooks: [rx.url], secret: SECRET, retries: 2 });
    start(p.port, { webhooks: [plain.url] });
    p.turnEnded('t1', 'turn-1');
    const [first, second] = await rx.waitFor(2);
    expect(second!.raw.equals(first!.raw)).toBe(true);
    expect(verify(SECRET, first!.headers['x-paneward-signature'], first!.raw)).toBe(true);
    expect(verify(SECRET, second!.headers['x-paneward-signature'], second!.raw)).toBe(true);
    const [unsigned] = await plain.waitFor(1);
    expect(unsigned!.headers['x-paneward-signature']).toBeUndefined();
    await rx.close();
    await plain.close();
  });
});

describe('notify: headers of ones own', () => {
  it('sends every --notify-header with each POST, beside the content type and signature', async () => {
    const rx = await startReceiver();
    const p = testPort();
    p.put('t1');
    start(p.port, {
      webhooks: [rx.url],
      secret: SECRET,
      headers: [
        { name: 'Authorization', value: 'Bearer abc123' },
        { name: 'X-Tenant', value: 'build farm 7' },
      ],
    });
    p.blocked('t1', 'tool_permission');
    const [got] = await rx.waitFor(1);
    expect(got!.headers).toMatchObject({
      authorization: 'Bearer abc123',
      'x-tenant': 'build farm 7',
      'content-type': 'application/json',
      'user-agent': 'paneward-notify/1',
    });
    expect(got!.headers['x-paneward-signature']).toMatch(/^t=\d+,v1=/);
    await rx.close();
  });
});

describe('notify: kinds', () => {
  it('tells only the kinds asked for, to webhooks and commands alike; the rest are never posted', async () => {
    const rx = await startReceiver();
    const out = join(tmp(), 'events.jsonl');
    const p = testPort();
    p.put('t1');
    const { drafts, metric, until } = start(p.port, {
      webhooks: [rx.url],
      commands: [JSON.stringify([process.execPath, CAPTURE, out])],
      kinds: ['turn_ended', 'gone'],
      debounceMs: 200,
    });
    p.blocked('t1', 'tool_permission');
    p.emit({
      kind: 'state',
      terminalId: 't1',
      t: 2,
      changed: { 'readiness.status': 'stalled', 'diagnostics.availability': 'tui_down' },
      transitions: [],
      evidence: null,
    });
    p.blocked('t1', 'again');
    p.turnEnded('t1', 'turn-1');
    p.emit({ kind: 'terminal.detached', terminalId: 't1' });
    await until(async () => (await metric('paneward_notify_delivered_total', 'exec:1')) === 2);
    await rx.waitFor(2);
    // Past the debounce window: nothing held back comes after.
    await new Promise((r) => setTimeout(r, 500));
    expect(rx.received.map((r) => (r.body as NotifyEvent).kind)).toEqual(['turn_ended', 'gone']);
    const ran = readFileSync(out, 'utf8').trim().split('\n');
    expect(ran.map((l) => (JSON.parse(l) as { env: Record<string, string> }).env)).toMatchObject([
      { PANEWARD_EVENT_KIND: 'turn_ended' },
      { PANEWARD_EVENT_KIND: 'gone' },
    ]);
    expect(drafts.map((d) => ('event' in d ? d.event : null)).sort()).toEqual([
      'gone',
      'gone',
      'turn_ended',
      'turn_ended',
    ]);
    expect(await metric('paneward_notify_coalesced_total', 'question')).toBe(0);
    await rx.close();
  });
});

describe('notify: the options, refused before anything starts', () => {
  /** startServe's error for these options; the data directory must not have been made. */
  async function refused(opts: Record<string, unknown>): Promise<string> {
    const dataDir = join(tmp(), 'data');
    const error = await startServe({
      port: '0',
      dataDir,
      socketName: 'pw-hns-never-started',
      discover: false,
      logLevel: 'silent',
      ...opts,
    }).then(
      async (r) => {
        await r.stop();
        return null;
      },
      (e: Error) => e,
    );
    expect(error, JSON.stringify(opts)).toBeInstanceOf(Error);
    expect(existsSync(dataDir)).toBe(false);
    return error!.message;
  }
  const url = 'http://127.0.0.1:9/hook';

  it('refuses control bytes, reserved names, non-tokens and repeats in --notify-header', async () => {
    const header = (...h: string[]) => refused({ notify: [url], notifyHeader: h });
    expect(await header('X-A: b\r\nHost: evil')).toMatch(
      /^serve: field `notifyHeader\.0`: --notify-header value of X-A holds a control character \(U\+000D\)/,
    );
    expect(await header('X-A: b\nX-B: c')).toMatch(/control character \(U\+000A\)/);
    expect(await header('X-A: b\u0000')).toMatch(
      /value of X-A holds a control character \(U\+0000\)/,
    );
    expect(await header('X-A: tab\there')).toMatch(/control character \(U\+0009\)/);
    expect(await header('X\u0001A: v')).toMatch(
      /field `notifyHeader\.0`: --notify-header name holds a control character \(U\+0001\)/,
    );
    expect(await header('X-A\r\n: v')).toMatch(/name holds a control character \(U\+000D\)/);
    expect(await header('X-A: café')).toMatch(/value of X-A must be printable ASCII/);
    for (const name of ['Host', 'content-length', 'Content-Type', 'x-paneward-signature']) {
      expect(await header(`${name}: x`)).toMatch(
        new RegExp(`field \`notifyHeader\\.0\`: --notify-header cannot set ${name}`),
      );
    }
    expect(await header('Transfer-Encoding: chunked')).toMatch(/cannot set Transfer-Encoding/);
    expect(await header('Bad Name: v')).toMatch(/name "Bad Name" is not a header name/);
    expect(await header('X-A : v')).toMatch(/name "X-A " is not a header name/);
    expect(await header('no colon here')).toMatch(/must be 'Name: value'/);
    expect(await header('X-A:   ')).toMatch(/X-A has no value/);
    expect(await header('X-A: 1', 'x-a: 2')).toMatch(
      /field `notifyHeader\.1`: --notify-header x-a is given twice/,
    );
    // Headers with no webhook to send them to.
    expect(await refused({ notifyHeader: ['X-A: 1'] })).toMatch(
      /field `notifyHeader`: --notify-header needs --notify URL/,
    );
  });

  it('refuses an unknown kind, listing the kinds there are', async () => {
    const valid = 'the kinds are question, turn_ended, stalled, exited, gone, back';
    expect(await refused({ notify: [url], notifyKinds: ['turn_ended,blocked'] })).toBe(
      `serve: field \`notifyKinds\`: --notify-kinds names "blocked", which is not a kind (a blocked terminal is told as \`question\`); ${valid}`,
    );
    expect(await refused({ notify: [url], notifyKinds: ['turn_ended', 'Gone'] })).toMatch(
      new RegExp(`--notify-kinds names "Gone", which is not a kind; ${valid}`),
    );
    expect(await refused({ notify: [url], notifyKinds: ['question,'] })).toMatch(
      /--notify-kinds names an empty kind/,
    );
    expect(await refused({ notifyKinds: ['question'] })).toMatch(
      /field `notifyKinds`: --notify-kinds needs --notify URL or --notify-exec CMD/,
    );
  });

  it('reads the secret from a regular file only, at least 16 characters, and only with --notify', async () => {
    const d = tmp();
    const short = join(d, 'short.key');
    writeFileSync(short, 'too-short\n');
    const empty = join(d, 'empty.key');
    writeFileSync(empty, '\n');
    const fifo = join(d, 'fifo.key');
    execFileSync('mkfifo', [fifo]);
    const good = join(d, 'good.key');
    writeFileSync(good, `${SECRET}\n`);
    chmodSync(good, 0o600);
    const secret = (file: string) => refused({ notify: [url], notifySecretFile: file });
    expect(await secret(short)).toMatch(
      /field `notifySecretFile`: the secret in .*short\.key must be at least 16 characters/,
    );
    expect(await secret(empty)).toMatch(/field `notifySecretFile`: .*empty\.key is empty/);
    expect(await secret(fifo)).toMatch(/field `notifySecretFile`: .*fifo\.key is a FIFO/);
    expect(await secret(d)).toMatch(/field `notifySecretFile`: .* is a directory/);
    expect(await secret(join(d, 'absent'))).toMatch(/cannot read .*absent \(ENOENT\)/);
    expect(await refused({ notifySecretFile: good })).toMatch(
      /field `notifySecretFile`: --notify-secret-file needs --notify URL/,
    );
  });

  it('refuses, as a library, headers and kinds a notifier could not use', async () => {
    const base = { host: '127.0.0.1', port: 0, token: null, logger: createLogger('silent') };
    const bad = async (notify: Partial<NotifyConfig>) =>
      serve({
        ...base,
        notify: { webhooks: [url], commands: [], ...notify } as NotifyConfig,
        fleet: { nats: 'nats://127.0.0.1:1', token: null, natsAuth: {} },
      }).then(
        () => 'started',
        (e: Error) => e.message,
      );
    expect(await bad({ headers: [{ name: 'X-A', value: 'a\r\nHost: b' }] })).toMatch(
      /field `notifyHeader\.0`: --notify-header value of X-A holds a control character/,
    );
    expect(await bad({ headers: [{ name: 'Host', value: 'b' }] })).toMatch(/cannot set Host/);
    expect(await bad({ kinds: ['blocked' as never] })).toMatch(/"blocked", which is not a kind/);
    expect(await bad({ secret: 'short' })).toMatch(/at least 16 characters/);
    expect(await bad({ webhooks: [], secret: SECRET })).toMatch(/needs --notify URL/);
  });
});

describe('paneward serve --help', () => {
  it('lists the signature, header and kind options', async () => {
    const program = await buildProgram();
    const help = program.commands.find((c) => c.name() === 'serve')!.helpInformation();
    expect(help).toMatch(/--notify-secret-file <file>\s+sign each webhook POST/);
    expect(help).toMatch(/--notify-header <header>\s+send this 'Name: value' header/);
    expect(help).toMatch(/--notify-kinds <kinds>\s+tell only these kinds/);
  });
});
