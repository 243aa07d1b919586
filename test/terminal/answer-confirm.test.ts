// Answering a choice the CLI confirms in a second dialog, on a real tmux pane: a stand-in replays
// opencode 1.18.33's real captures with escapes (its permission dialog, the `△ Always allow`
// confirmation that `Allow always` opens, the idle prompt), read by the opencode profile. The
// answer types the first step into the dialog asked, confirms only the confirmation it then
// reads, and types nothing more when the confirmation does not show, cannot be read, or does
// not close.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpencodeProfile } from '../../src/profiles/opencode/index.js';
import {
  standInReading,
  startDialogStandIn,
  type DialogStandIn,
} from './internal/dialog-stand-in.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/opencode', import.meta.url));

const opencodeStandIn = standInReading(createOpencodeProfile, '1.18.33');

let running: DialogStandIn | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function start(env: Record<string, string> = {}) {
  running = await startDialogStandIn({
    env: { DIALOG_OPENCODE: FIXTURES, ...env },
    pollIntervalSeconds: 0.25,
    profile: opencodeStandIn,
    cols: 160,
    rows: 45,
  });
  return running;
}

const keys = (typed: string[]) => typed.map((k) => JSON.parse(k) as string).join('');
const answered = (r: DialogStandIn) =>
  r.sup.history(r.id, 100).filter((x) => x.kind === 'question.answered');
const always = (r: DialogStandIn) =>
  r.sup.answer(r.id, { questionId: r.question.id, choice: 'allow_always' });

describe('answer: a choice the CLI confirms in a second dialog', () => {
  it('from the highlight on Reject: Left and Enter, then the confirmation read and confirmed', async () => {
    const r = await start({ DIALOG_OPENCODE_AT: '2' });
    expect(r.question.choices.map((c) => c.id)).toEqual(['allow_once', 'allow_always', 'deny']);
    await expect(always(r)).resolves.toMatchObject({
      questionId: r.question.id,
      choice: 'allow_always',
      closed: true,
    });
    // Left to Allow always, Enter; then Enter on Confirm (selected as it opens). Once each.
    expect(keys(r.typed())).toBe('\x1b[D\r\r');
    expect(r.sup.get(r.id).surface.question).toBeNull();
    expect(answered(r)).toMatchObject([
      { questionId: r.question.id, choice: 'allow_always', outcome: 'closed' },
    ]);
  }, 40_000);

  it('a dialog that closes without asking to confirm: answer_failed, nothing more typed', async () => {
    const r = await start({ DIALOG_CONFIRM: 'skip' });
    await expect(always(r)).rejects.toMatchObject({
      code: 'answer_failed',
      message: expect.stringMatching(/did not open its confirmation/),
    });
    await new Promise((res) => setTimeout(res, 1000));
    expect(keys(r.typed())).toBe('\x1b[C\r');
    expect(answered(r)).toMatchObject([{ choice: 'allow_always', outcome: 'unconfirmed' }]);
  }, 40_000);

  it('a confirmation whose highlight cannot be read: nothing typed into it, it stays asked', async () => {
    const r = await start({ DIALOG_CONFIRM: 'unlit' });
    await expect(always(r)).rejects.toMatchObject({
      code: 'answer_failed',
      message: expect.stringMatching(/could not be confirmed \(no option is highlighted\)/),
    });
    await new Promise((res) => setTimeout(res, 1000));
    expect(keys(r.typed())).toBe('\x1b[C\r');
    // The confirmation is the question now, its own id, answerable on its own (back: Escape).
    const confirmation = r.sup.get(r.id).surface.question!;
    expect(confirmation).toMatchObject({ kind: 'tool_permission', subject: 'touch *' });
    expect(confirmation.id).not.toBe(r.question.id);
    expect(answered(r)).toMatchObject([{ choice: 'allow_always', outcome: 'unconfirmed' }]);
    await expect(
      r.sup.answer(r.id, { questionId: confirmation.id, choice: 'back' }),
    ).resolves.toMatchObject({ choice: 'back', closed: true });
    expect(r.sup.get(r.id).surface.question?.id).toBe(r.question.id);
  }, 40_000);

  it('a confirmation that brings the asked dialog back: answer_failed, typed once each', async () => {
    const r = await start({ DIALOG_CONFIRM: 'back' });
    await expect(always(r)).rejects.toMatchObject({
      code: 'answer_failed',
      message: expect.stringMatching(new RegExp(`gave way to the dialog ${r.question.id} again`)),
    });
    await new Promise((res) => setTimeout(res, 1000));
    expect(keys(r.typed())).toBe('\x1b[C\r\r');
    expect(r.sup.get(r.id).surface.question?.id).toBe(r.question.id);
    expect(answered(r)).toMatchObject([{ choice: 'allow_always', outcome: 'unconfirmed' }]);
  }, 40_000);
});
