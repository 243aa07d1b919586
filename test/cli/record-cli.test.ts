import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRecordOptions, registerRecord, runRecord } from '../../src/cli/record.js';
import { RecordingLine } from '../../src/schemas/recording.js';
import { startAgentSession } from '../e2e/harness/session.js';
import type { AgentSession } from '../e2e/harness/session.js';

let dir: string;
let s: AgentSession | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pw-record-cli-'));
});
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

function read(file: string): RecordingLine[] {
  return readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => RecordingLine.parse(JSON.parse(l)));
}

describe('paneward record', () => {
  it('detects the tool from the pane process and records for --duration', async () => {
    const claude = join(dir, 'claude');
    copyFileSync('/bin/sleep', claude);
    chmodSync(claude, 0o755);
    s = await startAgentSession({
      cwd: dir,
      env: {},
      cols: 100,
      rows: 30,
      command: [claude, '300'],
    });
    await s.waitForProcess(['claude']);
    const file = join(dir, 'cli.jsonl');
    const program = new Command().exitOverride();
    registerRecord(program);
    const started = Date.now();
    await program.parseAsync(
      ['record', s.target, '-o', file, '-L', s.socketName, '--interval', '50', '--duration', '0.6'],
      { from: 'user' },
    );
    expect(Date.now() - started).toBeLessThan(3000);
    const lines = read(file);
    expect(lines[0]).toMatchObject({ type: 'header', tool: 'claude_code', cols: 100, rows: 30 });
    const frames = lines.filter((l) => l.type === 'frame');
    expect(frames.length).toBeGreaterThanOrEqual(2);
    expect(frames.every((f) => f.process === 'tui_up' && f.ansi === undefined)).toBe(true);
  });

  it('stops on its signal and records as unsupported when no known tool runs', async () => {
    expect(s).toBeDefined();
    await s!.transport.run(['split-window', '-d', '-t', s!.target, '--', 'sleep', '300']);
    const file = join(dir, 'other.jsonl');
    const logs: string[] = [];
    const controller = new AbortController();
    // Stop once two polls are on file, however slow the machine is.
    const watch = setInterval(() => {
      if (existsSync(file) && readFileSync(file, 'utf8').split('\n').length > 3) controller.abort();
    }, 20);
    await runRecord(
      { target: 'pw:0.1', output: file, socketName: s!.socketName, interval: '50', ansi: true },
      { log: (l) => logs.push(l), signal: controller.signal },
    );
    clearInterval(watch);
    const lines = read(file);
    expect(lines[0]).toMatchObject({ type: 'header', tool: 'unsupported' });
    expect(lines[1]).toMatchObject({
      type: 'frame',
      process: 'unsupported_tool',
      ansi: expect.any(String),
    });
    expect(logs.join('\n')).toMatch(/unsupported/);
  });

  it('fails clearly for a target that does not exist', async () => {
    await expect(
      runRecord(
        { target: 'nope:0.0', output: join(dir, 'n.jsonl'), socketName: s!.socketName },
        { log: () => {} },
      ),
    ).rejects.toMatchObject({ code: 'tmux_missing', message: expect.stringMatching(/nope:0\.0/) });
  });

  it('leaves the output file alone when stopped during setup', async () => {
    expect(s).toBeDefined();
    const file = join(dir, 'kept.jsonl');
    // Stopped before it starts, and stopped while it asks tmux about the pane.
    for (const stopAt of ['before', 'during'] as const) {
      writeFileSync(file, 'an earlier recording\n');
      const logs: string[] = [];
      const controller = new AbortController();
      if (stopAt === 'before') controller.abort();
      const run = runRecord(
        { target: s!.target, output: file, socketName: s!.socketName, interval: '50' },
        { log: (l) => logs.push(l), signal: controller.signal },
      );
      controller.abort();
      await run;
      expect(readFileSync(file, 'utf8')).toBe('an earlier recording\n');
      expect(logs).toEqual([`stopped before recording started; ${file} not written`]);
    }
  });

  it.each([
    [{ duration: '2147484' }, /--duration: must be at most 2147483 seconds/],
    [{ interval: String(2 ** 31) }, /--interval: must be at most 2147483647 ms/],
    [{ interval: 'soon' }, /--interval/],
    [{ interval: '5' }, /--interval: must be at least 10 ms/],
    [{ duration: '-1' }, /--duration/],
    [{ socketName: 'a', socketPath: '/tmp/b' }, /--socket-path/],
    [{ tool: 'Claude Code' }, /--tool/],
    [{ output: ' ' }, /--output/],
    [{ target: 'work' }, /^target /],
  ])('rejects %j naming the option', (bad, message) => {
    expect(() => parseRecordOptions({ target: 'w:0.0', output: 'x.jsonl', ...bad })).toThrow(
      message,
    );
  });
});
