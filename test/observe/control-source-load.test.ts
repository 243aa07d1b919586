import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { execa } from 'execa';
import { firstValueFrom, timeout } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { canTurnOutputOff, createControlModeSource } from '../../src/observe/control/index.js';
import { createExecaTransport } from '../../src/observe/execa-transport.js';
import { createFrameSource, type SourceHealth } from '../../src/observe/frame-source.js';
import { uniqueSocketName } from '../e2e/harness/session.js';
import { cleanups, server, addPane, source, record, health } from './control-source-panes.js';

describe('control-mode source on a real tmux server', () => {
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
