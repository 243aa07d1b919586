// Answering a question through the one gate, on a real tmux pane: a stand-in CLI draws a
// Claude Code permission dialog, read by the Claude Code profile. The attacks: the dialog changes
// between the poll and the keys (refused, nothing typed), a dialog that does not close after the
// keys (answer_failed, typed once, never again), a forged id and an unknown choice.
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolProfile } from '../../src/profiles/types.js';
import type { AgentSession } from '../e2e/harness/session.js';
import { startDialogStandIn, type DialogStandIn } from './internal/dialog-stand-in.js';

let running: DialogStandIn | undefined;
let session: AgentSession | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
  session = undefined;
});

async function start(
  env: Record<string, string>,
  pollIntervalSeconds: number,
  answerSettleMs?: number,
  answerCloseMs?: ToolProfile['answerCloseMs'],
) {
  running = await startDialogStandIn({
    env,
    pollIntervalSeconds,
    ...(answerSettleMs === undefined ? {} : { answerSettleMs }),
    ...(answerCloseMs === undefined ? {} : { answerCloseMs }),
  });
  session = running.session;
  const { id, sup, question, typed } = running;
  return { id, s: sup, question, typed };
}

describe('answer: only the question asked, only while it is drawn', () => {
  it('the dialog changed between the poll and the keys: refused, nothing typed', async () => {
    const swapFlag = join(tmpdir(), `pw-answer-swap-${process.pid}-${Date.now()}`);
    const { id, s, question, typed } = await start({ DIALOG_SWAP: swapFlag }, 3);
    expect(question.subject).toBe('touch paneward-approved.txt');
    writeFileSync(swapFlag, '');
    try {
      // The new dialog is drawn; the state, polled every 3 s, still shows the old one.
      const until = Date.now() + 5000;
      while (!(await session!.capture()).includes('rm -rf')) {
        if (Date.now() > until) throw new Error('the stand-in did not swap its dialog');
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(s.get(id).surface.question?.id).toBe(question.id);
      await expect(
        s.answer(id, { questionId: question.id, choice: 'allow_once' }),
      ).rejects.toMatchObject({
        code: 'refused',
        message: expect.stringMatching(/dialog changed/),
      });
      expect(typed()).toEqual([]);
      const records = s.history(id, 100).filter((r) => r.kind === 'question.answered');
      expect(records).toEqual([]);
    } finally {
      rmSync(swapFlag, { force: true });
    }
  }, 40_000);

  it('a dialog still drawn after the keys: answer_failed, typed once and never again', async () => {
    const { id, s, question, typed } = await start({ DIALOG_STUCK: '1' }, 0.25);
    await expect(
      s.answer(id, { questionId: question.id, choice: 'allow_once' }),
    ).rejects.toMatchObject({ code: 'answer_failed' });
    await new Promise((r) => setTimeout(r, 1000));
    expect(typed()).toEqual(['"1"']);
    const records = s.history(id, 100).filter((r) => r.kind === 'question.answered');
    expect(records).toMatchObject([
      { questionId: question.id, choice: 'allow_once', outcome: 'still_open' },
    ]);
  }, 40_000);

  it('a dialog drawn on through a restart: answer_failed past 5 s, closed within the wait its profile declares', async () => {
    for (const [closeMs, outcome] of [
      [undefined, 'still_open'],
      [20_000, 'closed'],
    ] as const) {
      const { id, s, question, typed } = await start(
        { DIALOG_CLOSE_AFTER_MS: '8000' },
        0.25,
        undefined,
        closeMs === undefined ? undefined : { tool_permission: closeMs },
      );
      const answer = s.answer(id, { questionId: question.id, choice: 'allow_once' });
      if (outcome === 'closed') await expect(answer).resolves.toMatchObject({ closed: true });
      else await expect(answer).rejects.toMatchObject({ code: 'answer_failed' });
      expect(typed()).toEqual(['"1"']);
      const records = s.history(id, 100).filter((r) => r.kind === 'question.answered');
      expect(records).toMatchObject([{ choice: 'allow_once', outcome }]);
      await running?.close();
      running = undefined;
    }
  }, 80_000);

  it('arrows that moved the cursor and an Enter that did nothing: still open, answer_failed, typed once', async () => {
    const { id, s, question, typed } = await start({ DIALOG_ARROWS: '1', DIALOG_STUCK: '1' }, 0.25);
    expect(question.choices.map((c) => c.id)).toEqual(['exit', 'trust']);
    // The cursor moves (so the question's id changes), but the dialog is still there.
    await expect(s.answer(id, { questionId: question.id, choice: 'trust' })).rejects.toMatchObject({
      code: 'answer_failed',
    });
    expect(s.get(id).surface.question?.id).not.toBe(question.id);
    expect(s.get(id).surface.question?.kind).toBe('trust_folder');
    await new Promise((r) => setTimeout(r, 1000));
    // Down and Enter, once (one chunk or two, as the pane delivered them).
    expect(
      typed()
        .map((k) => JSON.parse(k) as string)
        .join(''),
    ).toBe('\x1b[B\r');
    const records = s.history(id, 100).filter((r) => r.kind === 'question.answered');
    expect(records).toMatchObject([{ choice: 'trust', outcome: 'still_open' }]);
  }, 40_000);

  it('arrows and Enter that close the dialog: closed', async () => {
    const { id, s, question } = await start({ DIALOG_ARROWS: '1' }, 0.25);
    await expect(s.answer(id, { questionId: question.id, choice: 'trust' })).resolves.toMatchObject(
      { choice: 'trust', closed: true },
    );
    expect(s.get(id).surface.question).toBeNull();
  }, 40_000);

  it('a forged id and an unknown choice type nothing; the right one types its digit once', async () => {
    const { id, s, question, typed } = await start({}, 0.25);
    expect(question.choices.map((c) => c.id)).toEqual(['allow_once', 'allow_always', 'deny']);
    await expect(
      s.answer(id, { questionId: 'q-0123456789ab', choice: 'allow_once' }),
    ).rejects.toMatchObject({ code: 'refused' });
    await expect(s.answer(id, { questionId: question.id, choice: 'yes' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: 'choice: "yes" is not one of allow_once, allow_always, deny',
    });
    expect(typed()).toEqual([]);
    await expect(s.answer(id, { questionId: question.id, choice: 'deny' })).resolves.toMatchObject({
      questionId: question.id,
      choice: 'deny',
      closed: true,
    });
    // `deny` is option 3 here: its digit, as drawn.
    expect(typed()).toEqual(['"3"']);
  }, 40_000);

  it('a digit the dialog takes only as a cursor move: the same question, answer_failed, typed once', async () => {
    // As Claude Code 2.1.332 does with a digit right after it draws the dialog.
    const { id, s, question, typed } = await start({ DIALOG_GUARD_MS: '60000' }, 0.25, 0);
    await expect(s.answer(id, { questionId: question.id, choice: 'deny' })).rejects.toMatchObject({
      code: 'answer_failed',
      message: expect.stringMatching(/was still drawn after "deny"/),
    });
    expect(await session!.capture()).toMatch(/❯ 3\. No/);
    // The cursor moved; the digits were the same, so it is the same question, still asking.
    expect(s.get(id).surface.question?.id).toBe(question.id);
    expect(typed()).toEqual(['"3"']);
  }, 40_000);

  it("the profile's settle time: the digit comes after the dialog's guard and chooses", async () => {
    const { id, s, question, typed } = await start({ DIALOG_GUARD_MS: '1500' }, 0.25, 2000);
    await expect(s.answer(id, { questionId: question.id, choice: 'deny' })).resolves.toMatchObject({
      choice: 'deny',
      closed: true,
    });
    expect(typed()).toEqual(['"3"']);
  }, 40_000);

  it('a screen read as neither the dialog nor a prompt after the keys is no evidence it closed', async () => {
    const { id, s, question, typed } = await start({ DIALOG_LIMBO: '1' }, 0.25);
    await expect(
      s.answer(id, { questionId: question.id, choice: 'allow_once' }),
    ).rejects.toMatchObject({
      code: 'answer_failed',
      message: expect.stringMatching(/was not seen to close/),
    });
    expect(s.get(id).surface.question).toBeNull();
    expect(s.get(id).surface.uiContext).toBe('unplaced');
    expect(typed()).toEqual(['"1"']);
    const records = s.history(id, 100).filter((r) => r.kind === 'question.answered');
    expect(records).toMatchObject([{ choice: 'allow_once', outcome: 'still_open' }]);
  }, 40_000);

  it('a dialog gone to a blank start for longer than the first wait closes once the prompt is drawn', async () => {
    // 8 s of limbo: past the 5 s a still-drawn dialog gets, within the longer wait a CLI that
    // starts again gets.
    const { id, s, question, typed } = await start(
      { DIALOG_LIMBO: '1', DIALOG_LIMBO_MS: '8000' },
      0.25,
    );
    const started = Date.now();
    await expect(
      s.answer(id, { questionId: question.id, choice: 'allow_once' }),
    ).resolves.toMatchObject({ choice: 'allow_once', closed: true });
    expect(Date.now() - started).toBeGreaterThan(7000);
    expect(typed()).toEqual(['"1"']);
    const records = s.history(id, 100).filter((r) => r.kind === 'question.answered');
    expect(records).toMatchObject([{ choice: 'allow_once', outcome: 'closed' }]);
  }, 40_000);
});
