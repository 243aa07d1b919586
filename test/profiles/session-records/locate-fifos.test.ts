import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeCodeSessionRecord } from '../../../src/profiles/claude_code/session-record.js';
import { clineLog, clineSessionRecord } from '../../../src/profiles/cline/session-record.js';
import { codexSessionRecord } from '../../../src/profiles/codex/session-record.js';
import { copilotSessionRecord } from '../../../src/profiles/copilot/session-record.js';
import { geminiCliSessionRecord } from '../../../src/profiles/gemini_cli/session-record.js';
import { qwenCodeSessionRecord } from '../../../src/profiles/qwen_code/session-record.js';
import type { SessionContext } from '../../../src/profiles/session-record.js';

/**
 * Each reader's `locate` in a home whose session files are FIFOs (docs/session-records.md,
 * "Reading safely"): it passes over them without opening one, so it neither blocks nor holds a
 * thread of libuv's pool.
 */

const root = mkdtempSync(join(tmpdir(), 'pw-locate-fifos-'));
const fifos: string[] = [];
afterAll(() => {
  for (const fifo of fifos) {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // No reader waiting.
    }
  }
  rmSync(root, { recursive: true, force: true });
});

function mkfifo(path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  execFileSync('mkfifo', [path]);
  fifos.push(path);
  return path;
}

const PID = 2 ** 30; // no such process: the readers fall back to start times alone
const startedAtMs = Date.now() - 10_000;
const context = (home: string, over: Partial<SessionContext> = {}): SessionContext => ({
  pid: PID,
  cwd: '/work',
  env: { HOME: home },
  openFiles: [],
  startedAtMs,
  claimed: new Set(),
  ...over,
});

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not done within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

async function poolIsFree(): Promise<void> {
  const small = join(root, 'small.txt');
  writeFileSync(small, 'x');
  const ops = Array.from({ length: 16 }, (_, i) => (i % 2 ? stat(small) : readFile(small)));
  await within(Promise.all(ops), 2000, '16 fs operations');
}

describe('locate never opens a FIFO', () => {
  it('Codex, Gemini CLI, Qwen Code, Claude Code: a FIFO named like a record is passed over', async () => {
    const day = new Date().toISOString().slice(0, 10).split('-');
    const codex = join(root, 'codex');
    mkfifo(join(codex, '.codex', 'sessions', ...day, 'rollout-x.jsonl'));
    const gemini = join(root, 'gemini');
    mkfifo(join(gemini, '.gemini', 'tmp', 'p', 'chats', 'session-x.jsonl'));
    const qwen = join(root, 'qwen');
    mkfifo(join(qwen, '.qwen', 'projects', '-work', 'chats', 'a.jsonl'));
    const qwenDebug = join(root, 'qwen-debug');
    mkfifo(join(qwenDebug, '.qwen', 'debug', 'b.txt'));
    mkfifo(join(qwenDebug, '.qwen', 'projects', '-work', 'chats', 'b.jsonl'));
    const claude = join(root, 'claude');
    mkfifo(join(claude, '.claude', 'projects', '-work', 'c.jsonl'));
    const runs: Array<[string, Promise<string | null>]> = [
      ['codex', codexSessionRecord.locate(context(codex))],
      ['gemini_cli', geminiCliSessionRecord.locate(context(gemini))],
      ['qwen_code', qwenCodeSessionRecord.locate(context(qwen))],
      ['qwen_code (debug logs)', qwenCodeSessionRecord.locate(context(qwenDebug))],
      ['claude_code', claudeCodeSessionRecord.locate(context(claude))],
    ];
    for (const [name, run] of runs) expect(await within(run, 1000, name)).toBeNull();
    await poolIsFree();
  });

  it('Cline: a FIFO as a session’s metadata, its messages or the log is passed over', async () => {
    const home = join(root, 'cline');
    const sessions = join(home, '.cline', 'data', 'sessions');
    mkfifo(join(sessions, '1_meta', '1_meta.json'));
    mkdirSync(join(sessions, '2_msgs'), { recursive: true });
    const meta = { pid: PID, started_at: new Date(startedAtMs + 1000).toISOString() };
    writeFileSync(join(sessions, '2_msgs', '2_msgs.json'), JSON.stringify(meta));
    mkfifo(join(sessions, '2_msgs', '2_msgs.messages.json'));
    mkfifo(join(home, '.cline', 'data', 'logs', 'cline.log'));
    expect(await within(clineSessionRecord.locate(context(home)), 1000, 'cline')).toBeNull();
    expect(await within(clineLog.locate(context(home)), 1000, 'cline log')).toBeNull();
    await poolIsFree();
  });

  it('Copilot CLI: a FIFO as the locked session’s events.jsonl is passed over', async () => {
    const home = join(root, 'copilot');
    const dir = join(home, '.copilot', 'session-state', 's1');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `inuse.${PID}.lock`), '');
    mkfifo(join(dir, 'events.jsonl'));
    expect(await within(copilotSessionRecord.locate(context(home)), 1000, 'copilot')).toBeNull();
    await poolIsFree();
  });
});
