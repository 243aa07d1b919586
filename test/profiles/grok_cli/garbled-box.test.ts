import { describe, expect, it } from 'vitest';
import { createGrokCliProfile } from '../../../src/profiles/grok_cli/index.js';
import { ProfileResult } from '../../../src/schemas/signals.js';
import { recordedScreens, replaceRows } from '../real-frame.js';

/**
 * grok-cli takes an Enter read together with the paste before it into the draft, as a carriage
 * return, and draws its box garbled around it (test/fixtures/grok_cli/enter-in-paste.jsonl). The
 * box holds a draft: nothing was submitted, and the transcript above it is as before. Read as a
 * screen it cannot place, with no transcript, the turn would look started by the paste alone, and
 * paneward would not press Enter again.
 */
const profile = createGrokCliProfile('0.0.34');
const read = (text: string) => ProfileResult.parse(profile.parse({ text }));
const screens = recordedScreens('grok_cli', 'enter-in-paste');
const rows = (text: string) => text.split('\n');
const BOX_TOP = /^ {2}╭─+╮$/;
/** The row under the box's top. */
const boxRow = (text: string) => rows(text).findIndex((l) => BOX_TOP.test(l)) + 1;
const isGarbled = (text: string) => {
  const row = rows(text)[boxRow(text)];
  return boxRow(text) > 0 && row !== undefined && !row.includes('❯');
};

const garbledAt = screens.findIndex(isGarbled);
const garbled = screens[garbledAt]!;
/** The idle screen the paste was made on: the last with the placeholder before the garbled one. */
const before = screens
  .slice(0, garbledAt)
  .findLast((t) => rows(t)[boxRow(t)]?.includes('Ask me anything...'))!;
const width = rows(garbled)[boxRow(garbled) - 1]!.length;
/** `text` with the box's first inner row replaced by `row`. */
const withBoxRow = (row: string) =>
  replaceRows(garbled, [[boxRow(garbled), rows(garbled)[boxRow(garbled)]!, row]]);
/** A box row as the CLI draws one: the left border at column 2, the right at the box's edge. */
const framed = (inner: string) => `  │${inner}`.padEnd(width - 1) + '│';

describe('grok-cli: the box garbled by an Enter read with its paste', () => {
  it('the recording has it: the garbled box between the idle screen and the turn', () => {
    expect(garbledAt).toBeGreaterThan(0);
    expect(before).toBeDefined();
    // The recorded row: its border moved left, the rest of the row blank.
    expect(rows(garbled)[boxRow(garbled)]).toMatch(/^\s+│$/);
  });

  it('reads as a draft in the box, idle, with the transcript of the screen before it', () => {
    const r = read(garbled);
    expect(r.evidence.rule).toBe('draft');
    expect(r.surface.businessState).toBe('idle');
    expect(r.signals.editingInput).toBe('yes');
    expect(r.signals.readyPosture).toBe('yes');
    expect(r.surface.projectionText).toBe(read(before).surface.projectionText);
    expect(read(before).evidence.rule).toBe('ready');
  });

  it('the same on the other garbled rows seen: the text kept, a border where the cursor was', () => {
    for (const row of [
      // As a loaded CI machine captured it.
      framed('❯ create approved.txt│'),
      framed(' ❯ create approved.txt\u00a0│'),
      // The border alone, anywhere on the row.
      ' '.repeat(40) + '│',
      '│',
    ]) {
      const r = read(withBoxRow(row));
      expect(r.evidence.rule, JSON.stringify(row)).toBe('draft');
      expect(r.signals.editingInput).toBe('yes');
    }
    // Two rows, both ending at a border.
    const two = replaceRows(garbled, [
      [boxRow(garbled), rows(garbled)[boxRow(garbled)]!, framed('❯ first line│')],
    ]).split('\n');
    two.splice(boxRow(garbled) + 1, 0, framed('second line'));
    expect(read(two.join('\n')).evidence.rule).toBe('draft');
  });

  it('a row that does not end at a border is not a box paneward can place', () => {
    for (const row of [
      '  │❯ create approved.txt',
      framed('❯ create approved.txt').slice(0, -1),
      '',
    ]) {
      const r = read(withBoxRow(row));
      expect(r.evidence.rule, JSON.stringify(row)).not.toBe('draft');
      expect(r.signals.editingInput).not.toBe('yes');
      expect(r.surface.businessState).not.toBe('idle');
    }
    // One row garbled, the next not ending at a border.
    const mixed = rows(withBoxRow(framed('❯ first line│')));
    mixed.splice(boxRow(garbled) + 1, 0, '  │ second line');
    expect(read(mixed.join('\n')).signals.editingInput).not.toBe('yes');
  });

  it('rows ending at a border are read so only inside a whole box of at most eleven rows', () => {
    const all = rows(garbled);
    const top = boxRow(garbled) - 1;
    // No top: no box.
    const topless = [...all.slice(0, top), ...all.slice(top + 1)].join('\n');
    expect(read(topless).signals.editingInput).not.toBe('yes');
    // Twelve rows between top and bottom: not the prompt box.
    const tall = [
      ...all.slice(0, top + 1),
      ...Array<string>(12).fill(framed('x')),
      ...all.slice(top + 2),
    ];
    expect(read(tall.join('\n')).signals.editingInput).not.toBe('yes');
    // Eleven: still the box, its draft garbled.
    const eleven = [
      ...all.slice(0, top + 1),
      ...Array<string>(10).fill(framed('x')),
      ...all.slice(top + 1),
    ];
    expect(read(eleven.join('\n')).evidence.rule).toBe('draft');
  });

  it('the box as drawn whole still reads its draft or its placeholder', () => {
    expect(read(withBoxRow(framed(' ❯ create approved.txt '))).evidence.rule).toBe('draft');
    expect(read(withBoxRow(framed(' ❯ Ask me anything... '))).evidence.rule).toBe('ready');
  });
});
