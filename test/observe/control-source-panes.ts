// Real tmux servers, panes and control-mode sources for the control-source tests; importing this
// registers their clean-up after each test and the scratch folder's removal.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom, timeout, type Observable, type Subscription } from 'rxjs';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createControlModeSource } from '../../src/observe/control/index.js';
import { type FrameSource, type SourceHealth } from '../../src/observe/frame-source.js';
import type { PaneProbe } from '../../src/observe/probe.js';
import { startAgentSession, uniqueSocketName } from '../e2e/harness/session.js';
import type { AgentSession } from '../e2e/harness/session.js';

export let dir: string;
export const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pw-control-source-'));
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

export const SHELL = ['bash', '--norc', '--noprofile'];

export async function server(extra: { command?: string[] } = {}) {
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
export async function addPane(
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

export function source(s: AgentSession, opts: { intervalMs?: number; refreshMs?: number } = {}) {
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
export function record(samples$: Observable<PaneProbe>) {
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

export const health = (src: FrameSource, pred: (h: SourceHealth) => boolean, ms = 10_000) =>
  firstValueFrom(src.health$!.pipe(filter(pred), timeout(ms)));
