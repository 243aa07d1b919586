import { chmodSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecaTransport } from '../../src/observe/execa-transport.js';
import { probePane } from '../../src/observe/probe.js';
import type { PaneProbe } from '../../src/observe/probe.js';
import { startAgentSession } from '../e2e/harness/session.js';
import type { AgentSession, AgentSessionOptions } from '../e2e/harness/session.js';

let dir: string;
const sessions: AgentSession[] = [];

async function session(
  options: Partial<AgentSessionOptions> & { command: string[] },
): Promise<AgentSession> {
  const s = await startAgentSession({
    cwd: dir,
    env: { HOME: dir },
    cols: 80,
    rows: 12,
    ...options,
  });
  sessions.push(s);
  return s;
}

async function probeUntil(
  s: AgentSession,
  names: readonly string[],
  done: (p: PaneProbe) => boolean,
): Promise<PaneProbe> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const p = await probePane(s.transport, s.target, { processNames: names });
    if (done(p) || Date.now() > deadline) return p;
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pw-probe-'));
  // A copy of sleep named like an agent CLI: only the process name is faked.
  copyFileSync('/bin/sleep', join(dir, 'claude'));
  chmodSync(join(dir, 'claude'), 0o755);
});
afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe('probePane', () => {
  it('reads pane facts and the screen of a live shell', async () => {
    const s = await session({ command: ['bash', '--norc', '--noprofile'] });
    // The terminal echoes typed text even before env has exec'd bash: wait for bash itself.
    await s.waitForProcess(['bash']);
    await s.sendText('-x Enter C-c "quoted" ; Escape');
    await s.waitForText(/-x Enter C-c "quoted" ; Escape/);
    const p = await probePane(s.transport, s.target, { processNames: ['bash'] });
    expect(p.transport).toBe('tmux_up');
    expect(p.process).toBe('tui_up');
    expect(p.error).toBeNull();
    expect(p.pane).toMatchObject({
      pid: await s.panePid(),
      dead: false,
      currentCommand: 'bash',
      width: 80,
      height: 12,
    });
    expect(p.pane?.id).toMatch(/^%\d+$/);
    expect(p.pids).toEqual([await s.panePid()]);
    // Typed literally: the key names are on screen and the line was not submitted.
    expect(p.capture?.text).toContain('-x Enter C-c "quoted" ; Escape');
    expect(p.capture?.text.split('\n')).toHaveLength(12);
    expect(p.capture?.ansi).toBeUndefined();
  });

  it('tells a running process from a missing one and an unsupported tool', async () => {
    const s = await session({ command: ['sleep', '300'] });
    // Until env has exec'd sleep, the pane's process is not yet named sleep.
    await s.waitForProcess(['sleep']);
    expect((await probePane(s.transport, s.target, { processNames: ['sleep'] })).process).toBe(
      'tui_up',
    );
    const notFound = await probePane(s.transport, s.target, { processNames: ['claude'] });
    expect(notFound).toMatchObject({ transport: 'tmux_up', process: 'tui_down', pids: [] });
    expect(notFound.capture).not.toBeNull();
    expect((await probePane(s.transport, s.target, { processNames: [] })).process).toBe(
      'unsupported_tool',
    );
  });

  it('sees a killed agent although its last screen stays', async () => {
    const script = `printf 'AGENT SCREEN\\n'; "${join(dir, 'claude')}" 300; sleep 300`;
    const s = await session({ command: ['sh', '-c', script] });
    const [agentPid] = await s.waitForProcess(['claude']);
    const before = await probePane(s.transport, s.target, { processNames: ['claude'] });
    expect(before.process).toBe('tui_up');
    expect(before.pids).toEqual([agentPid]);
    process.kill(agentPid as number, 'SIGKILL');
    const after = await probeUntil(s, ['claude'], (p) => p.process !== 'tui_up');
    expect(after.process).toBe('tui_down');
    expect(after.pane?.dead).toBe(false);
    expect(after.capture?.text).toContain('AGENT SCREEN');
  });

  it('reports a dead pane (remain-on-exit) as tui_down and keeps its screen', async () => {
    const s = await session({
      command: ['sh', '-c', 'printf "one\\nlast words\\n"; sleep 0.3'],
      remainOnExit: true,
    });
    await s.waitForText(/last words/);
    const p = await probeUntil(s, ['sh'], (x) => x.pane?.dead === true);
    expect(p).toMatchObject({ transport: 'tmux_up', process: 'tui_down' });
    expect(p.pane?.dead).toBe(true);
    expect(p.capture?.text).toContain('last words');
    // tmux 3.3 may add a notice: it scrolls the screen up one line and writes it at the bottom.
    const lines = p.capture?.text.split('\n') ?? [];
    if (lines.some((l) => l.startsWith('Pane is dead'))) {
      expect(lines.at(-1)).toMatch(/^Pane is dead \(status 0, .*\)$/);
      expect(lines[0]).toBe('last words');
    }
  });

  it('captures escapes when asked', async () => {
    const s = await session({
      command: ['sh', '-c', "printf '\\033[31mRED\\033[0m plain\\n'; sleep 300"],
    });
    await s.waitForText(/RED plain/);
    const p = await probePane(s.transport, s.target, {
      processNames: ['sleep'],
      includeAnsi: true,
    });
    expect(p.capture?.text).toContain('RED plain');
    expect(p.capture?.text).not.toContain('\x1b');
    expect(p.capture?.ansi).toContain('\x1b[31mRED');
  });

  it('reports a killed session as tmux_missing, and a vanished server too', async () => {
    const s = await session({ command: ['sleep', '300'] });
    await s.killSession();
    const p = await probePane(s.transport, s.target, { processNames: ['sleep'] });
    expect(p).toMatchObject({
      transport: 'tmux_missing',
      process: 'unknown',
      capture: null,
      pane: null,
    });
    expect(p.error?.kind).toBe('tmux_missing');
    const pid = await probePane(s.transport, '%0', { processNames: ['sleep'] });
    expect(pid.transport).toBe('tmux_missing');
  });

  it('turns a hung tmux into probe_error within the timeout', async () => {
    const fake = join(dir, 'hung-tmux');
    writeFileSync(fake, '#!/bin/sh\nexec sleep 30\n');
    chmodSync(fake, 0o755);
    const transport = createExecaTransport({ tmuxBinary: fake, timeoutMs: 300 });
    const started = Date.now();
    const p = await probePane(transport, 'any:0.0', { processNames: ['claude'] });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(p).toMatchObject({ transport: 'probe_error', process: 'unknown', capture: null });
    expect(p.error?.kind).toBe('tmux_timeout');
  });

  it('turns an aborted probe into probe_error without throwing', async () => {
    const s = await session({ command: ['sleep', '300'] });
    const controller = new AbortController();
    controller.abort();
    const p = await probePane(s.transport, s.target, {
      processNames: ['sleep'],
      signal: controller.signal,
    });
    expect(p).toMatchObject({ transport: 'probe_error', error: { kind: 'aborted' } });
  });

  it('measures the cost of one probe (printed, not asserted)', async () => {
    const s = await session({ command: ['sleep', '300'], cols: 160, rows: 45 });
    const runs = 30;
    const took: number[] = [];
    for (let i = 0; i < runs; i++) {
      took.push((await probePane(s.transport, s.target, { processNames: ['sleep'] })).tookMs);
    }
    const tmuxOnly: number[] = [];
    for (let i = 0; i < runs; i++) {
      tmuxOnly.push((await probePane(s.transport, s.target, { processNames: [] })).tookMs);
    }
    const summary = (xs: number[]): string => {
      const sorted = [...xs].sort((a, b) => a - b);
      const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
      return `mean ${mean.toFixed(1)} ms, median ${sorted[sorted.length >> 1]?.toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms`;
    };
    console.log(`probePane 160x45 with /proc inspection: ${summary(took)}`);
    console.log(`probePane 160x45 tmux call only: ${summary(tmuxOnly)}`);
    expect(took).toHaveLength(runs);
  });
});
