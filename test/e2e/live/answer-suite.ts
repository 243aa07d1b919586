/**
 * Answering a question, live, the same for every CLI that asks before it runs a shell command:
 * the real CLI against the loopback model server is asked (by the model) to run `touch FILE`;
 * paneward reads the dialog as a question and answers it with the CLI's own keys. Allow: the
 * command ran and its result went to the model in a next request. Deny (through the HTTP route):
 * it did not run, the dialog closed, no request carried a result, and the turn ends as the CLI's
 * refusal path draws it.
 * And the attacks: a forged question id, a choice the question does not offer, two answers at
 * once (one types), an answer while a turn runs with no dialog (refused, nothing typed).
 */
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor, type TerminalState } from '../../../src/index.js';
import { createHttpApp } from '../../../src/server/app.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';
import { Timeline } from '../harness/timeline.js';
import type { LiveAnswerCase } from './answer-case.js';
import { stopLive } from './live-agent.js';

type Question = NonNullable<TerminalState['surface']['question']>;

export function describeLiveAnswer(c: LiveAnswerCase): void {
  const allows = c.choices.includes('allow_once');
  const scratch = resolve(`.tmp/e2e-live/answer-${c.tool}`, String(process.pid));
  const missing = !existsSync(c.bin);
  const startupTimeoutMs = c.startupTimeoutMs ?? 90_000;
  if (missing) console.warn(`live answer suite skipped: ${c.label} is not at ${c.bin}`);

  describe.skipIf(missing).sequential(`live ${c.label}: answering its permission question`, () => {
    let server: FakeModelServer;
    let session: AgentSession;
    let sup: Supervisor;
    let id: string;
    const timeline = new Timeline(() => session.capture());
    const work = join(scratch, 'work');
    const streaming = (from: number) =>
      server
        .log()
        .slice(from)
        .filter((e) => e.streaming);

    beforeAll(async () => {
      rmSync(scratch, { recursive: true, force: true });
      server = await startFakeModelServer({ protocols: [c.protocol] });
      const launch = await c.prepare({
        scratch,
        work,
        serverUrl: server.url,
      });
      session = await startAgentSession({
        socketName: uniqueSocketName(`pw-live-answer-${c.tool}`),
        cols: 160,
        rows: 45,
        cwd: launch.cwd,
        env: launch.env,
        command: launch.command,
      });
      sup = createSupervisor({
        socketName: session.socketName,
        dataDir: join(scratch, 'data'),
        config: { pollIntervalSeconds: 0.25 },
      });
      id = await sup.attach({ target: session.target, tool: c.tool });
      sup.state$(id).subscribe((s) => timeline.push(s));
      await timeline.waitFor('ready', (s) => s.readiness.status === 'ready', {
        timeoutMs: startupTimeoutMs,
      });
    }, startupTimeoutMs + 30_000);

    afterAll(
      () => stopLive({ sup, session, server, scratch, cleanup: async () => c.cleanup?.(scratch) }),
      60_000,
    );

    const ready = () =>
      timeline.waitFor('ready', (s) => s.readiness.status === 'ready' && s.turn.phase === 'ready', {
        from: Math.max(0, timeline.seen.length - 1),
        timeoutMs: 120_000,
      });

    const ask = async (file: string) => {
      const from = timeline.seen.length;
      server.enqueue({ toolUse: c.shell(file) }, { text: 'Done.', chunkDelayMs: 50 });
      const turnId = await sup.submit(id, `create ${file}`);
      const { s } = await timeline.waitFor(
        'the question',
        // With its command drawn: a dialog caught mid-draw reads as a question without it (a
        // question of another id, which an answer naming this one could never reach).
        (x) =>
          x.readiness.status === 'blocked' &&
          x.surface.question?.kind === 'tool_permission' &&
          x.surface.question.subject === `touch ${file}`,
        // On a loaded machine some CLIs take a minute to send the request.
        { from, timeoutMs: 150_000 },
      );
      return { turnId, question: s.surface.question! };
    };

    /**
     * Answers `question` with `choice` after what an attacker would try first: a forged id and a
     * choice not offered (refused, nothing typed, still asking); then two answers at once, of
     * which exactly one types. One answer is journaled, closed.
     */
    const answerUnderAttack = async (
      question: Question,
      choice: string,
      file: string,
      logFrom: number,
    ) => {
      const journaled = () => sup.history(id, 500).filter((r) => r.kind === 'question.answered');
      const before = journaled().length;
      // A forged question id: refused, nothing typed, still asking.
      await expect(sup.answer(id, { questionId: 'q-000000000000', choice })).rejects.toMatchObject({
        code: 'refused',
      });
      // A choice the question does not offer: invalid input naming `choice` and the valid ones.
      await expect(
        sup.answer(id, { questionId: question.id, choice: 'allow_forever' }),
      ).rejects.toMatchObject({
        code: 'invalid_input',
        // The choice ids are lowercase words and underscores: nothing to escape.
        message: expect.stringMatching(new RegExp(`^choice: .*${c.choices.join(', ')}`)),
      });
      await new Promise((r) => setTimeout(r, 1000));
      expect(sup.get(id).surface.question?.id).toBe(question.id);
      expect(existsSync(join(work, file))).toBe(false);
      expect(streaming(logFrom)).toHaveLength(1);

      // Two answers at the same moment: exactly one types; the other finds the dialog gone.
      const answers = await Promise.allSettled([
        sup.answer(id, { questionId: question.id, choice }),
        sup.answer(id, { questionId: question.id, choice }),
      ]);
      expect(answers.map((a) => a.status).sort()).toEqual(['fulfilled', 'rejected']);
      const done = answers.find((a) => a.status === 'fulfilled') as PromiseFulfilledResult<unknown>;
      expect(done.value).toMatchObject({ closed: true, choice });
      const refused = answers.find((a) => a.status === 'rejected') as PromiseRejectedResult;
      expect(refused.reason).toMatchObject({ code: 'refused' });

      const records = journaled().slice(before);
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({
        questionId: question.id,
        questionKind: 'tool_permission',
        choice,
        by: { via: 'library', tokenId: null },
        outcome: 'closed',
      });
    };

    it.skipIf(!allows)(
      'allow_once: refuses a forged id and a choice not offered, types once for two answers, and the command runs',
      async () => {
        await ready();
        const logFrom = server.log().length;
        const seenFrom = timeline.seen.length;
        const file = 'approved.txt';
        const { turnId, question } = await ask(file);
        expect(question.subject).toBe(`touch ${file}`);
        expect(question.choices.map((x) => x.id)).toEqual(c.choices);
        if (c.moveHighlight !== undefined) {
          const before = await session.capture();
          for (const key of c.moveHighlight) {
            await session.sendKeys(key);
            await new Promise((r) => setTimeout(r, 700));
          }
          // The text is the same (the highlight is colour only): the same question.
          expect(await session.capture()).toBe(before);
          expect(sup.get(id).surface.question?.id).toBe(question.id);
        }

        await answerUnderAttack(question, 'allow_once', file, logFrom);

        const result = await sup.waitForTurn(id, turnId, {
          timeoutMs: 120_000,
        });
        expect(
          result.lastTurn.result,
          `${timeline.describe(seenFrom)}\n${await session.capture()}`,
        ).toBe('success');
        expect(existsSync(join(work, file))).toBe(true);
        // The command ran and its result went to the model: a second request in the same turn.
        expect(streaming(logFrom)).toHaveLength(2);
      },
      400_000,
    );

    it('deny: the dialog closes and the command never runs', async () => {
      await ready();
      const logFrom = server.log().length;
      const file = 'denied.txt';
      const seenFrom = timeline.seen.length;
      const { turnId, question } = await ask(file);
      expect(question.subject).toBe(`touch ${file}`);
      expect(question.choices.map((x) => x.id)).toEqual(c.choices);
      if (allows) {
        // Through the HTTP route, as a dashboard or a script would: a choice it does not offer is
        // a 400 naming `choice`; the refusal is journaled with the route and the token's id.
        const { app } = createHttpApp(sup, { token: 'a-token-of-sixteen-chars' });
        const post = (body: unknown) =>
          app.request(`/v1/terminals/${id}/answer`, {
            method: 'POST',
            headers: {
              host: '127.0.0.1:7420',
              'content-type': 'application/json',
              authorization: 'Bearer a-token-of-sixteen-chars',
            },
            body: JSON.stringify(body),
          });
        const bad = await post({ questionId: question.id, choice: 'DROP TABLE' });
        expect(bad.status).toBe(400);
        expect(JSON.stringify(await bad.json())).toMatch(/choice/);
        const res = await post({ questionId: question.id, choice: 'deny' });
        const body = (await res.json()) as unknown;
        expect(res.status, JSON.stringify(body)).toBe(200);
        expect(body).toMatchObject({ questionId: question.id, choice: 'deny', closed: true });
        expect(
          sup
            .history(id, 500)
            .filter((r) => r.kind === 'question.answered')
            .at(-1),
        ).toMatchObject({
          questionId: question.id,
          choice: 'deny',
          by: { via: 'http', tokenId: expect.stringMatching(/^tok-[0-9a-f]{8}$/) },
          outcome: 'closed',
        });
        if (c.denyFollowUp !== undefined) {
          const { s } = await timeline.waitFor(
            'the question after the refusal',
            (x) => x.surface.question !== null && x.surface.question.id !== question.id,
            { from: Math.max(0, timeline.seen.length - 1), timeoutMs: 30_000 },
          );
          const next = s.surface.question!;
          expect(next).toMatchObject({ kind: 'tool_permission', subject: null });
          expect(existsSync(join(work, file))).toBe(false);
          await expect(
            sup.answer(id, { questionId: next.id, choice: c.denyFollowUp }),
          ).resolves.toMatchObject({ closed: true, choice: c.denyFollowUp });
        }
      } else {
        await answerUnderAttack(question, 'deny', file, logFrom);
      }
      await timeline.waitFor('not asking', (s) => s.readiness.status !== 'blocked', {
        from: Math.max(0, timeline.seen.length - 1),
        timeoutMs: 30_000,
      });
      await new Promise((r) => setTimeout(r, 3000));
      expect(existsSync(join(work, file))).toBe(false);
      // The refusal path: no request carried the command's result (it never ran); only a CLI
      // that tells the model of the refusal makes a second request.
      expect(streaming(logFrom)).toHaveLength(c.deniedResult === 'told' ? 2 : 1);
      const ended = await sup
        .waitForTurn(id, turnId, { timeoutMs: 30_000 })
        .catch((e: unknown) => e);
      const why = `${timeline.describe(seenFrom)}\n${await session.capture()}`;
      if (c.deniedResult === 'no_claim') {
        expect(ended, why).toMatchObject({ turnId, result: 'completed' });
        // Never a success (nor any outcome) for the refused turn, at any moment.
        const claimed = timeline.seen.slice(seenFrom).filter((e) => e.s.lastTurn.turnId === turnId);
        expect(claimed, why).toEqual([]);
      } else {
        const result = c.deniedResult === 'told' ? 'success' : 'interrupted';
        expect(ended, why).toMatchObject({ lastTurn: { turnId, result } });
      }
      expect(sup.get(id).surface.question).toBeNull();
    }, 400_000);

    it('an answer while a turn runs with no dialog is refused and types nothing', async () => {
      await ready();
      const logFrom = server.log().length;
      const answered = () =>
        sup.history(id, 500).filter((r) => r.kind === 'question.answered').length;
      const before = answered();
      server.enqueue({
        delayMs: 3000,
        text: 'A slow reply.',
        chunkDelayMs: 200,
      });
      const turnId = await sup.submit(id, 'say something slowly');
      await timeline.waitFor('working', (s) => s.turn.phase === 'active', {
        timeoutMs: 20_000,
      });
      await expect(
        sup.answer(id, {
          questionId: 'q-625b38fb69ba',
          choice: 'allow_once',
        }),
      ).rejects.toMatchObject({
        code: 'refused',
        message: expect.stringMatching(/no question/),
      });
      const result = await sup.waitForTurn(id, turnId, { timeoutMs: 60_000 });
      expect(result.lastTurn.result).toBe('success');
      // Nothing was typed: one request, no answer journaled, and the prompt is idle and empty
      // enough for the next turn.
      expect(streaming(logFrom)).toHaveLength(1);
      expect(answered()).toBe(before);
      await ready();
    }, 300_000);

    it.skipIf(c.allowAlways === undefined)(
      'allow_always: the command runs, and the same command asked again in the session runs unasked',
      async () => {
        await ready();
        // A refused command leaves its reply's plan unused: the request asked for next is this one.
        server.dropPlans();
        const logFrom = server.log().length;
        const seenFrom = timeline.seen.length;
        const file = 'always.txt';
        const { turnId, question } = await ask(file);
        expect(question.choices.map((x) => x.id)).toEqual(c.choices);
        if (c.moveHighlight !== undefined) {
          for (const key of c.moveHighlight) {
            await session.sendKeys(key);
            await new Promise((r) => setTimeout(r, 700));
          }
          expect(sup.get(id).surface.question?.id).toBe(question.id);
        }
        const answerFrom = timeline.seen.length;
        await expect(
          sup.answer(id, { questionId: question.id, choice: 'allow_always' }),
        ).resolves.toMatchObject({ questionId: question.id, choice: 'allow_always', closed: true });
        const why = async () => `${timeline.describe(seenFrom)}\n${await session.capture()}`;
        const confirmed = c.allowAlways!.confirmationSubject;
        if (confirmed !== undefined) {
          // The confirmation was read as its own question before it was confirmed.
          const seen = timeline.seen
            .slice(answerFrom)
            .map((e) => e.s.surface.question)
            .find((q) => q !== null && q.id !== question.id && q.subject === confirmed);
          expect(seen, await why()).toBeDefined();
          expect(seen!.kind).toBe('tool_permission');
          expect(seen!.choices.map((x) => x.id)).toContain('allow_always');
        }
        expect(
          sup
            .history(id, 500)
            .filter((r) => r.kind === 'question.answered')
            .at(-1),
        ).toMatchObject({ questionId: question.id, choice: 'allow_always', outcome: 'closed' });
        const result = await sup.waitForTurn(id, turnId, { timeoutMs: 120_000 });
        expect(result.lastTurn.result, await why()).toBe('success');
        expect(existsSync(join(work, file))).toBe(true);
        // The command ran and its result went to the model: a second request in the same turn.
        expect(streaming(logFrom)).toHaveLength(2);

        // The very same request again, in the same session: it runs, and nothing asks.
        await ready();
        rmSync(join(work, file));
        const againFrom = server.log().length;
        const againSeen = timeline.seen.length;
        server.enqueue({ toolUse: c.shell(file) }, { text: 'Done again.', chunkDelayMs: 50 });
        const again = await sup.submit(id, `create ${file} again`);
        const second = await sup.waitForTurn(id, again, { timeoutMs: 120_000 });
        expect(second.lastTurn.result, await why()).toBe('success');
        expect(existsSync(join(work, file))).toBe(true);
        expect(streaming(againFrom)).toHaveLength(2);
        const asked = timeline.seen
          .slice(againSeen)
          .filter((e) => e.s.readiness.status === 'blocked' || e.s.surface.question !== null);
        expect(asked, await why()).toEqual([]);
      },
      400_000,
    );
  });
}
