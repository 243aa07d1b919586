// Answering a dialog whose highlight is drawn by colour only, on a real tmux pane: a stand-in CLI
// draws grok-cli's confirmation with grok-cli's colours, read by the grok-cli profile. The state
// offers allowing; the answer's capture with escapes says where the highlight stands and the
// arrows go from there. No highlight, or two: refused, nothing typed; Escape refuses anywhere.
import { afterEach, describe, expect, it } from 'vitest';
import { createGrokCliProfile } from '../../src/profiles/grok_cli/index.js';
import {
  standInReading,
  startDialogStandIn,
  type DialogStandIn,
} from './internal/dialog-stand-in.js';

const grokStandIn = standInReading(createGrokCliProfile, '0.0.34');

let running: DialogStandIn | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function start(lit: string) {
  running = await startDialogStandIn({
    env: { DIALOG_COLOUR: lit },
    pollIntervalSeconds: 0.25,
    profile: grokStandIn,
  });
  return running;
}

const keys = (typed: string[]) => typed.map((k) => JSON.parse(k) as string).join('');
const answered = (r: DialogStandIn) =>
  r.sup.history(r.id, 100).filter((x) => x.kind === 'question.answered');

describe('answer: a highlight drawn by colour only', () => {
  it('the state offers allowing; the arrows go from where the highlight stands now', async () => {
    const r = await start('2');
    expect(r.question.choices.map((c) => c.id)).toEqual(['allow_once', 'allow_always', 'deny']);
    await expect(
      r.sup.answer(r.id, { questionId: r.question.id, choice: 'allow_once' }),
    ).resolves.toMatchObject({ choice: 'allow_once', closed: true });
    // From the third option up twice, then Enter, once.
    expect(keys(r.typed())).toBe('\x1b[A\x1b[A\r');
    expect(await r.session.capture()).toContain('Chose Yes.');
  }, 40_000);

  it('no option highlighted: refused with the reason, nothing typed; Escape still refuses', async () => {
    const r = await start('');
    await expect(
      r.sup.answer(r.id, { questionId: r.question.id, choice: 'allow_once' }),
    ).rejects.toMatchObject({
      code: 'refused',
      message: expect.stringMatching(/cannot be read: no option is highlighted/),
    });
    expect(r.typed()).toEqual([]);
    expect(answered(r)).toEqual([]);
    await expect(
      r.sup.answer(r.id, { questionId: r.question.id, choice: 'deny' }),
    ).resolves.toMatchObject({ choice: 'deny', closed: true });
    expect(keys(r.typed())).toBe('\x1b');
  }, 40_000);

  it('two options highlighted: refused, nothing typed', async () => {
    const r = await start('0,2');
    await expect(
      r.sup.answer(r.id, { questionId: r.question.id, choice: 'allow_always' }),
    ).rejects.toMatchObject({
      code: 'refused',
      message: expect.stringMatching(/2 options are highlighted/),
    });
    await new Promise((x) => setTimeout(x, 500));
    expect(r.typed()).toEqual([]);
    expect(r.sup.get(r.id).surface.question?.id).toBe(r.question.id);
  }, 40_000);
});
