import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { filter, firstValueFrom, timeout, type Observable, type Subscription } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { canTurnOutputOff, createControlModeSource } from '../../src/observe/control/index.js';
import { createExecaTransport } from '../../src/observe/execa-transport.js';
import {
  createFrameSource,
  type FrameSource,
  type SourceHealth,
} from '../../src/observe/frame-source.js';
import { probePane, type PaneProbe } from '../../src/observe/probe.js';
import { startAgentSession, uniqueSocketName } from '../e2e/harness/session.js';
import type { AgentSession } from '../e2e/harness/session.js';

let dir: string;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pw-control-source-'));
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const SHELL = ['bash', '--norc', '--noprofile'];

async function server(extra: { command?: string[] } = {}) {
  const s = await startAgentSession({
    cwd: dir,
    env: { PS1: '$ ' },
    command: extra.command ?? SHELL,
    socketName: uniqueSocketName('pw-scale-src'),
    cols: 80,
    rows: 12,
  });
  cleanups.push(() => s.close());
  return s;
}

/** A window (or a split) running `command` on the session's server; resolves with its pane id. */
async function addPane(
  s: AgentSession,
  how: 'window' | 'split',
  command = 'bash --norc --noprofile',
  target = 'pw',
): Promise<string> {
  const args =
    how === 'window'
      ? ['new-window', '-d', '-P', '-F', '#{pane_id}', '-t', target, command]
      : ['split-window', '-d', '-P', '-F', '#{pane_id}', '-t', target, command];
  return (await s.transport.run(args)).trim();
}

function source(s: AgentSession, opts: { intervalMs?: number; refreshMs?: number } = {}) {
  const src = createControlModeSource({
    transport: s.transport,
    socketName: s.socketName,
    intervalMs: opts.intervalMs ?? 100,
    refreshMs: opts.refreshMs ?? 60_000,
    recaptureMs: 120_000,
  });
  cleanups.push(() => src.close());
  return src;
}

