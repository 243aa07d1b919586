import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWatch } from '../../src/cli/watch.js';
import { TerminalState } from '../../src/schemas/terminal-state.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';

describe('paneward watch', () => {
  let session: AgentSession;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-watch-'));
    session = await startAgentSession({
      cwd: dir,
      env: {},
      command: ['sh', '-c', 'echo hello; exec cat'],
    });
  });

  afterAll(async () => {
    await session?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints the public state of a live pane until the duration ends', async () => {
    const out: string[] = [];
    const err: string[] = [];
    await runWatch(
      {
        targets: [session.target],
        socketName: session.socketName,
        duration: '1.5',
        format: 'json',
      },
      { out: (l) => out.push(l), err: (l) => err.push(l), signal: new AbortController().signal },
    );
    const states = out.map((l) => TerminalState.parse(JSON.parse(l)));
    expect(states.length).toBeGreaterThan(0);
    const last = states.at(-1)!;
    // `cat` is no known agent: detected as unsupported, so readiness refuses to guess.
    expect(last.tool).toBe('unsupported');
    expect(last.diagnostics.transport).toBe('tmux_up');
    expect(last.readiness.status).toBe('failed');
    expect(err).toEqual([]);
  });

  it('names the missing field', async () => {
    await expect(runWatch({ targets: [] })).rejects.toThrow(/targets.*--discover/);
    await expect(runWatch({ targets: ['bad target'] })).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });
});
