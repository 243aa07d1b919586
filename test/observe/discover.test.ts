import { chmodSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectPaneTool, discoverPanes, listPanes } from '../../src/observe/discover.js';
import { createExecaTransport } from '../../src/observe/execa-transport.js';
import type { TmuxTransport } from '../../src/observe/transport.js';
import { knownTools } from '../../src/profiles/index.js';
import { startAgentSession, uniqueSocketName } from '../e2e/harness/session.js';
import type { AgentSession } from '../e2e/harness/session.js';

let dir: string;
let s: AgentSession | undefined;

function fakeAgent(name: string): string {
  // A copy of sleep: the process NAME is the tool's, nothing else is.
  const path = join(dir, name);
  copyFileSync('/bin/sleep', path);
  chmodSync(path, 0o755);
  return path;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pw-discover-'));
});
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('discoverPanes', () => {
  it('names the tool running in each pane, directly or under a shell', async () => {
    s = await startAgentSession({ cwd: dir, env: {}, command: ['sleep', '300'] });
    // Until env has exec'd sleep, the first pane's command is not yet named sleep.
    await s.waitForProcess(['sleep']);
    const claude = fakeAgent('claude');
    const codex = fakeAgent('codex');
    await s.transport.run(['split-window', '-d', '-t', s.target, '--', claude, '300']);
    await s.transport.run([
      'split-window',
      '-d',
      '-t',
      s.target,
      '--',
      'sh',
      '-c',
      `"${codex}" 300; true`,
    ]);

    const rows = await listPanes(s.transport);
    expect(rows.map((r) => r.target).sort()).toEqual(['pw:0.0', 'pw:0.1', 'pw:0.2']);

    // The new panes' processes may still be between fork and exec: look again for a while.
    let found = await discoverPanes(s.transport, knownTools());
    for (let i = 0; i < 100 && found.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 50));
      found = await discoverPanes(s.transport, knownTools());
    }
    const byTool = Object.fromEntries(found.map((f) => [f.tool, f]));
    expect(found).toHaveLength(2);
    expect(byTool.claude_code?.paneId).toMatch(/^%\d+$/);
    expect(byTool.codex?.pids).toHaveLength(1);
    const targets = new Set(found.map((f) => f.target));
    const plain = rows.find((r) => r.currentCommand === 'sleep' && !targets.has(r.target));
    expect(plain).toBeDefined();
  });

  it('the first matching profile wins', async () => {
    expect(s).toBeDefined();
    const found = await discoverPanes(s!.transport, [
      { id: 'first', processNames: ['sleep', 'claude'] },
      { id: 'second', processNames: ['claude'] },
    ]);
    expect(found.map((f) => f.tool)).toEqual(['first', 'first']);
  });

  it('finds nothing when no server runs', async () => {
    const transport = createExecaTransport({ socketName: uniqueSocketName('pw-absent') });
    expect(await discoverPanes(transport, knownTools())).toEqual([]);
  });
});

describe('detectPaneTool', () => {
  /** The session's transport, remembering the tmux subcommands it ran. */
  function spy(): { transport: TmuxTransport; commands: string[] } {
    const commands: string[] = [];
    const transport: TmuxTransport = {
      run: (args, opts) => {
        commands.push(String(args[0] ?? ''));
        return s!.transport.run(args, opts);
      },
      close: async () => {},
    };
    return { transport, commands };
  }

  /** The pane target discoverPanes found running `tool`. */
  async function targetOf(tool: string): Promise<string> {
    const found = await discoverPanes(s!.transport, knownTools());
    const target = found.find((f) => f.tool === tool)?.target;
    if (!target) throw new Error(`no pane runs ${tool}`);
    return target;
  }

  it('names the tool of one pane with one tmux call, not a scan of the server', async () => {
    expect(s).toBeDefined();
    const [claudePane, codexPane] = [await targetOf('claude_code'), await targetOf('codex')];
    const { transport, commands } = spy();
    const claude = await detectPaneTool(transport, claudePane, knownTools());
    expect(claude).toMatchObject({
      tool: 'claude_code',
      pane: { id: expect.stringMatching(/^%/) },
    });
    expect(claude.pids).toHaveLength(1);
    expect(commands).toEqual(['display-message']);
    // Under a shell, too; and the first matching profile wins.
    expect((await detectPaneTool(transport, codexPane, knownTools())).tool).toBe('codex');
    const first = await detectPaneTool(transport, claudePane, [
      { id: 'first', processNames: ['sleep', 'claude'] },
      { id: 'second', processNames: ['claude'] },
    ]);
    expect(first.tool).toBe('first');
    expect(commands).toEqual(['display-message', 'display-message', 'display-message']);
  });

  it('gives no tool for a pane running none of the profiles', async () => {
    const found = await detectPaneTool(s!.transport, 'pw:0.0', knownTools());
    expect(found).toMatchObject({ tool: null, pids: [], pane: { currentCommand: 'sleep' } });
  });

  it('rejects with tmux_missing for a pane or a server that does not exist', async () => {
    await expect(detectPaneTool(s!.transport, 'pw:0.9', knownTools())).rejects.toMatchObject({
      code: 'tmux_missing',
      message: expect.stringMatching(/pw:0\.9/),
    });
    const transport = createExecaTransport({ socketName: uniqueSocketName('pw-absent') });
    await expect(detectPaneTool(transport, 'pw:0.0', knownTools())).rejects.toMatchObject({
      code: 'tmux_missing',
    });
  });

  it('rejects with aborted when its signal fires', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      detectPaneTool(s!.transport, 'pw:0.1', knownTools(), { signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'aborted' });
  });
});
