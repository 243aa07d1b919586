import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Registry } from 'prom-client';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Notifier, type NotifyConfig } from '../../src/notify/notifier.js';
import { happeningsOf } from '../../src/notify/events.js';
import { parseCommand } from '../../src/notify/sinks.js';
import { NotifyEvent } from '../../src/schemas/notify.js';
import { JournalRecord, type RecordDraft } from '../../src/schemas/record.js';
import type { SupervisorPort } from '../../src/service/port.js';
import { startReceiver } from './internal/receiver.js';
import { testPort } from './internal/test-port.js';

const CAPTURE = fileURLToPath(new URL('./internal/capture-event.mjs', import.meta.url));

const running: Array<{ stop(): Promise<void> }> = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function start(port: SupervisorPort, config: Partial<NotifyConfig>) {
  const drafts: RecordDraft[] = [];
  const registry = new Registry();
  const n = new Notifier(
    port,
    { webhooks: [], commands: [], debounceMs: 0, backoffMs: 20, ...config },
    { append: (d) => drafts.push(d) },
  );
  n.register(registry);
  running.push(n);
  /** The value of a counter or gauge for one sink (0 when it has none). */
  const metric = async (name: string, sink: string) => {
    const text = await registry.metrics();
    const m = new RegExp(`^${name}\\{sink="${sink}"\\} (\\d+)$`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  };
  /** Waits until `check` holds (the deliveries run on their own). */
  const until = async (check: () => boolean | Promise<boolean>, ms = 10_000) => {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error('timed out waiting');
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { n, drafts, registry, metric, until };
}

/** A draft as the journal would write it: the journal's schema must take it. */
const asRecord = (d: RecordDraft) =>
  JournalRecord.parse({ v: 1, seq: 1, at: new Date().toISOString(), ...d });

describe('notify: webhooks', () => {
  it('POSTs the exact payload of an ended turn, counts it delivered and journals the outcome', async () => {
    const rx = await startReceiver();
    const p = testPort();
    p.put('t1', (s) => {
      s.readiness.status = 'ready';
      s.turn.phase = 'ready';
      s.diagnostics.availability = 'available';
      s.lastTurn = { result: 'success', source: 'explicit_input', turnId: 'turn-3', at: 2 };
    });
    const { drafts, metric, until } = start(p.port, { webhooks: [rx.url] });
    p.turnEnded('t1', 'turn-3');
    const [got] = await rx.waitFor(1);
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.body).toEqual({
      version: 1,
      kind: 'turn_ended',
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      terminalId: 't1',
      tool: 'stand_in',
      turnId: 'turn-3',
      outcome: 'success',
      coalesced: 1,
      state: {
        readiness: 'ready',
        phase: 'ready',
        availability: 'available',
        lastTurn: { result: 'success', turnId: 'turn-3' },
      },
    });
    expect(NotifyEvent.safeParse(got!.body).success).toBe(true);
    await until(async () => (await metric('paneward_notify_delivered_total', 'webhook:1')) === 1);
    expect(await metric('paneward_notify_failed_total', 'webhook:1')).toBe(0);
    expect(drafts.map(asRecord)).toMatchObject([
      {
        kind: 'notify.delivery',
        terminalId: 't1',
        sink: 'webhook:1',
        event: 'turn_ended',
        outcome: 'delivered',
        attempts: 1,
        turnId: 'turn-3',
      },
    ]);
    // The journal record names the sink, not its URL.
    expect(JSON.stringify(drafts)).not.toContain('127.0.0.1');
    await rx.close();
  });

  it('retries a receiver that answers 500, then counts it failed', async () => {
    const rx = await startReceiver((_, res) => res.writeHead(500).end('no'));
    const p = testPort();
    p.put('t1');
    const { drafts, metric, until } = start(p.port, { webhooks: [rx.url], retries: 2 });
    p.turnEnded('t1', 'turn-1', 'interrupted');
    await rx.waitFor(3);
    await until(async () => (await metric('paneward_notify_failed_total', 'webhook:1')) === 1);
    expect(await metric('paneward_notify_retried_total', 'webhook:1')).toBe(2);
    expect(await metric('paneward_notify_delivered_total', 'webhook:1')).toBe(0);
    // The waits between attempts double: 20 ms, then 40 ms.
    const [a, b, c] = rx.received.map((r) => r.at);
    expect(b! - a!).toBeGreaterThanOrEqual(15);
    expect(c! - b!).toBeGreaterThanOrEqual(35);
    expect(rx.received).toHaveLength(3);
    expect(drafts.map(asRecord)).toMatchObject([
      { sink: 'webhook:1', outcome: 'failed', attempts: 3, error: 'HTTP 500' },
    ]);
    await rx.close();
  });

  it('gives up on a slow receiver after the timeout and delivers on the retry', async () => {
    const rx = await startReceiver(async (n, res) => {
      if (n === 1) await new Promise((r) => setTimeout(r, 1500));
      res.writeHead(200).end('ok');
    });
    const p = testPort();
    p.put('t1');
    const { drafts, metric, until } = start(p.port, {
      webhooks: [rx.url],
      timeoutMs: 300,
      retries: 2,
    });
    const t0 = Date.now();
    p.turnEnded('t1', 'turn-1');
    await until(async () => (await metric('paneward_notify_delivered_total', 'webhook:1')) === 1);
    // Not held up by the slow answer: delivered on the second attempt, well before it came.
    expect(Date.now() - t0).toBeLessThan(1400);
    expect(await metric('paneward_notify_retried_total', 'webhook:1')).toBe(1);
    expect(drafts.map(asRecord)).toMatchObject([{ outcome: 'delivered', attempts: 2 }]);
    await rx.close();
  });

  it('counts a dead receiver (connection refused) failed after its retries', async () => {
    const rx = await startReceiver();
    const url = rx.url;
    await rx.close();
    const p = testPort();
    p.put('t1');
    const { drafts, metric, until } = start(p.port, { webhooks: [url], retries: 1 });
    p.turnEnded('t1', 'turn-1');
    await until(async () => (await metric('paneward_notify_failed_total', 'webhook:1')) === 1);
    expect(await metric('paneward_notify_retried_total', 'webhook:1')).toBe(1);
    expect(drafts.map(asRecord)).toMatchObject([
      { outcome: 'failed', attempts: 2, error: 'ECONNREFUSED' },
    ]);
  });

  it('drops what a full queue cannot take, counted, without holding up the caller', async () => {
    // The receiver never answers: one delivery stays in flight, two wait, the rest are dropped.
    const rx = await startReceiver(() => {});
    const p = testPort();
    for (let i = 0; i < 10; i++) p.put(`t${i}`);
    const { drafts, metric } = start(p.port, {
      webhooks: [rx.url],
      queueSize: 2,
      timeoutMs: 60_000,
    });
    const t0 = performance.now();
    p.turnEnded('t0', 'turn-1');
    await rx.waitFor(1);
    for (let i = 1; i < 10; i++) p.turnEnded(`t${i}`, 'turn-1');
    // Handing ten events over takes no time: nothing waits on the receiver.
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(await metric('paneward_notify_dropped_total', 'webhook:1')).toBe(7);
    expect(await metric('paneward_notify_queued', 'webhook:1')).toBe(2);
    const dropped = drafts.map(asRecord).filter((r) => r.kind === 'notify.delivery');
    expect(dropped).toHaveLength(7);
    expect(dropped.every((r) => 'outcome' in r && r.outcome === 'dropped')).toBe(true);
    expect(dropped.map((r) => r.terminalId)).toEqual(['t3', 't4', 't5', 't6', 't7', 't8', 't9']);
    await rx.close();
  });

  it('coalesces events of one kind for one terminal within the debounce window', async () => {
    const rx = await startReceiver();
    const p = testPort();
    p.put('t1');
    p.put('t2');
    const { metric, registry } = start(p.port, { webhooks: [rx.url], debounceMs: 400 });
    const t0 = Date.now();
    p.blocked('t1', 'first question');
    p.blocked('t1', 'second question');
    p.blocked('t1', 'third question');
    p.blocked('t2', 'other terminal');
    p.turnEnded('t1', 'turn-1');
    // At once: the first of t1's questions, t2's and the turn's end (another kind).
    const first = await rx.waitFor(3);
    expect(first.map((r) => r.body)).toMatchObject([
      { kind: 'question', terminalId: 't1', prompt: 'first question', coalesced: 1 },
      { kind: 'question', terminalId: 't2', prompt: 'other terminal', coalesced: 1 },
      { kind: 'turn_ended', terminalId: 't1', coalesced: 1 },
    ]);
    // When the window ends: the latest of the two held back, counting both.
    const all = await rx.waitFor(4);
    expect(all[3]!.at - t0).toBeGreaterThanOrEqual(390);
    expect(all[3]!.body).toMatchObject({
      kind: 'question',
      terminalId: 't1',
      prompt: 'third question',
      coalesced: 2,
    });
    await new Promise((r) => setTimeout(r, 600));
    expect(rx.received).toHaveLength(4);
    expect(await registry.metrics()).toMatch(
      /paneward_notify_coalesced_total\{kind="question"\} 2/,
    );
    expect(await metric('paneward_notify_delivered_total', 'webhook:1')).toBe(4);
    await rx.close();
  });

  it('sends one event to every sink, each counted on its own', async () => {
    const good = await startReceiver();
    const bad = await startReceiver((_, res) => res.writeHead(503).end());
    const p = testPort();
    p.put('t1');
    const { metric, until } = start(p.port, { webhooks: [good.url, bad.url], retries: 0 });
    p.turnEnded('t1', 'turn-1');
    await until(async () => (await metric('paneward_notify_failed_total', 'webhook:2')) === 1);
    await until(async () => (await metric('paneward_notify_delivered_total', 'webhook:1')) === 1);
    expect(await metric('paneward_notify_failed_total', 'webhook:1')).toBe(0);
    await good.close();
    await bad.close();
  });
});

describe('notify: events read from records', () => {
  const base = { v: 1 as const, seq: 1, at: new Date().toISOString(), terminalId: 't1' };
  const state = (changed: Record<string, unknown>) =>
    happeningsOf({ ...base, kind: 'state', t: 1, changed, transitions: [], evidence: null });

  it('tells questions, stalls, exits and gone panes; not a turn another replaced', () => {
    expect(state({ 'readiness.status': 'blocked' })).toEqual([
      { kind: 'question', terminalId: 't1' },
    ]);
    expect(state({ 'readiness.status': 'stalled' }).map((h) => h.kind)).toEqual(['stalled']);
    // A completion that appears as a whole object counts by its status.
    expect(
      state({ completion: { turnId: 'turn-1', status: 'stalled' } }).map((h) => h.kind),
    ).toEqual(['stalled']);
    expect(state({ 'diagnostics.availability': 'tui_down' }).map((h) => h.kind)).toEqual([
      'exited',
    ]);
    expect(state({ 'diagnostics.availability': 'unavailable' }).map((h) => h.kind)).toEqual([
      'gone',
    ]);
    expect(state({ 'readiness.status': 'ready' })).toEqual([]);
    expect(happeningsOf({ ...base, kind: 'terminal.detached' })).toEqual([
      { kind: 'gone', terminalId: 't1' },
    ]);
    expect(
      happeningsOf({
        ...base,
        kind: 'turn.ended',
        turnId: 'turn-1',
        source: 'explicit_input',
        outcome: 'none',
        t: 1,
      }),
    ).toEqual([]);
  });

  it('names the host of a fleet record', () => {
    const r = { ...base, terminalId: 'host-a/t1', kind: 'terminal.detached', host: 'host-a' };
    expect(happeningsOf(r as JournalRecord)).toEqual([
      { kind: 'gone', terminalId: 'host-a/t1', host: 'host-a' },
    ]);
  });

  it('sends a gone terminal with its last known state', async () => {
    const rx = await startReceiver();
    const p = testPort();
    p.put('t1', (s) => (s.readiness.status = 'ready'));
    start(p.port, { webhooks: [rx.url] });
    p.drop('t1');
    p.emit({ kind: 'terminal.detached', terminalId: 't1' });
    const [got] = await rx.waitFor(1);
    expect(got!.body).toMatchObject({
      kind: 'gone',
      terminalId: 't1',
      state: { readiness: 'ready' },
    });
    await rx.close();
  });
});

describe('notify: a terminal never read', () => {
  it('is told with its tool and state unknown rather than not at all', async () => {
    const rx = await startReceiver();
    const p = testPort();
    start(p.port, { webhooks: [rx.url] });
    p.turnEnded('host-b/t9', 'turn-1');
    const [got] = await rx.waitFor(1);
    expect(NotifyEvent.parse(got!.body)).toMatchObject({
      kind: 'turn_ended',
      terminalId: 'host-b/t9',
      tool: 'unknown',
      turnId: 'turn-1',
      state: { readiness: 'unknown', phase: 'unknown', availability: 'unknown' },
    });
    await rx.close();
  });
});

describe('notify: commands', () => {
  it('parses a command once: a JSON array, or words split on spaces; a bad one names the field', () => {
    expect(parseCommand('["/bin/echo", "a b", "$(x)"]')).toEqual(['/bin/echo', 'a b', '$(x)']);
    expect(parseCommand('  notify-send   paneward ')).toEqual(['notify-send', 'paneward']);
    expect(() => parseCommand('   ')).toThrow(/field `notifyExec`: must name a program/);
    expect(() => parseCommand('["a", 1]')).toThrow(/field `notifyExec`/);
    expect(() => parseCommand('[not json')).toThrow(/not a JSON array of strings/);
  });

  it('runs the command without a shell: a hostile terminal id and prompt arrive as data', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pw-notify-exec-'));
    dirs.push(dir);
    const out = join(dir, 'events.jsonl');
    const canary = join(dir, 'pwned');
    const hostileId = `t$(touch ${canary});"'\`id\`\nrm -rf ~ ; x`;
    const hostilePrompt = `Allow $(touch ${canary})? ; echo 'yes' "no"\n$HOME \\ end`;
    const p = testPort();
    p.put(hostileId, (s) => (s.surface.blockedPrompt = hostilePrompt));
    const { drafts, metric, until } = start(p.port, {
      commands: [JSON.stringify([process.execPath, CAPTURE, out])],
    });
    p.blocked(hostileId, hostilePrompt);
    await until(async () => (await metric('paneward_notify_delivered_total', 'exec:1')) === 1);
    const [run] = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { stdin: string; env: Record<string, string>; argv: string[] });
    const event = NotifyEvent.parse(JSON.parse(run!.stdin));
    expect(event).toMatchObject({ kind: 'question', terminalId: hostileId, prompt: hostilePrompt });
    expect(run!.stdin.endsWith('}\n')).toBe(true);
    expect(run!.env).toMatchObject({
      PANEWARD_EVENT_KIND: 'question',
      PANEWARD_EVENT_TERMINAL: hostileId,
      PANEWARD_EVENT_PROMPT: hostilePrompt,
      PANEWARD_EVENT_TOOL: 'stand_in',
      PANEWARD_EVENT_READINESS: 'waiting',
    });
    expect(JSON.parse(run!.env.PANEWARD_EVENT!)).toEqual(event);
    // The arguments are those given at start, nothing of the event.
    expect(run!.argv).toEqual([out]);
    expect(existsSync(canary)).toBe(false);
    expect(drafts.map(asRecord)).toMatchObject([
      { sink: 'exec:1', outcome: 'delivered', attempts: 1, event: 'question' },
    ]);
    // The record carries no prompt text.
    expect(JSON.stringify(drafts)).not.toContain('Allow');
  });

  it('withholds the service secrets and counts a failing command failed, once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pw-notify-exec-'));
    dirs.push(dir);
    const out = join(dir, 'events.jsonl');
    const saved = process.env.PANEWARD_TOKEN;
    process.env.PANEWARD_TOKEN = 'a-secret-token-of-the-service';
    try {
      const p = testPort();
      p.put('t1');
      const { drafts, metric, until } = start(p.port, {
        commands: [`${process.execPath} ${CAPTURE} ${out} 3`, 'no-such-program-pw-notify'],
      });
      p.turnEnded('t1', 'turn-7', 'known_failure');
      await until(async () => (await metric('paneward_notify_failed_total', 'exec:1')) === 1);
      await until(async () => (await metric('paneward_notify_failed_total', 'exec:2')) === 1);
      const runs = readFileSync(out, 'utf8').trim().split('\n');
      expect(runs).toHaveLength(1);
      const run = JSON.parse(runs[0]!) as { env: Record<string, string> };
      expect(run.env.PANEWARD_TOKEN).toBeUndefined();
      expect(run.env).toMatchObject({
        PANEWARD_EVENT_KIND: 'turn_ended',
        PANEWARD_EVENT_TURN_ID: 'turn-7',
        PANEWARD_EVENT_OUTCOME: 'known_failure',
      });
      const records = drafts.map(asRecord);
      expect(records).toContainEqual(
        expect.objectContaining({ sink: 'exec:1', outcome: 'failed', error: 'exit status 3' }),
      );
      expect(records).toContainEqual(
        expect.objectContaining({
          sink: 'exec:2',
          outcome: 'failed',
          error: 'cannot run no-such-program-pw-notify: ENOENT',
        }),
      );
    } finally {
      if (saved === undefined) delete process.env.PANEWARD_TOKEN;
      else process.env.PANEWARD_TOKEN = saved;
    }
  });
});

