import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { happeningsOf } from '../../src/notify/events.js';
import { parseCommand } from '../../src/notify/sinks.js';
import { NotifyEvent } from '../../src/schemas/notify.js';
import type { JournalRecord } from '../../src/schemas/record.js';
import { startReceiver } from './internal/receiver.js';
import { testPort } from './internal/test-port.js';
import { start, asRecord } from './internal/notifier-harness.js';

const CAPTURE = fileURLToPath(new URL('./internal/capture-event.mjs', import.meta.url));
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('notify: events read from records', () => {
  const base = { v: 1 as const, seq: 1, at: new Date().toISOString(), terminalId: 't1' };
  const state = (changed: Record<string, unknown>) =>
    happeningsOf({ ...base, kind: 'state', t: 1, changed, transitions: [], evidence: null });

  it('tells questions, stalls, exits and gone panes; not a turn another replaced', () => {
    expect(state({ 'readiness.status': 'blocked' })).toEqual([
      { kind: 'question', terminalId: 't1' },
    ]);
    expect(state({ 'readiness.status': 'stalled' }).map((h) => h.kind)).toEqual(['stalled']);
    // A completion that appears as a whole object counts by its status.
    expect(
      state({ completion: { turnId: 'turn-1', status: 'stalled' } }).map((h) => h.kind),
    ).toEqual(['stalled']);
    expect(state({ 'diagnostics.availability': 'tui_down' }).map((h) => h.kind)).toEqual([
      'exited',
    ]);
    expect(state({ 'diagnostics.availability': 'unavailable' }).map((h) => h.kind)).toEqual([
      'gone',
    ]);
    expect(state({ 'readiness.status': 'ready' })).toEqual([]);
    expect(happeningsOf({ ...base, kind: 'terminal.detached' })).toEqual([
      { kind: 'gone', terminalId: 't1' },
    ]);
    expect(
      happeningsOf({
        ...base,
        kind: 'turn.ended',
        turnId: 'turn-1',
        source: 'explicit_input',
        outcome: 'none',
        t: 1,
      }),
    ).toEqual([]);
  });

  it('names the host of a fleet record', () => {
    const r = { ...base, terminalId: 'host-a/t1', kind: 'terminal.detached', host: 'host-a' };
    expect(happeningsOf(r as JournalRecord)).toEqual([
      { kind: 'gone', terminalId: 'host-a/t1', host: 'host-a' },
    ]);
  });

  it('sends a gone terminal with its last known state', async () => {
    const rx = await startReceiver();
    const p = testPort();
    p.put('t1', (s) => (s.readiness.status = 'ready'));
    start(p.port, { webhooks: [rx.url] });
    p.drop('t1');
    p.emit({ kind: 'terminal.detached', terminalId: 't1' });
    const [got] = await rx.waitFor(1);
    expect(got!.body).toMatchObject({
      kind: 'gone',
      terminalId: 't1',
      state: { readiness: 'ready' },
    });
    await rx.close();
  });
});

describe('notify: a terminal never read', () => {
  it('is told with its tool and state unknown rather than not at all', async () => {
    const rx = await startReceiver();
    const p = testPort();
    start(p.port, { webhooks: [rx.url] });
    p.turnEnded('host-b/t9', 'turn-1');
    const [got] = await rx.waitFor(1);
    expect(NotifyEvent.parse(got!.body)).toMatchObject({
      kind: 'turn_ended',
      terminalId: 'host-b/t9',
      tool: 'unknown',
      turnId: 'turn-1',
      state: { readiness: 'unknown', phase: 'unknown', availability: 'unknown' },
    });
    await rx.close();
  });
});

