import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecorder } from '../../src/observe/recorder.js';
import { RecordingLine } from '../../src/schemas/recording.js';
import { THEN, type TmuxArg } from '../../src/observe/tmux-argv.js';
import { startAgentSession } from '../e2e/harness/session.js';
import type { AgentSession } from '../e2e/harness/session.js';

let dir: string;
let s: AgentSession | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pw-recorder-'));
});
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

function readRecording(file: string): RecordingLine[] {
  return readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => RecordingLine.parse(JSON.parse(line)));
}

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('startRecorder', () => {
  it('records header, frames, input and the session going away', async () => {
    s = await startAgentSession({
      cwd: dir,
      env: { HOME: dir },
      cols: 90,
      rows: 20,
      command: ['bash', '--norc', '--noprofile'],
    });
    // Until env has exec'd bash, the pane's process is not yet named bash.
    await s.waitForProcess(['bash']);
    const file = join(dir, 'rec.jsonl');
    const recorder = startRecorder({
      transport: s.transport,
      target: s.target,
      tool: 'unsupported',
      toolVersion: '0.0.0-test',
      processNames: ['bash'],
      intervalMs: 40,
      file,
      includeAnsi: true,
    });
    const lines = (): RecordingLine[] => readRecording(file);
    await until(() => lines().filter((l) => l.type === 'frame').length >= 2);
    recorder.input('echo recorded');
    await s.sendText('echo recorded');
    await s.sendKeys('Enter');
    await until(() => lines().some((l) => l.type === 'frame' && /^recorded$/m.test(l.text)));
    await s.killSession();
    await until(() => lines().filter((l) => l.type === 'probe').length >= 2);
    await recorder.stop();
    await recorder.done;

    const all = lines();
    expect(all[0]).toMatchObject({
      type: 'header',
      version: 1,
      tool: 'unsupported',
      toolVersion: '0.0.0-test',
      cols: 90,
      rows: 20,
    });
    expect((all[0] as Record<string, unknown>).startedAtEpochMs).toEqual(expect.any(Number));
    expect(all.slice(1).every((l) => l.type !== 'header')).toBe(true);

    const times = all.slice(1).map((l) => (l as { t: number }).t);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times.every((t) => Math.round(t * 1000) === t * 1000)).toBe(true);

    const frames = all.filter((l) => l.type === 'frame');
    expect(frames[0]).toMatchObject({ transport: 'tmux_up', process: 'tui_up' });
    expect(frames.every((f) => typeof f.ansi === 'string')).toBe(true);
    expect(all.filter((l) => l.type === 'input')).toEqual([
      { type: 'input', t: expect.any(Number), text: 'echo recorded' },
    ]);

    const probes = all.filter((l) => l.type === 'probe');
    expect(probes.length).toBeGreaterThanOrEqual(2);
    expect(probes[0], JSON.stringify(probes)).toMatchObject({
      transport: 'tmux_missing',
      process: 'unknown',
    });
    // Once gone, nothing but probe lines follow.
    const firstProbe = all.findIndex((l) => l.type === 'probe');
    expect(all.slice(firstProbe).every((l) => l.type === 'probe')).toBe(true);

    // Polls never overlap and follow the interval, so there are not many more than elapsed/interval.
    const last = times.at(-1) ?? 0;
    expect(frames.length + probes.length).toBeLessThanOrEqual(Math.ceil((last * 1000) / 40) + 2);
    expect(() => recorder.input('late')).toThrow(/stopped/);
  });

  it('writes a header without a size when the target never existed, and stops promptly', async () => {
    const { createExecaTransport } = await import('../../src/observe/execa-transport.js');
    const transport = createExecaTransport({ socketName: `pw-absent-${process.pid}` });
    const file = join(dir, 'absent.jsonl');
    const recorder = startRecorder({
      transport,
      target: 'gone:0.0',
      tool: 'codex',
      processNames: ['codex'],
      intervalMs: 1000,
      file,
    });
    recorder.input('typed before the first poll settled');
    await until(() => readFileSync(file, 'utf8').split('\n').length >= 3);
    const started = Date.now();
    await recorder.stop();
    expect(Date.now() - started).toBeLessThan(500);
    const all = readRecording(file);
    expect(all[0]).toMatchObject({ type: 'header', tool: 'codex' });
    expect(all[0]).not.toHaveProperty('cols');
    expect(all.map((l) => l.type)).toEqual(['header', 'input', 'probe']);
    expect(all[2]).toMatchObject({ transport: 'tmux_missing' });
  });

  it('rejects an invalid target naming it', () => {
    expect(() =>
      startRecorder({
        transport: { run: async () => '', close: async () => {} },
        target: 'nope',
        tool: 'x',
        processNames: [],
        file: join(dir, 'x.jsonl'),
      }),
    ).toThrow(/target/);
  });
});

