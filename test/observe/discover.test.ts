import { chmodSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverPanes, listPanes } from '../../src/observe/discover.js';
import { createExecaTransport } from '../../src/observe/execa-transport.js';
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
