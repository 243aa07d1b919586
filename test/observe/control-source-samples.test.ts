import { chmodSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createControlModeSource } from '../../src/observe/control/index.js';
import { probePane, type PaneProbe } from '../../src/observe/probe.js';
import {
  dir,
  cleanups,
  SHELL,
  server,
  addPane,
  source,
  record,
  health,
} from './control-source-panes.js';

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
});