describe('notify: serve options', () => {
  it('refuses a bad sink or bound naming the field, before anything starts', async () => {
    const { startServe } = await import('../../src/cli/serve.js');
    await expect(
      startServe({ notify: ['ftp://example.com/x'], logLevel: 'silent' }),
    ).rejects.toThrow(/serve: field `notify\.0`: --notify must be an http:\/\/ or https:\/\/ URL/);
    await expect(
      startServe({ notify: ['https://me:secret@example.com/x'], logLevel: 'silent' }),
    ).rejects.toThrow(/serve: field `notify\.0`: --notify must not carry a user or password/);
    await expect(startServe({ notifyExec: ['["a", 1]'], logLevel: 'silent' })).rejects.toThrow(
      /serve: field `notifyExec\.0`: must name a program/,
    );
    await expect(startServe({ notifyExec: ['  '], logLevel: 'silent' })).rejects.toThrow(
      /serve: field `notifyExec\.0`/,
    );
    await expect(startServe({ notifyRetries: '11', logLevel: 'silent' })).rejects.toThrow(
      /serve: field `notifyRetries`: --notify-retries must be at most 10/,
    );
    await expect(startServe({ notifyQueue: '0', logLevel: 'silent' })).rejects.toThrow(
      /serve: field `notifyQueue`/,
    );
  });
});
