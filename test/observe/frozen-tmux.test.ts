import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlModeSource } from '../../src/observe/control/index.js';
import type { SourceHealth } from '../../src/observe/frame-source.js';
import type { PaneProbe } from '../../src/observe/probe.js';
import { startAgentSession, uniqueSocketName } from '../e2e/harness/session.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pw-frozen-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a tmux server that stops answering (SIGSTOP)', () => {
  it('shows as lag at once and as tmux_timeout after the command timeout; sampling resumes after SIGCONT', async () => {
    const s = await startAgentSession({
      cwd: dir,
      env: { PS1: '$ ' },
      command: ['bash', '--norc', '--noprofile'],
      socketName: uniqueSocketName('jrn-frozen'),
      cols: 80,
      rows: 12,
    });
    const serverPid = Number((await s.transport.run(['display-message', '-p', '#{pid}'])).trim());
    expect(serverPid).toBeGreaterThan(1);
    const src = createControlModeSource({
      transport: s.transport,
      socketName: s.socketName,
      intervalMs: 200,
      refreshMs: 500,
      recaptureMs: 120_000,
      commandTimeoutMs: 2000,
    });
    const samples: PaneProbe[] = [];
    const healths: SourceHealth[] = [];
    const sub = src.samples({ target: s.target, processNames: ['bash'] }).subscribe((p) => {
      samples.push(p);
    });
    const hsub = src.health$!.subscribe((h) => healths.push(h));
    let stopped = false;
    try {
      await s.waitForText(/^\$/m);
      await expect.poll(() => samples.some((p) => p.transport === 'tmux_up')).toBe(true);
      const before = samples.length;
      process.kill(serverPid, 'SIGSTOP');
      stopped = true;
      const frozenAt = Date.now();
      // Frozen for a bounded time: 5 s, more than twice the command timeout.
      await new Promise((r) => setTimeout(r, 5000));
      const during = healths.filter((h) => h.lagMs > 0);
      const timeouts = samples
        .slice(before)
        .filter((p) => p.transport === 'probe_error' && p.error?.kind === 'tmux_timeout');
      process.kill(serverPid, 'SIGCONT');
      stopped = false;
      expect(Math.max(0, ...during.map((h) => h.lagMs))).toBeGreaterThan(1000);
      expect(during.some((h) => h.lagging)).toBe(true);
      expect(timeouts.length).toBeGreaterThan(0);
      expect(Date.now() - frozenAt).toBeLessThan(10_000);
      // Back: the pane is sampled again and the lag goes away.
      const resumedFrom = samples.length;
      await s.sendText('echo back');
      await s.sendKeys('Enter');
      await expect
        .poll(() => samples.slice(resumedFrom).some((p) => p.transport === 'tmux_up'), {
          timeout: 15_000,
        })
        .toBe(true);
      await expect.poll(() => healths.at(-1)?.lagMs, { timeout: 15_000 }).toBe(0);
    } finally {
      if (stopped) process.kill(serverPid, 'SIGCONT');
      sub.unsubscribe();
      hsub.unsubscribe();
      await src.close();
      await s.close();
    }
  }, 60_000);
});
