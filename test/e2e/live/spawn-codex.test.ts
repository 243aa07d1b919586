/**
 * spawn and stop with the real Codex, offline against the loopback model server on a tmux server
 * of the test's own: started by its launch recipe, answered ready, a prompt taken to its real
 * outcome, ended by its own `/quit`, its window gone and nothing of it left (its app-server daemon).
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../../src/index.js';
import {
  codexAgent,
  installedDaemonPackages,
  prepareCodex,
  stopCodexDaemons,
} from '../../../src/tooling/agents/codex.js';
import { openaiProtocol } from '../../../src/tooling/model-server/openai.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';
import { uniqueSocketName } from '../harness/session.js';

const SCRATCH = resolve('.tmp/e2e-spawn-codex');

/** Whether `pid` runs (a zombie waiting to be reaped does not). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '');
  } catch {
    return false;
  }
}

/** The running processes started from this test's Codex home (its daemon's path is in it). */
function codexProcesses(): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(SCRATCH) && running(pid);
      } catch {
        return false;
      }
    });
}
const missing = !existsSync(codexAgent.bin);

describe.skipIf(missing && !process.env.CI)('spawn and stop with the real Codex', () => {
  const socketName = uniqueSocketName('spawn-codex');
  const tmux = (...args: string[]) => execa('tmux', ['-L', socketName, ...args], { reject: false });
  let model: FakeModelServer;
  let sup: Supervisor;
  let daemonPackages: string | null = null;

  beforeAll(async () => {
    rmSync(SCRATCH, { recursive: true, force: true });
    // As a returning user starts it: the background server already installed in the home.
    daemonPackages = await installedDaemonPackages();
    model = await startFakeModelServer({ protocols: [openaiProtocol] });
    // A server with a bare environment, as the CLI's own test harness starts it.
    await execa('env', [
      '-i',
      'PATH=/usr/bin:/bin',
      'tmux',
      '-L',
      socketName,
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-s',
      'base',
    ]);
    sup = createSupervisor({ socketName, dataDir: null, config: { pollIntervalSeconds: 0.25 } });
  }, 360_000);

  afterAll(async () => {
    await sup?.stop();
    await tmux('kill-server');
    await stopCodexDaemons(SCRATCH);
    await model?.close();
    rmSync(SCRATCH, { recursive: true, force: true });
  });

  it('starts Codex ready, takes a prompt, and ends it with /quit', async () => {
    const launch = prepareCodex({
      scratchDir: SCRATCH,
      workDir: join(SCRATCH, 'work'),
      serverUrl: model.url,
      retries: 0,
      daemonPackages,
    });
    // The whole PATH: Codex warns (in its footer) when it cannot find bubblewrap on it.
    const bins = [dirname(codexAgent.bin), dirname(process.execPath), process.env.PATH ?? ''];
    const started = Date.now();
    const r = await sup.spawn({
      tool: 'codex',
      session: 'agents',
      cwd: launch.cwd,
      env: { ...launch.env, PATH: bins.join(':') },
      readyTimeoutSeconds: 90,
    });
    console.log(`codex spawn → ready in ${Date.now() - started} ms`);
    expect(sup.get(r.terminalId).readiness.status).toBe('ready');
    expect(r.spawned.argv[0]).toBe(resolve(codexAgent.bin));
    // A reply that takes a second or more: Codex then says `Worked for 2s` (the profile reads
    // that; a turn under a second reads `Worked for <1s`).
    model.enqueue({ delayMs: 800, text: 'Hello from a spawned Codex.', chunkDelayMs: 120 });
    const turn = await sup.runTurn(r.terminalId, 'Say hello', { timeoutMs: 60_000 });
    expect(turn.lastTurn.result).toBe('success');
    const daemons = codexProcesses();
    const stopped = await sup.stopTerminal({ id: r.terminalId });
    expect(stopped.ended).toBe('exit_command');
    const panes = await tmux('list-panes', '-a', '-F', '#{pane_id}');
    expect(panes.stdout.split('\n')).not.toContain(r.spawned.paneId);
    // Codex started its app-server daemon (and its pid updater) while it ran; the stop ended
    // them with it: no process of this Codex is left.
    expect(daemons.length).toBeGreaterThan(0);
    expect(daemons.filter(running)).toEqual([]);
    expect(codexProcesses()).toEqual([]);
  }, 240_000);
});
