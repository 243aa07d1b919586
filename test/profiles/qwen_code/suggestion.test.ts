/**
 * Qwen Code 0.24 shows a follow-up suggestion in the prompt box after a turn (from the second
 * on), drawn in the placeholder's place; a typed draft ends with the drawn cursor (a space and
 * U+200B). Real frames of 0.24.4 recordings: the suggestion is no draft, a typed prompt is.
 */
import { describe, expect, it } from 'vitest';
import { createQwenCodeProfile } from '../../../src/profiles/qwen_code/index.js';
import { recordedScreens } from '../real-frame.js';

const profile = createQwenCodeProfile('0.24.4');

/** The last frame whose prompt line (normal or screen-reader view) matches `line`. */
function lastFrameWith(scenario: string, line: RegExp): string {
  const frame = recordedScreens('qwen_code', `0.24.4/${scenario}`)
    .filter((s) => s.split('\n').some((l) => line.test(l)))
    .at(-1);
  if (frame === undefined) throw new Error(`0.24.4/${scenario}: no frame with ${line}`);
  return frame;
}

describe('Qwen Code 0.24: a follow-up suggestion in the box is not a draft', () => {
  it.each([
    ['two-turns', /^> Fake session$/],
    ['permission-approved', /^> Fake session$/],
    ['screen-reader-slow-turn-then-permission', /^> {2}Fake session$/],
  ])('%s: the suggestion reads as an empty box, ready', (scenario, line) => {
    const r = profile.parse({ text: lastFrameWith(scenario, line) });
    expect(r.signals.editingInput).toBe('no');
    expect(r.signals.acceptingInput).toBe('yes');
    expect(r.signals.readyPosture).toBe('yes');
  });

  it.each([
    ['two-turns', /^> second question \u200b$/],
    ['interrupted', /^> write a long answer \u200b$/],
    ['screen-reader-two-turns', /^> {2}second question \u200b$/],
  ])('%s: a typed prompt (the cursor drawn after it) is a draft', (scenario, line) => {
    const r = profile.parse({ text: lastFrameWith(scenario, line) });
    expect(r.signals.editingInput).toBe('yes');
  });

  it('the same suggestion line under the 0.15 vocabulary is a draft (0.15 drew none)', () => {
    const old = createQwenCodeProfile('0.15.10');
    const r = old.parse({ text: lastFrameWith('two-turns', /^> Fake session$/) });
    expect(r.signals.editingInput).toBe('yes');
  });
});
