/// <reference lib="dom" />
/**
 * `paneward demo` run as a person runs it, the command as a process: what it prints about
 * running its CLIs offline, the dashboard's Start form starting one more CLI with the demo's
 * offline environment (a real Chromium, the real Claude Code), and Ctrl-C: what it says it
 * stops, how soon it is gone, and that nothing is left (no tmux server, socket file, scratch
 * folder, CLI process or Codex daemon), pressed once or twice.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE_CODE_BIN } from '../../../src/tooling/agents/claude_code.js';
import { codexAgent } from '../../../src/tooling/agents/codex.js';
import { CHROMIUM, launchBrowser } from '../../dashboard/internal/browser.js';

const BIN = fileURLToPath(new URL('../../../bin/paneward.js', import.meta.url));
const haveCodex = existsSync(codexAgent.bin);
const missing = !existsSync(CHROMIUM) || !existsSync(CLAUDE_CODE_BIN);

interface Demo {
  child: ChildProcess;
  out: () => string;
  url: string;
  socket: string;
  scratch: string;
  model: string;
  exited: Promise<{ code: number | null; signal: string | null; at: number }>;
}

async function startDemo(args: string[], socket: string): Promise<Demo> {
  const child = spawn(process.execPath, [BIN, 'demo', '--port', '0', '-L', socket, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: string | null; at: number }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal, at: Date.now() })),
  );
  const deadline = Date.now() + 90_000;
  while (!out.includes('Ctrl-C stops it')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no demo: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const field = (re: RegExp) => {
    const m = re.exec(out);
    if (!m) throw new Error(`${re} not in: ${out}`);
    return m[1]!;
  };
  return {
    child,
    out: () => out,
    url: field(/dashboard\s+(http:\S+)/),
    socket,
    scratch: field(/scratch\s+(\S+)/),
    model: field(/model server\s+(http:\S+)/),
    exited,
  };
}

/** Every process now running whose command line or environment names `marker`. */
function processesNaming(marker: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    for (const file of ['cmdline', 'environ']) {
      try {
        if (readFileSync(`/proc/${name}/${file}`, 'latin1').includes(marker)) {
          out.push(Number(name));
          break;
        }
      } catch {
        // gone, or not ours
      }
    }
  }
  return out;
}

/** The tmux server's pid and all its descendants, by `ps`. */
async function treeOf(rootPid: number): Promise<number[]> {
  const ps = await execa('ps', ['-e', '-o', 'pid=,ppid=']);
  const rows = ps.stdout
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number) as [number, number]);
  const out = [rootPid];
  for (let i = 0; i < out.length; i++) {
    for (const [pid, ppid] of rows) if (ppid === out[i] && !out.includes(pid)) out.push(pid);
  }
  return out;
}

const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
};