/** Subscribes and keeps every sample with the time it arrived. */
function record(samples$: Observable<PaneProbe>) {
  const got: Array<PaneProbe & { at: number }> = [];
  const sub: Subscription = samples$.subscribe((p) => got.push({ ...p, at: Date.now() }));
  cleanups.push(async () => sub.unsubscribe());
  const until = async (pred: (p: PaneProbe) => boolean, ms = 5000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const hit = got.find(pred);
      if (hit) return hit;
      if (Date.now() > deadline) {
        throw new Error(
          `no such sample in ${ms} ms; got: ${JSON.stringify(got.map((p) => [p.cause, p.transport, p.process, p.pane?.dead]))}`,
        );
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { got, until };
}

const health = (src: FrameSource, pred: (h: SourceHealth) => boolean, ms = 10_000) =>
  firstValueFrom(src.health$!.pipe(filter(pred), timeout(ms)));

describe('control-mode source on a real tmux server', () => {
  it('gives samples equal to what capture-pane and probePane show', async () => {
    const s = await server();
    await s.waitForText(/^\$/m);
    const src = source(s);
    const plain = record(src.samples({ target: s.target, processNames: ['bash'] }));
    const ansi = record(
      src.samples({ target: s.target, processNames: ['bash'], includeAnsi: true }),
    );
    await plain.until((p) => p.transport === 'tmux_up');
    await s.sendText("printf '\\033[1mbold\\033[0m %s\\n' 'plain – ✻ text'");
    await s.sendKeys('Enter');
    // The output and the prompt after it: the screen stays still from there on.
    const done = /^bold plain – ✻ text\n\$$/m;
    await s.waitForText(done);
    const sample = await plain.until((p) => done.test(p.capture?.text ?? ''));
    const withAnsi = await ansi.until((p) => done.test(p.capture?.text ?? ''));
    // The pane is still now: what tmux shows directly is what the source sampled.
    const direct = await s.transport.run(['capture-pane', '-p', '-t', s.target]);
    const directAnsi = await s.transport.run(['capture-pane', '-p', '-e', '-t', s.target]);
    const polled = await probePane(s.transport, s.target, { processNames: ['bash'] });
    expect(sample.capture?.text).toBe(direct.replace(/\n$/, ''));
    expect(sample.capture?.text).toBe(polled.capture?.text);
    expect(withAnsi.capture?.ansi).toBe(directAnsi.replace(/\n$/, ''));
    expect(withAnsi.capture?.ansi).toContain('\u001b[1mbold');
    expect(sample).toMatchObject({
      transport: 'tmux_up',
      process: 'tui_up',
      pids: polled.pids,
      pane: polled.pane,
      error: null,
      cause: 'output',
      unchanged: false,
    });
    expect(plain.got[0]).toMatchObject({ cause: 'first', transport: 'tmux_up' });
    expect(sample.sampledAt).toBeGreaterThan(Date.now() - 10_000);
  });

  it('samples a pane when it prints, and a quiet pane only on refresh', async () => {
    const s = await server();
    const quietPane = await addPane(s, 'window', 'sh -c "echo quiet; exec sleep 300"');
    const src = source(s, { intervalMs: 100, refreshMs: 60_000 });
    const busy = record(src.samples({ target: s.target, processNames: ['bash'] }));
    const quiet = record(src.samples({ target: quietPane, processNames: ['sleep'] }));
    await busy.until((p) => p.transport === 'tmux_up');
    await quiet.until((p) => /quiet/.test(p.capture?.text ?? ''));
    for (let i = 0; i < 5; i++) {
      await s.sendText(`echo line-${i}`);
      await s.sendKeys('Enter');
      await busy.until((p) => new RegExp(`^line-${i}$`, 'm').test(p.capture?.text ?? ''));
    }
    expect(busy.got.filter((p) => p.cause === 'output').length).toBeGreaterThanOrEqual(5);
    // Nothing happened in the quiet pane: its first sample is its only one.
    expect(quiet.got.map((p) => p.cause)).toEqual(['first']);
    expect(quiet.got[0]).toMatchObject({ process: 'tui_up', transport: 'tmux_up' });
    const h = await health(src, (x) => x.samples > 0);
    expect(h).toMatchObject({ kind: 'control', connection: 'connected', panes: 2 });
  });

  it('captures a pane that prints after a quiet spell at once, not at the next tick', async () => {
    // Three lines 2.5 s apart, each with the time it was printed, from bash builtins only (a
    // process starting under the pane would have it captured at a tick); ticks only every 2 s.
    const script =
      'for n in 1 2 3; do read -r -s -N 1 -t 2.5 _; printf "line %s %s\\n" $n $(( ${EPOCHREALTIME/./} / 1000 )); done; exec sleep 300';
    const s = await server({ command: ['bash', '--norc', '--noprofile', '-c', script] });
    const src = createControlModeSource({
      transport: s.transport,
      socketName: s.socketName,
      intervalMs: 2000,
      tickMs: 2000,
      refreshMs: 60_000,
      recaptureMs: 120_000,
    });
    cleanups.push(() => src.close());
    const pane = record(src.samples({ target: s.target, processNames: ['bash', 'sleep'] }));
    const latencies: number[] = [];
    for (const n of [1, 2, 3]) {
      const line = new RegExp(`^line ${n} (\\d+)$`, 'm');
      const sample = await pane.until((p) => line.test(p.capture?.text ?? ''), 10_000);
      expect(sample.cause).toBe('output');
      latencies.push(
        (sample as PaneProbe & { at: number }).at - Number(line.exec(sample.capture!.text)![1]),
      );
    }
    // At the next tick each would wait up to 2 s (1 s on average).
    for (const ms of latencies) expect(ms, String(latencies)).toBeLessThan(700);
    // An early capture is a tick's work done sooner, not a tick the source could not run.
    expect((await firstValueFrom(src.health$!)).skippedTicks).toBe(0);
  }, 30_000);

  it('reports a killed pane and a killed window at once', async () => {
    const s = await server();
    const split = await addPane(s, 'split');
    const other = await addPane(s, 'window');
    // Without the lifecycle notifications, nothing would look at these panes for a minute.
    const src = source(s, { intervalMs: 1000, refreshMs: 60_000 });
    const a = record(src.samples({ target: split, processNames: ['bash'] }));
    const b = record(src.samples({ target: other, processNames: ['bash'] }));
    await a.until((p) => p.transport === 'tmux_up');
    await b.until((p) => p.transport === 'tmux_up');
    const killedAt = Date.now();
    await s.transport.run(['kill-pane', '-t', split]);
    const gone = await a.until((p) => p.transport === 'tmux_missing');
    expect(gone).toMatchObject({ cause: 'lifecycle', capture: null, process: 'unknown' });
    expect(gone.error?.message).toMatch(/can't find pane/);
    await s.transport.run(['kill-window', '-t', other]);
    const closed = await b.until((p) => p.transport === 'tmux_missing');
    expect(closed.cause).toBe('lifecycle');
    expect(gone.at - killedAt).toBeLessThan(5000);
  });

  it('samples a pane whose agent process ended without printing', async () => {
    const s = await server();
    // A copy of sleep named like an agent, run by a shell that then sleeps on, silently.
    copyFileSync('/bin/sleep', join(dir, 'agent'));
    chmodSync(join(dir, 'agent'), 0o755);
    const pane = await addPane(s, 'window', `sh -c '${dir}/agent 2; exec sleep 300'`);
    const src = source(s, { intervalMs: 100, refreshMs: 60_000 });
    const r = record(src.samples({ target: pane, processNames: ['agent'] }));
    await r.until((p) => p.process === 'tui_up');
    const down = await r.until((p) => p.process === 'tui_down', 10_000);
    // Nothing printed and no tmux event: only the process table said so.
    expect(down.cause).toBe('process');
    expect(down.pids).toEqual([]);
    expect(r.got.filter((p) => p.cause === 'output')).toEqual([]);
  });

  it('samples a pane in a session the client is not attached to after it prints', async () => {
    const s = await server();
    await addPane(s, 'window');
    await s.transport.run(['new-session', '-d', '-s', 'side', '-x', '80', '-y', '12', ...SHELL]);
    const src = source(s, { intervalMs: 100, refreshMs: 60_000 });
    // Two watched panes in `pw`, one in `side`: the client attaches to `pw`.
    const main = record(src.samples({ target: s.target, processNames: ['bash'] }));
    record(src.samples({ target: 'pw:1.0', processNames: ['bash'] }));
    const side = record(src.samples({ target: 'side:0.0', processNames: ['bash'] }));
    await main.until((p) => p.transport === 'tmux_up');
    await side.until((p) => p.transport === 'tmux_up');
    await s.transport.run(['send-keys', '-t', 'side:0.0', '-l', 'echo from-the-side']);
    await s.transport.run(['send-keys', '-t', 'side:0.0', 'Enter']);
    const seen = await side.until((p) => /^from-the-side$/m.test(p.capture?.text ?? ''));
    expect(seen.cause).toBe('output');
  });

  it('finds a pane whose screen changed without output or notification', async () => {
    const s = await server();
    await s.transport.run(['set-option', '-g', 'remain-on-exit', 'on']);
    const pane = await addPane(s, 'window', 'sleep 1');
    // With no process names there is no process inspection: only the fingerprint check every
    // 300 ms can see the pane die (tmux reports no window event and nothing is printed).
    const src = source(s, { intervalMs: 100, refreshMs: 300 });
    const r = record(src.samples({ target: pane, processNames: [] }));
    expect((await r.until(() => true)).pane?.dead).toBe(false);
    const dead = await r.until((p) => p.pane?.dead === true, 10_000);
    expect(dead).toMatchObject({ cause: 'lifecycle', transport: 'tmux_up' });
    expect(r.got.filter((p) => p.cause === 'output')).toEqual([]);
  });

  it('keeps sampling a quiet pane while another floods', async () => {
    const s = await server();
    const quietPane = await addPane(s, 'window');
    const src = source(s, { intervalMs: 100, refreshMs: 60_000 });
    const flood = record(src.samples({ target: s.target, processNames: ['bash', 'yes'] }));
    const quiet = record(src.samples({ target: quietPane, processNames: ['bash'] }));
    await flood.until((p) => p.transport === 'tmux_up');
    await quiet.until((p) => p.transport === 'tmux_up');
    await s.sendText('yes "$(printf %0150d 7)"');
    await s.sendKeys('Enter');
    await health(src, (h) => h.pauses > 0);
    for (let i = 0; i < 3; i++) {
      const typedAt = Date.now();
      await s.transport.run(['send-keys', '-t', quietPane, '-l', `echo quiet-${i}`]);
      await s.transport.run(['send-keys', '-t', quietPane, 'Enter']);
      const seen = await quiet.until((p) =>
        new RegExp(`^quiet-${i}$`, 'm').test(p.capture?.text ?? ''),
      );
      // Seen within a few ticks, not after the flood's backlog.
      expect(seen.at - typedAt).toBeLessThan(3000);
    }
    const since = Date.now();
    await new Promise((r) => setTimeout(r, 1000));
    const floodSamples = flood.got.filter((p) => p.at >= since);
    // The flooding pane is itself captured every tick or so, its screen full of the flood.
    expect(floodSamples.length).toBeGreaterThanOrEqual(3);
    expect(floodSamples.at(-1)?.capture?.text).toMatch(/0{60}7$/m);
    expect((await health(src, () => true)).connection).toBe('connected');
    await s.sendKeys('C-c');
  });

  it('reports its own stalls as lag, never as a pane error', async () => {
    const s = await server();
    const other = await addPane(s, 'window');
    const src = createControlModeSource({
      transport: s.transport,
      socketName: s.socketName,
      intervalMs: 100,
      refreshMs: 60_000,
      // Shorter than the stalls below: a timer that fires after a stall must not call tmux hung.
      commandTimeoutMs: 200,
    });
    cleanups.push(() => src.close());
    const a = record(src.samples({ target: s.target, processNames: ['bash'] }));
    const b = record(src.samples({ target: other, processNames: ['bash'] }));
    const healths: SourceHealth[] = [];
    const hs = src.health$!.subscribe((h) => healths.push(h));
    cleanups.push(async () => hs.unsubscribe());
    await a.until((p) => p.transport === 'tmux_up');
    await b.until((p) => p.transport === 'tmux_up');
    const busyWait = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end) {
        // The observer's own process is too busy to run: nothing else gets a turn.
      }
    };
    for (let i = 0; i < 4; i++) {
      await s.transport.run(['send-keys', '-t', s.target, '-l', `echo stall-${i}`]);
      await s.transport.run(['send-keys', '-t', s.target, 'Enter']);
      await s.transport.run(['send-keys', '-t', other, '-l', `echo other-${i}`]);
      await s.transport.run(['send-keys', '-t', other, 'Enter']);
      // Stall at varying points of the source's tick and of its batch in flight.
      await new Promise((r) => setTimeout(r, 20 + 40 * i));
      busyWait(450);
    }
    await a.until((p) => /^stall-3$/m.test(p.capture?.text ?? ''));
    await b.until((p) => /^other-3$/m.test(p.capture?.text ?? ''));
    const errors = [...a.got, ...b.got].filter(
      (p) => p.transport !== 'tmux_up' || p.process === 'probe_error' || p.error !== null,
    );
    expect(errors).toEqual([]);
    expect(healths.some((h) => h.lagging)).toBe(true);
    expect((await health(src, (h) => !h.lagging)).restarts).toBe(0);
  });

  it('keeps the tmux server alive when unwatched panes print while the supervisor reads slowly', async () => {
    // tmux before 3.7 crashed (SIGSEGV, every pane with it) when a pane whose output was still
    // queued for a slow client was turned off for it, and then went quiet: the source must not
    // turn output off there.
    const s = await server();
    const serverPid = Number((await s.transport.run(['display-message', '-p', '#{pid}'])).trim());
    const src = source(s, { intervalMs: 100 });
    const watched = record(src.samples({ target: s.target, processNames: ['bash'] }));
    await watched.until((p) => p.transport === 'tmux_up');
    const busyWait = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end) {
        // The supervisor's process too busy to read its client.
      }
    };
    for (let round = 0; round < 4; round++) {
      // Panes nobody watches print a burst (more than a pipe holds) while the supervisor is
      // busy, then go quiet.
      for (let i = 0; i < 3; i++) {
        await addPane(
          s,
          'window',
          `bash --norc --noprofile -c 'sleep 0.2; head -c 400000 /dev/zero | tr "\\0" x | fold -w 100; exec sleep 60'`,
        );
      }
      busyWait(700);
      await new Promise((r) => setTimeout(r, 500));
    }
    await s.transport.run(['send-keys', '-t', s.target, '-l', 'echo still-here']);
    await s.transport.run(['send-keys', '-t', s.target, 'Enter']);
    await watched.until((p) => /^still-here$/m.test(p.capture?.text ?? ''));
    expect(existsSync(`/proc/${serverPid}`), 'the tmux server is alive').toBe(true);
    expect((await health(src, () => true)).restarts).toBe(0);
  });

  it('re-attaches to a restarted server, reporting the panes missing meanwhile', async () => {
    const s = await server();
    const src = source(s, { intervalMs: 100, refreshMs: 60_000 });
    const r = record(src.samples({ target: 'pw:0.0', processNames: ['bash'] }));
    await r.until((p) => p.transport === 'tmux_up');
    await s.transport.run(['kill-server']);
    const missing = await r.until((p) => p.transport === 'tmux_missing');
    expect(missing.cause).toBe('server');
    await health(src, (h) => h.connection === 'server_missing');
    await execa(
      'tmux',
      [
        '-L',
        s.socketName,
        '-f',
        '/dev/null',
        'new-session',
        '-d',
        '-s',
        'pw',
        '-x',
        '80',
        '-y',
        '12',
        'sh',
        '-c',
        'echo second life; exec sleep 300',
      ],
      { stdin: 'ignore', timeout: 5000, env: { TMUX: '' } },
    );
    const back = await r.until((p) => /second life/.test(p.capture?.text ?? ''), 15_000);
    expect(back).toMatchObject({ transport: 'tmux_up', process: 'tui_down' });
    const h = await health(src, (x) => x.connection === 'connected');
    expect(h.restarts).toBeGreaterThanOrEqual(1);
  });

  it('stops its client and completes its streams on close', async () => {
    const s = await server();
    const src = source(s);
    let completed = false;
    const sub = src.samples({ target: s.target, processNames: ['bash'] }).subscribe({
      complete: () => (completed = true),
    });
    cleanups.push(async () => sub.unsubscribe());
    await health(src, (h) => h.connection === 'connected' && h.samples > 0);
    const clients = () =>
      (
        spawnSync('tmux', ['-L', s.socketName, 'list-clients', '-F', '#{client_pid}'], {
          encoding: 'utf8',
        }).stdout ?? ''
      )
        .split('\n')
        .filter(Boolean);
    expect(clients()).toHaveLength(1);
    await src.close();
    expect(completed).toBe(true);
    expect(clients()).toHaveLength(0);
    // The server and its pane are untouched.
    expect(await s.capture()).toMatch(/^\$/m);
  });
});

