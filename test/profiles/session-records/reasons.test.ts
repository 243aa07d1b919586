import { describe, expect, it } from 'vitest';
import { claudeCodeSessionRecord } from '../../../src/profiles/claude_code/session-record.js';
import { readClineLogLine, readClineRecord } from '../../../src/profiles/cline/session-record.js';
import { codexSessionRecord } from '../../../src/profiles/codex/session-record.js';
import { readCopilotRecordLine } from '../../../src/profiles/copilot/session-record.js';
import { geminiCliSessionRecord } from '../../../src/profiles/gemini_cli/session-record.js';
import { qwenCodeSessionRecord } from '../../../src/profiles/qwen_code/session-record.js';
import {
  boundReason,
  MAX_REASON_CHARS,
  named,
  type RecordReading,
} from '../../../src/profiles/session-record.js';

/** 20 KB of what a record holds that must never leave paneward: a prompt, a secret. */
const BIG = 'secret prompt text; '.repeat(1024);
const at = { file: '/r.jsonl', offset: 0 };
const now = '2026-01-01T00:00:00.000Z';

/** The reason of an unknown reading, checked to be bounded and free of the record's text. */
function reasonOf(reading: RecordReading): string {
  expect(reading).toHaveProperty('unknown');
  const why = (reading as { unknown: string }).unknown;
  expect(why.length).toBeLessThanOrEqual(MAX_REASON_CHARS);
  expect(why).not.toContain('secret');
  return why;
}

/** The kind of the one failure a reading tells. */
function kindOf(reading: RecordReading): string {
  if ('unknown' in reading) throw new Error(reading.unknown);
  const [e] = reading.events;
  if (e?.type !== 'turn_ended' || e.ending.reason !== 'known_failure')
    throw new Error('no failure');
  return e.ending.kind;
}

const line = (o: unknown) => JSON.stringify(o);

describe('reasons never carry the record’s text', () => {
  it('names a short value and describes any other by its kind and length', () => {
    expect(named('brand-new')).toBe('"brand-new"');
    expect(named(BIG)).toBe(`a string of ${BIG.length} characters`);
    expect(named('two words')).toBe('a string of 9 characters');
    expect(named(2)).toBe('2');
    expect(named(null)).toBe('null');
    expect(named(undefined)).toBe('none');
    expect(named({ text: BIG })).toBe('an object');
    expect(named([BIG, BIG])).toBe('a list of 2');
  });

  it('bounds a reason: a long one or one with a line break is withheld, not cut', () => {
    expect(boundReason('line type "x"')).toBe('line type "x"');
    expect(boundReason(BIG)).toBe(`a reason of ${BIG.length} characters, withheld`);
    expect(boundReason('a\nb')).toBe('a reason of 3 characters, withheld');
    expect(boundReason(BIG).length).toBeLessThanOrEqual(MAX_REASON_CHARS);
  });

  it('Claude Code: a 20 KB line type, stop reason or unknown line', () => {
    const read = (o: unknown) => claudeCodeSessionRecord.read(line(o), at);
    expect(reasonOf(read({ type: BIG }))).toBe(`line type a string of ${BIG.length} characters`);
    expect(reasonOf(read({ type: 'brand-new', text: BIG }))).toBe('line type "brand-new"');
    reasonOf(read({ type: 'assistant', message: { stop_reason: BIG } }));
    reasonOf(read({ type: 'assistant', message: { stop_reason: { why: BIG } } }));
    // A failure's kind is a name too: a long one is not kept.
    expect(kindOf(read({ type: 'assistant', isApiErrorMessage: true, error: BIG }))).toBe(
      'api_error',
    );
    expect(kindOf(read({ type: 'assistant', isApiErrorMessage: true, error: 'rate_limit' }))).toBe(
      'rate_limit',
    );
  });

  it('Codex: a 20 KB line type, event or abort reason', () => {
    const read = (o: unknown) => codexSessionRecord.read(line(o), at);
    reasonOf(read({ type: BIG }));
    reasonOf(read({ type: 'event_msg', payload: { type: BIG } }));
    reasonOf(read({ type: 'event_msg', payload: { type: 'turn_aborted', reason: BIG } }));
    const failed = { type: 'task_complete', error: { codex_error_info: BIG } };
    expect(kindOf(read({ type: 'event_msg', payload: failed }))).toBe('error');
  });

  it('Copilot CLI: a 20 KB event type, delivery or abort reason', () => {
    const read = (o: unknown) => readCopilotRecordLine(line(o), at);
    reasonOf(read({ type: BIG, data: {}, timestamp: now }));
    reasonOf(read({ type: BIG }));
    reasonOf(read({ type: BIG, data: {} }));
    reasonOf(read({ type: 'user.message', data: { delivery: BIG }, timestamp: now }));
    reasonOf(read({ type: 'abort', data: { reason: BIG }, timestamp: now }));
    const error = { errorType: BIG, originatingMessageId: 'm1' };
    expect(kindOf(read({ type: 'session.error', data: error, timestamp: now }))).toBe('error');
  });

  it('Gemini CLI: a 20 KB message type or header update', () => {
    const read = (o: unknown) => geminiCliSessionRecord.read(line(o), at);
    reasonOf(read({ type: BIG }));
    reasonOf(read({ [`$${BIG}`]: 1 }));
  });

  it('Qwen Code: a 20 KB line type or system subtype', () => {
    const read = (o: unknown) => qwenCodeSessionRecord.read(line(o), at);
    reasonOf(read({ type: BIG }));
    reasonOf(read({ type: 'system', subtype: BIG }));
  });

  it('Cline: a 20 KB version, role, part type or display role; a log status', () => {
    const doc = (message: unknown, version: unknown = 1) =>
      readClineRecord(line({ version, messages: [message] }), at);
    reasonOf(doc({ role: 'user', content: [], ts: 1 }, BIG));
    reasonOf(doc({ role: BIG, content: [], ts: 1 }));
    reasonOf(doc({ role: 'user', content: [{ type: BIG }], ts: 1 }));
    reasonOf(doc({ role: 'assistant', content: [], ts: 1, metadata: { displayRole: BIG } }));
    const log = {
      pid: 7,
      level: 30,
      time: now,
      msg: 'telemetry.event',
      event: 'agent.run-finished',
      properties: { status: BIG },
    };
    reasonOf(readClineLogLine(line(log), at, { pid: 7, startedAtMs: 0 }));
  });
});
