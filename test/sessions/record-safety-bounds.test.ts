import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCodeSessionRecord } from '../../src/profiles/claude_code/session-record.js';
import { MAX_REASON_CHARS } from '../../src/profiles/session-record.js';
import { docReader, follow, lineReader, observe, root, until } from './internal/unsafe-records.js';

/**
 * A session record is a file the CLI's user (or anything running as them) can fill with
 * anything: these run the follower, the observer and the readers' file helpers against oversized
 * lines and documents, and every read is bounded (docs/session-records.md, "Reading safely").
 */

describe('reads are bounded', () => {
  const MiB = 1 << 20;

  it('a 2 MiB line is skipped and the next line’s turn end is still witnessed (Claude Code)', async () => {
    const file = join(root, 'long.jsonl');
    const prompt = { type: 'user', message: { role: 'user', content: 'hi' } };
    // A tool's result of 2 MiB, over the 1 MiB cap.
    const huge = {
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', content: 'x'.repeat(2 * MiB) }] },
    };
    const done = { type: 'assistant', message: { role: 'assistant', stop_reason: 'end_turn' } };
    const lines = [prompt, huge, done].map((o) => JSON.stringify(o) + '\n');
    writeFileSync(file, lines.join(''));
    const { f, reports } = follow(file, claudeCodeSessionRecord);
    await f.check();
    const told = reports.flatMap((r) =>
      r.type === 'events' ? r.events.map((e) => `${e.event}@${e.position.offset}`) : [],
    );
    const hugeAt = Buffer.byteLength(lines[0]!);
    const doneAt = hugeAt + Buffer.byteLength(lines[1]!);
    expect(told).toEqual(['user@0', `assistant.end_turn@${doneAt}`]);
    const skipped = reports.filter((r) => r.type === 'skipped');
    expect(skipped).toEqual([
      {
        type: 'skipped',
        position: { file, offset: hugeAt },
        bytes: Buffer.byteLength(lines[1]!) - 1,
        complete: true,
        why: `a line of ${Buffer.byteLength(lines[1]!) - 1} bytes at offset ${hugeAt}, over the 1048576-byte cap: skipped`,
      },
    ]);
    expect(f.position).toBe(readFileSync(file).length);
  });

  it('a long line still being written is reported once, passed over, and reading goes on', async () => {
    const file = join(root, 'growing.jsonl');
    writeFileSync(file, 'start\n');
    const seen: string[] = [];
    const reader = {
      ...lineReader,
      read: (p: string, at: { file: string; offset: number }) => {
        seen.push(p.slice(0, 10));
        return lineReader.read(p, at);
      },
    };
    const { f, reports, events } = follow(file, reader, { maxLineBytes: 1000 });
    await f.check();
    appendFileSync(file, 'y'.repeat(600));
    await f.check(); // under the cap: waits for its newline
    expect(reports.filter((r) => r.type === 'skipped')).toEqual([]);
    appendFileSync(file, 'y'.repeat(900));
    await f.check();
    expect(reports.filter((r) => r.type === 'skipped')).toEqual([
      expect.objectContaining({ position: { file, offset: 6 }, bytes: 1500, complete: false }),
    ]);
    appendFileSync(file, 'y'.repeat(3000) + '\nend\n');
    await f.check();
    expect(events()).toEqual(['start@0', `end@${6 + 4501}`]);
    expect(reports.filter((r) => r.type === 'skipped')).toHaveLength(1);
    expect(seen).toEqual(['start', 'end']); // the long line never reached the reader
  });

  it('the observer says a line was skipped and goes on following (never stuck “following”)', async () => {
    const folder = join(root, 'observed');
    mkdirSync(folder);
    const file = join(folder, 's.jsonl');
    writeFileSync(file, `start\n${'z'.repeat(2 * MiB)}\nend\n`);
    const reader = { ...lineReader, locate: () => Promise.resolve(file) };
    const { o, reports } = observe(reader);
    await o.locate();
    await until(() => reports.some((r) => r.type === 'events' && r.events[0]?.event === 'end'));
    expect(o.status).toMatchObject({ state: 'following', file });
    const why = (o.status as { why?: string }).why ?? '';
    expect(why).toMatch(
      /^a line of 2097152 bytes at offset 6, over the 1048576-byte cap: skipped$/,
    );
    expect(reports).toContainEqual({
      type: 'skipped',
      skip: { what: 'long_line', file, offset: 6, why },
    });
  });

  it('a 20 KB unknown line steps aside with a bounded reason holding none of its text', async () => {
    const file = join(root, 'unknown.jsonl');
    const text = 'secret prompt text; '.repeat(1024);
    writeFileSync(file, `start\n${text}\n`);
    const { f, reports } = follow(file);
    await f.check();
    const unknown = reports.find((r) => r.type === 'unknown');
    expect(unknown).toMatchObject({ position: { file, offset: 6 } });
    const why = (unknown as { why: string }).why;
    expect(why.length).toBeLessThanOrEqual(MAX_REASON_CHARS);
    expect(why).not.toContain('secret');
    // A real reader's reason says what it did not know, by name and length.
    const claude = join(root, 'unknown-claude.jsonl');
    writeFileSync(claude, JSON.stringify({ type: 'brand-new', text }) + '\n');
    const c = follow(claude, claudeCodeSessionRecord);
    await c.f.check();
    expect(c.reports).toEqual([
      { type: 'unknown', why: 'line type "brand-new"', position: { file: claude, offset: 0 } },
    ]);
  });

  it('a document over its cap steps aside unread', async () => {
    const file = join(root, 'big.json');
    writeFileSync(file, JSON.stringify(['start', 'x'.repeat(5000)]));
    const { f, reports } = follow(file, docReader, { maxDocumentBytes: 4096 });
    await f.check();
    expect(reports).toEqual([
      {
        type: 'unknown',
        why: `a document of ${readFileSync(file).length} bytes, over the 4096-byte cap`,
        position: { file, offset: 0 },
      },
    ]);
  });
});