describe('createFrameSource', () => {
  it('builds either kind on the same transport', async () => {
    const socketName = uniqueSocketName('pw-scale-src');
    const transport = createExecaTransport({ socketName });
    const polling = createFrameSource({ kind: 'polling', transport, intervalMs: 500 });
    const control = createFrameSource({ kind: 'control', transport, socketName, intervalMs: 500 });
    expect(polling.transport).toBe(transport);
    expect(control.transport).toBe(transport);
    expect((await firstValueFrom(polling.health$!)).kind).toBe('polling');
    expect((await firstValueFrom(control.health$!)).kind).toBe('control');
    // No server on that socket: both report the pane missing.
    const [p, c] = await Promise.all(
      [polling, control].map((src) =>
        firstValueFrom(src.samples({ target: '%0', processNames: [] }).pipe(timeout(10_000))),
      ),
    );
    expect(p?.transport).toBe('tmux_missing');
    expect(c?.transport).toBe('tmux_missing');
    await Promise.all([polling.close(), control.close()]);
  });
});

describe("turning an unwatched pane's output off", () => {
  it('is done only on tmux versions that can do it without crashing', () => {
    for (const v of ['3.7', '3.7c', '3.10', '4.0', 'next-3.8', 'master']) {
      expect(canTurnOutputOff(v), v).toBe(true);
    }
    for (const v of ['3.3a', '3.4', '3.6b', '2.9', '', 'openbsd-7.5']) {
      expect(canTurnOutputOff(v), v).toBe(false);
    }
  });
});
