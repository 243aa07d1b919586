import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecorder } from '../../src/observe/recorder.js';
import { ClaimRegistry } from '../../src/sessions/observer.js';
import type { SessionRecordReader } from '../../src/profiles/session-record.js';
import { RecordingLine, type RecordingRecordPiece } from '../../src/schemas/recording.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';

let dir: string;
let s: AgentSession | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pw-recorder-record-'));
});
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function until(check: () => boolean, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * A reader of a made-up record, `<cwd>/session.jsonl`, found from the pane's process facts like
 * the real readers (its working folder): what the recorder keeps is each piece as read.
 */
function testReader(): SessionRecordReader & { located: string[] } {
  const located: string[] = [];
  return {
    tool: 'test_cli',
    kind: 'jsonl',
    verifiedVersions: ['1'],
    located,
    locate(context) {
      const file = join(context.cwd, 'session.jsonl');
      located.push(file);
      try {
        readFileSync(file);
        return Promise.resolve(file);
      } catch {
        return Promise.resolve(null);
      }
    },
    read: () => ({ events: [] }),
  };
}

describe('startRecorder with the session record', () => {
  it("writes each piece of the pane's record as the follower reads it, with its time and offset", async () => {
    s = await startAgentSession({
      cwd: dir,
      env: { HOME: dir },
      cols: 80,
      rows: 10,
      command: ['bash', '--norc', '--noprofile'],
    });
    await s.waitForProcess(['bash']);
    const out = join(dir, 'rec.jsonl');
    const record = join(dir, 'session.jsonl');
    const reader = testReader();
    const recorder = startRecorder({
      transport: s.transport,
      target: s.target,
      tool: 'unsupported',
      processNames: ['bash'],
      intervalMs: 50,
      file: out,
      sessionRecord: reader,
    });
    const lines = (): RecordingLine[] =>
      readFileSync(out, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => RecordingLine.parse(JSON.parse(l)));
    const pieces = (): RecordingRecordPiece[] =>
      lines().filter((l): l is RecordingRecordPiece => l.type === 'record_piece');
    // Looked for as the recording starts, from the pane's own process.
    await until(() => reader.located.length > 0);
    expect(reader.located[0]).toBe(record);

    // Written when a prompt is submitted: the record is looked for again, then followed.
    writeFileSync(record, '{"n":1}\n{"n":2}\n');
    recorder.input('a prompt');
    await until(() => pieces().length >= 2);
    appendFileSync(record, '{"n":3');
    await new Promise((r) => setTimeout(r, 300));
    expect(pieces()).toHaveLength(2); // a line still being written waits for its newline
    appendFileSync(record, '}\n');
    await until(() => pieces().length >= 3);
    // Cut short: read again from the start, and the piece says so.
    writeFileSync(record, '{"n":4}\n');
    await until(() => pieces().length >= 4);
    await recorder.stop();

    const all = lines();
    expect(all[0]).toMatchObject({
      type: 'header',
      sessionRecord: { reader: 'test_cli', kind: 'jsonl' },
    });
    expect(
      pieces().map(({ file, offset, text, reset }) => ({ file, offset, text, reset })),
    ).toEqual([
      { file: 'session.jsonl', offset: 0, text: '{"n":1}', reset: undefined },
      { file: 'session.jsonl', offset: 8, text: '{"n":2}', reset: undefined },
      { file: 'session.jsonl', offset: 16, text: '{"n":3}', reset: undefined },
      { file: 'session.jsonl', offset: 0, text: '{"n":4}', reset: 'truncated' },
    ]);
    const input = all.find((l) => l.type === 'input')!;
    const times = all.slice(1).map((l) => (l as { t: number }).t);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(pieces()[0]!.t).toBeGreaterThanOrEqual((input as { t: number }).t);
    // The recording never holds the record's path, only its name.
    expect(readFileSync(out, 'utf8')).not.toContain(record);
  });

  it('never follows a record another observer of the process claims', async () => {
    const sub = join(dir, 'claimed');
    mkdirSync(sub);
    const record = join(sub, 'session.jsonl');
    writeFileSync(record, '{"n":1}\n');
    const claims = new ClaimRegistry();
    claims.claim(record, 'another pane');
    await s!.sendText(`cd ${sub}`);
    await s!.sendKeys('Enter');
    const pane = await s!.panePid();
    await until(() => readlinkSync(`/proc/${pane}/cwd`) === sub);
    const out = join(dir, 'claimed.jsonl');
    const reader = testReader();
    const recorder = startRecorder({
      transport: s!.transport,
      target: s!.target,
      tool: 'unsupported',
      processNames: ['bash'],
      intervalMs: 50,
      file: out,
      sessionRecord: reader,
      claims,
    });
    recorder.input('a prompt');
    await until(() => reader.located.length >= 2);
    await new Promise((r) => setTimeout(r, 300));
    await recorder.stop();
    expect(reader.located).toContain(record);
    expect(readFileSync(out, 'utf8')).not.toContain('record_piece');
  });

  it('writes no header field and no pieces without a reader', async () => {
    const out = join(dir, 'plain.jsonl');
    const recorder = startRecorder({
      transport: s!.transport,
      target: s!.target,
      tool: 'unsupported',
      processNames: ['bash'],
      intervalMs: 50,
      file: out,
    });
    await until(() => readFileSync(out, 'utf8').split('\n').length >= 3);
    await recorder.stop();
    const text = readFileSync(out, 'utf8');
    expect(text).not.toContain('sessionRecord');
    expect(text).not.toContain('record_piece');
  });
});