/** Sends a prompt through the API (once the CLI is ready) and waits for that turn's success. */
async function promptToSuccess(url: string, id: string): Promise<void> {
  const api = `${url}v1/terminals/${id}`;
  const deadline = Date.now() + 90_000;
  let turnId = '';
  while (!turnId) {
    const res = await fetch(`${api}/input`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hello' }),
    });
    const body = (await res.json()) as { turnId?: string };
    if (res.ok && body.turnId) turnId = body.turnId;
    else if (Date.now() > deadline) throw new Error(`${id}: ${JSON.stringify(body)}`);
    else await new Promise((r) => setTimeout(r, 1000));
  }
  for (;;) {
    const turn = JSON.stringify(await (await fetch(`${api}/turns/${turnId}`)).json());
    if (/"success"/.test(turn)) return;
    if (Date.now() > deadline) throw new Error(`${id} ${turnId}: ${turn}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe.skipIf(missing && !process.env.CI)(
  'paneward demo: its guide, its Start form, Ctrl-C',
  () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchBrowser();
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('--live prints how each CLI runs; the form starts one more; two Ctrl-C leave nothing, within 2 s', async () => {
      const demo = await startDemo(['--live'], `pw-demo-twice-${process.pid}`);
      let done = false;
      try {
        const out = demo.out();
        // Per CLI: its environment (pointing at the model server), and both ways to start one more.
        expect(out).toContain(`ANTHROPIC_BASE_URL                       ${demo.model}`);
        expect(out).toContain(
          'ANTHROPIC_API_KEY                        sk-ant-api03-paneward-fake-key-0123456789abcdefghij',
        );
        expect(out).toMatch(
          new RegExp(
            `tmux -L ${demo.socket} new-session -d -s claude_code-mine .* -- env .*ANTHROPIC_BASE_URL=${demo.model} .*/claude\\n`,
          ),
        );
        expect(out).toMatch(
          /paneward spawn claude_code --url http:\S+ --cwd \S+ --env HOME=\S+ .*--env ANTHROPIC_BASE_URL=http:/,
        );
        if (haveCodex) {
          expect(out).toContain('codex (pane codex-live)');
          expect(out).toMatch(/paneward spawn codex .*--env CODEX_HOME=\S+/);
        }

        // The Start form, preset with Claude Code's offline environment, starts one more: ready.
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        await page.goto(demo.url);
        await page.waitForSelector('#spawn-form[data-presets]');
        await page.selectOption('#spawn-tool', 'claude_code');
        expect(await page.inputValue('#spawn-env')).toContain(`ANTHROPIC_BASE_URL=${demo.model}`);
        expect(await page.inputValue('#spawn-cwd')).toContain(demo.scratch);
        await page.fill('#spawn-name', 'form');
        await page.click('#spawn-form button');
        await page.waitForSelector('#spawn-status[data-state="done"]', { timeout: 90_000 });
        expect(await page.textContent('#spawn-status')).toBe('paneward-form: ready');
        await page.close();

        // Codex's app-server daemon, which outlives its TUI, comes with a turn.
        if (haveCodex) await promptToSuccess(demo.url, 'codex-live');
        const server = await execa('tmux', [
          '-L',
          demo.socket,
          'display',
          '-p',
          '#{pid} #{socket_path}',
        ]);
        const [tmuxPid, socketPath] = server.stdout.trim().split(' ') as [string, string];
        const ours = [
          ...new Set([...(await treeOf(Number(tmuxPid))), ...processesNaming(demo.scratch)]),
        ];
        const names = ours.map((p) => {
          try {
            return readFileSync(`/proc/${p}/cmdline`, 'latin1').replace(/\0/g, ' ');
          } catch {
            return '';
          }
        });
        expect(names.filter((n) => /\/claude\b/.test(n)).length).toBeGreaterThanOrEqual(2);
        if (haveCodex) expect(names.some((n) => /app-server/.test(n))).toBe(true);

        const t0 = Date.now();
        demo.child.kill('SIGINT');
        await new Promise((r) => setTimeout(r, 150));
        demo.child.kill('SIGINT');
        const end = await demo.exited;
        done = true;
        const took = end.at - t0;
        console.log(
          `two SIGINTs: gone after ${took} ms\n${demo.out().split('Ctrl-C stops it')[1]}`,
        );
        expect(took).toBeLessThanOrEqual(2000);
        expect(demo.out()).toMatch(/stopping \(SIGINT[^\n]*\n(\s+\S.*\n)*\s+model server\s+http/);
        expect(demo.out()).toMatch(/tmux server\s+pw-demo-twice/);
        expect(demo.out()).toMatch(/scratch folder\s+\/\S+/);
        // Nothing is left.
        const left = await execa('tmux', ['-L', demo.socket, 'ls'], { reject: false });
        expect(left.exitCode).not.toBe(0);
        expect(existsSync(socketPath)).toBe(false);
        expect(existsSync(demo.scratch)).toBe(false);
        expect(ours.filter(alive)).toEqual([]);
        expect(processesNaming(demo.scratch)).toEqual([]);
      } finally {
        if (!done) demo.child.kill('SIGKILL');
      }
    }, 300_000);

    it('the plain demo: the form starts an installed CLI; one Ctrl-C says what it stops, exits 0 within 2 s', async () => {
      const demo = await startDemo([], `pw-demo-once-${process.pid}`);
      let done = false;
      try {
        expect(demo.out()).toContain("The dashboard's Start form fills in these set-ups");
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        await page.goto(demo.url);
        await page.waitForSelector('#spawn-form[data-presets]');
        await page.selectOption('#spawn-tool', 'claude_code');
        expect(await page.inputValue('#spawn-env')).toContain(`ANTHROPIC_BASE_URL=${demo.model}`);
        // A line that is not KEY=VALUE is refused before anything starts, naming the line.
        const preset = await page.inputValue('#spawn-env');
        await page.fill('#spawn-env', `${preset}\nnot an assignment`);
        await page.click('#spawn-form button');
        await page.waitForSelector('#spawn-status[data-state="error"]');
        expect(await page.textContent('#spawn-status')).toMatch(
          /environment, line \d+: .* KEY=VALUE/,
        );
        await page.fill('#spawn-env', preset);
        await page.click('#spawn-form button');
        await page.waitForSelector('#spawn-status[data-state="done"]', { timeout: 90_000 });
        expect(await page.textContent('#spawn-status')).toBe('paneward-claude_code: ready');
        await page.close();
        const server = await execa('tmux', ['-L', demo.socket, 'display', '-p', '#{pid}']);
        const ours = await treeOf(Number(server.stdout.trim()));

        const t0 = Date.now();
        demo.child.kill('SIGINT');
        const end = await demo.exited;
        done = true;
        console.log(`one SIGINT: gone after ${end.at - t0} ms`);
        expect(end.code).toBe(0);
        expect(end.at - t0).toBeLessThanOrEqual(2000);
        expect(demo.out()).toMatch(/paneward demo: stopped in \d\.\d s/);
        expect(demo.out()).toMatch(/claude-asks\s+claude_code in its pane/);
        expect(existsSync(demo.scratch)).toBe(false);
        expect(ours.filter(alive)).toEqual([]);
        const left = await execa('tmux', ['-L', demo.socket, 'ls'], { reject: false });
        expect(left.exitCode).not.toBe(0);
      } finally {
        if (!done) demo.child.kill('SIGKILL');
      }
    }, 300_000);
  },
);
