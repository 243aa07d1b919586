import { describe, expect, it } from 'vitest';
import { NotifyEvent } from '../../src/schemas/notify.js';
import { startReceiver } from './internal/receiver.js';
import { testPort } from './internal/test-port.js';
import { start, asRecord } from './internal/notifier-harness.js';

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