describe('startRecorder with an injected clock', () => {
  it('stamps lines with seconds since start, rounded to ms', async () => {
    let clock = 1000;
    let polls = 0;
    const transport = {
      async run(args: readonly TmuxArg[]) {
        polls += 1;
        clock += 123.4567; // each poll takes this long on the injected clock
        const marker = String(args[args.indexOf(THEN) + 3]);
        return `%3\t4242\t1\t80\t24\tsh\n${marker}\nscreen ${polls}\n`;
      },
      async close() {},
    };
    const file = join(dir, 'clock.jsonl');
    const recorder = startRecorder({
      transport,
      target: '%3',
      tool: 'claude_code',
      processNames: ['claude'],
      intervalMs: 10,
      file,
      now: () => clock,
    });
    await until(() => polls >= 3);
    await recorder.stop();
    const all = readRecording(file);
    expect(all[0]).toMatchObject({ type: 'header', cols: 80, rows: 24, tool: 'claude_code' });
    expect(all[1]).toEqual({
      type: 'frame',
      t: 0.123,
      text: 'screen 1',
      transport: 'tmux_up',
      process: 'tui_down',
    });
    expect(all[2]).toMatchObject({ type: 'frame', t: 0.247, text: 'screen 2' });
  });
});

describe('startRecorder when the file cannot be written', () => {
  const child = join(import.meta.dirname, 'recorder-write-failure.child.ts');
  // The child runs under a file size limit in 1 KiB blocks; past it, writes fail with EFBIG.
  async function runChild(limitKiB: number, mode: string): Promise<Record<string, unknown>> {
    const out = join(dir, `fail-${mode}`);
    mkdirSync(out, { recursive: true });
    const { stdout } = await promisify(execFile)(
      'sh',
      [
        '-c',
        'ulimit -f "$1" && exec "$2" --import tsx "$3" "$4" "$5"',
        'sh',
        String(limitKiB),
        process.execPath,
        child,
        out,
        mode,
      ],
      { cwd: join(import.meta.dirname, '../..'), timeout: 15_000 },
    );
    return JSON.parse(stdout) as Record<string, unknown>;
  }

  it('stops for good on a failed write: input() throws and nothing reaches a reused descriptor', async () => {
    expect(await runChild(4, 'frames')).toEqual({
      doneError: 'internal',
      inputError: 'stopped',
      stopError: 'internal',
      // The file opened after the failure got the recorder's old descriptor number.
      reusedFd: true,
      other: '',
      openFds: 0,
      recordedSecret: false,
    });
  });

  it('closes the file when the header itself cannot be written', async () => {
    expect(await runChild(0, 'header')).toEqual({ doneError: 'internal', openFds: 0, size: 0 });
  });
});

describe('startRecorder limits', () => {
  it('bounds the input queued before the header', async () => {
    // tmux never answers: the first poll only ends when stop() aborts it.
    const transport = {
      run: (_args: readonly string[], opts: { signal?: AbortSignal } = {}) =>
        new Promise<string>((_, reject) =>
          opts.signal?.addEventListener('abort', () => reject(new Error('aborted')), {
            once: true,
          }),
        ),
      async close() {},
    };
    const file = join(dir, 'queued.jsonl');
    const recorder = startRecorder({
      transport,
      target: '%1',
      tool: 'codex',
      processNames: ['codex'],
      file,
    });
    for (let i = 0; i < 1000; i++) recorder.input(`prompt ${i}`);
    expect(() => recorder.input('one too many')).toThrow(
      expect.objectContaining({ code: 'not_ready' }),
    );
    expect(() => recorder.input('x'.repeat(9 * 1024 * 1024))).toThrow(/cannot queue/);
    await recorder.stop();
    const all = readRecording(file);
    expect(all[0]).toMatchObject({ type: 'header' });
    expect(all.slice(1).map((l) => l.type === 'input' && l.text)).toEqual(
      Array.from({ length: 1000 }, (_, i) => `prompt ${i}`),
    );
  });

  it('rejects an interval a timer cannot wait', () => {
    const transport = { run: async () => '', close: async () => {} };
    for (const intervalMs of [2 ** 31, Infinity, 0]) {
      expect(() =>
        startRecorder({
          transport,
          target: '%1',
          tool: 'x',
          processNames: [],
          file: join(dir, 'never.jsonl'),
          intervalMs,
        }),
      ).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    }
  });
});