describe('notify: commands', () => {
  it('parses a command once: a JSON array, or words split on spaces; a bad one names the field', () => {
    expect(parseCommand('["/bin/echo", "a b", "$(x)"]')).toEqual(['/bin/echo', 'a b', '$(x)']);
    expect(parseCommand('  notify-send   paneward ')).toEqual(['notify-send', 'paneward']);
    expect(() => parseCommand('   ')).toThrow(/field `notifyExec`: must name a program/);
    expect(() => parseCommand('["a", 1]')).toThrow(/field `notifyExec`/);
    expect(() => parseCommand('[not json')).toThrow(/not a JSON array of strings/);
  });

  it('runs the command without a shell: a hostile terminal id and prompt arrive as data', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pw-notify-exec-'));
    dirs.push(dir);
    const out = join(dir, 'events.jsonl');
    const canary = join(dir, 'pwned');
    const hostileId = `t$(touch ${canary});"'\`id\`\nrm -rf ~ ; x`;
    const hostilePrompt = `Allow $(touch ${canary})? ; echo 'yes' "no"\n$HOME \\ end`;
    const p = testPort();
    p.put(hostileId, (s) => (s.surface.blockedPrompt = hostilePrompt));
    const { drafts, metric, until } = start(p.port, {
      commands: [JSON.stringify([process.execPath, CAPTURE, out])],
    });
    p.blocked(hostileId, hostilePrompt);
    await until(async () => (await metric('paneward_notify_delivered_total', 'exec:1')) === 1);
    const [run] = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { stdin: string; env: Record<string, string>; argv: string[] });
    const event = NotifyEvent.parse(JSON.parse(run!.stdin));
    expect(event).toMatchObject({ kind: 'question', terminalId: hostileId, prompt: hostilePrompt });
    expect(run!.stdin.endsWith('}\n')).toBe(true);
    expect(run!.env).toMatchObject({
      PANEWARD_EVENT_KIND: 'question',
      PANEWARD_EVENT_TERMINAL: hostileId,
      PANEWARD_EVENT_PROMPT: hostilePrompt,
      PANEWARD_EVENT_TOOL: 'stand_in',
      PANEWARD_EVENT_READINESS: 'waiting',
    });
    expect(JSON.parse(run!.env.PANEWARD_EVENT!)).toEqual(event);
    // The arguments are those given at start, nothing of the event.
    expect(run!.argv).toEqual([out]);
    expect(existsSync(canary)).toBe(false);
    expect(drafts.map(asRecord)).toMatchObject([
      { sink: 'exec:1', outcome: 'delivered', attempts: 1, event: 'question' },
    ]);
    // The record carries no prompt text.
    expect(JSON.stringify(drafts)).not.toContain('Allow');
  });

  it('withholds the service secrets and counts a failing command failed, once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pw-notify-exec-'));
    dirs.push(dir);
    const out = join(dir, 'events.jsonl');
    const saved = process.env.PANEWARD_TOKEN;
    process.env.PANEWARD_TOKEN = 'a-secret-token-of-the-service';
    try {
      const p = testPort();
      p.put('t1');
      const { drafts, metric, until } = start(p.port, {
        commands: [`${process.execPath} ${CAPTURE} ${out} 3`, 'no-such-program-pw-notify'],
      });
      p.turnEnded('t1', 'turn-7', 'known_failure');
      await until(async () => (await metric('paneward_notify_failed_total', 'exec:1')) === 1);
      await until(async () => (await metric('paneward_notify_failed_total', 'exec:2')) === 1);
      const runs = readFileSync(out, 'utf8').trim().split('\n');
      expect(runs).toHaveLength(1);
      const run = JSON.parse(runs[0]!) as { env: Record<string, string> };
      expect(run.env.PANEWARD_TOKEN).toBeUndefined();
      expect(run.env).toMatchObject({
        PANEWARD_EVENT_KIND: 'turn_ended',
        PANEWARD_EVENT_TURN_ID: 'turn-7',
        PANEWARD_EVENT_OUTCOME: 'known_failure',
      });
      const records = drafts.map(asRecord);
      expect(records).toContainEqual(
        expect.objectContaining({ sink: 'exec:1', outcome: 'failed', error: 'exit status 3' }),
      );
      expect(records).toContainEqual(
        expect.objectContaining({
          sink: 'exec:2',
          outcome: 'failed',
          error: 'cannot run no-such-program-pw-notify: ENOENT',
        }),
      );
    } finally {
      if (saved === undefined) delete process.env.PANEWARD_TOKEN;
      else process.env.PANEWARD_TOKEN = saved;
    }
  });
});

describe('notify: serve options', () => {
  it('refuses a bad sink or bound naming the field, before anything starts', async () => {
    const { startServe } = await import('../../src/cli/serve.js');
    await expect(
      startServe({ notify: ['ftp://example.com/x'], logLevel: 'silent' }),
    ).rejects.toThrow(/serve: field `notify\.0`: --notify must be an http:\/\/ or https:\/\/ URL/);
    await expect(
      startServe({ notify: ['https://me:secret@example.com/x'], logLevel: 'silent' }),
    ).rejects.toThrow(/serve: field `notify\.0`: --notify must not carry a user or password/);
    await expect(startServe({ notifyExec: ['["a", 1]'], logLevel: 'silent' })).rejects.toThrow(
      /serve: field `notifyExec\.0`: must name a program/,
    );
    await expect(startServe({ notifyExec: ['  '], logLevel: 'silent' })).rejects.toThrow(
      /serve: field `notifyExec\.0`/,
    );
    await expect(startServe({ notifyRetries: '11', logLevel: 'silent' })).rejects.toThrow(
      /serve: field `notifyRetries`: --notify-retries must be at most 10/,
    );
    await expect(startServe({ notifyQueue: '0', logLevel: 'silent' })).rejects.toThrow(
      /serve: field `notifyQueue`/,
    );
  });
});
