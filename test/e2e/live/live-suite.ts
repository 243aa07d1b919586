/**
 * The live end-to-end suite every agent CLI gets: the real CLI in tmux against the fake model
 * server, observed only through paneward's public library API. The fake server's request log is
 * the ground truth the reported states are checked against. Each CLI's test file hands its
 * facts to {@link describeLiveAgent}.
 */
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, verifiedVersionsOf, type Supervisor } from '../../../src/index.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';
import { Timeline } from '../harness/timeline.js';
import { liveRunOptions, overrideIgnored } from './live-env.js';
import {
  COLS,
  type LiveAgent,
  liveChecks,
  POLL_SECONDS,
  ROWS,
  LIVE_REPLY,
  LONG_REPLY,
  SETTLE_SECONDS,
  STABILITY_SECONDS,
  sleep,
  readyNow,
  SOURCES,
  stopLive,
} from './live-agent.js';

/** Defines the live suite for one CLI (skipped with a warning when it is not installed, failed in CI). */
export function describeLiveAgent(agent: LiveAgent): void {
  const ignored = overrideIgnored(agent.tool, agent.bin);
  if (ignored) {
    describe(`live ${agent.tool}`, () => {
      it('runs the executable the environment names', () => {
        throw new Error(ignored);
      });
    });
    return;
  }
  const missing = !existsSync(agent.bin);
  const hint = `${agent.tool} is not installed at ${agent.bin}: run ${agent.install}`;
  if (missing && process.env.CI) {
    describe(`live ${agent.tool}`, () => {
      it('has the CLI installed', () => {
        throw new Error(hint);
      });
    });
    return;
  }
  if (missing) console.warn(`live ${agent.tool} suite skipped: ${hint}`);

  // Both frame sources: the same CLI, the same checks, observed by control mode and by polling.
  for (const source of SOURCES) describeOn(agent, source, missing);
}

function describeOn(agent: LiveAgent, source: 'control' | 'polling', missing: boolean): void {
  describe
    .skipIf(missing)
    .sequential(`live ${agent.tool} through the library API (${source})`, () => {
      const scratch = resolve('.tmp/e2e-live', agent.tool, source, String(process.pid));
      const run = liveRunOptions(agent.tool, source);
      const workDir = join(scratch, 'work');
      const timeline = new Timeline(() => session.capture());
      const step = agent.startupTimeoutMs + 60_000;
      let server: FakeModelServer;
      let session: AgentSession;
      let sup: Supervisor;
      let id: string;

      const {
        turnRequests,
        noEvidence,
        recordTellsSuccess,
        expectRecordSuccess,
        submit,
        expectNoSuccessClaimed,
        readyAgain,
        keys,
      } = liveChecks(agent, timeline, () => ({ server, session, sup, id }));

      beforeAll(async () => {
        rmSync(scratch, { recursive: true, force: true });
        server = await startFakeModelServer({ protocols: [agent.protocol] });
        const launch = await agent.launch({ scratch, workDir, serverUrl: server.url });
        session = await startAgentSession({
          socketName: uniqueSocketName(`pw-live-${agent.tool}`),
          cols: COLS,
          rows: ROWS,
          cwd: launch.cwd,
          env: launch.env,
          command: launch.command,
        });
        sup = createSupervisor({
          socketName: session.socketName,
          dataDir: run.dataDir,
          readUnverifiedVersions: run.readUnverifiedVersions,
          source,
          config: { pollIntervalSeconds: POLL_SECONDS },
        });
        id = await sup.attach({ target: session.target, tool: agent.tool });
        sup.state$(id).subscribe((s) => timeline.push(s));
      }, 60_000);

      afterAll(
        () =>
          stopLive({
            sup,
            session,
            server,
            scratch,
            cleanup: async () => agent.stopDaemons?.(scratch),
          }),
        60_000,
      );

      it(
        'reports ready once the CLI shows its idle prompt',
        async () => {
          // Notices drawn over the prompt at start (Cline's promotion) are closed as a user does.
          let up = false;
          const closing = (async () => {
            while (!up && agent.notices?.length) {
              const screen = await session.capture().catch(() => '');
              const notice = agent.notices.find((n) => n.text.test(screen));
              if (notice) await keys(notice.keys);
              await sleep(500);
            }
          })();
          const { s } = await timeline
            .waitFor('ready', readyNow, { timeoutMs: agent.startupTimeoutMs })
            .finally(() => (up = true));
          await closing;
          expect(s.tool).toBe(agent.tool);
          expect(s.diagnostics.process).toBe('tui_up');
          expect(s.surface.acceptingInput).toBe('yes');
          expect(s.lastTurn.result).toBe('none');
          // The version is read from the running CLI's package: the pinned, verified one (or,
          // run against another executable, whatever release that is).
          const withVersion = await timeline.waitFor('its version', (v) => v.toolVersion !== null, {
            timeoutMs: 10_000,
          });
          if (run.override === undefined) {
            expect(verifiedVersionsOf(agent.tool)).toContain(withVersion.s.toolVersion);
          }
        },
        step,
      );

      it.runIf(noEvidence)(
        recordTellsSuccess
          ? 'reports a finished reply the screen cannot prove a success on its session record'
          : 'never claims success for a finished reply the screen cannot prove, and is ready again',
        async () => {
          await readyAgain(agent.startupTimeoutMs);
          const logFrom = server.log().length;
          const seenFrom = timeline.seen.length;
          server.enqueue({ delayMs: 800, text: LIVE_REPLY, chunkDelayMs: 120 });
          const turnId = await submit('say hello');
          await server
            .waitFor((e) => e.streaming && e.seq > logFrom, { timeoutMs: 90_000 })
            .catch(async (err: unknown) => {
              const requests = server.log().map((e) => [e.seq, e.status, e.outcome]);
              throw new Error(
                `${String(err)}\nserver: ${JSON.stringify(requests)}\n` +
                  `${timeline.describe(seenFrom)}\n${await session.capture()}`,
              );
            });
          if (recordTellsSuccess) await expectRecordSuccess(turnId, seenFrom);
          else await expectNoSuccessClaimed(turnId, seenFrom, logFrom);
          const turns = turnRequests(logFrom);
          expect(turns).toHaveLength(1);
          expect(turns[0]!.outcome).toBe('completed');
          // The reply is on screen: the turn really finished, paneward just cannot know it.
          expect(await session.capture()).toContain('This reply comes from the fake model server');
        },
        step,
      );

      if (agent.successOpen)
        console.warn(`live ${agent.tool}: success check open: ${agent.successOpen}`);
      it.skipIf(noEvidence || agent.successOpen !== undefined)(
        'completes a turn after the stream ends, as a success of that explicit turn',
        async () => {
          await readyAgain(agent.startupTimeoutMs);
          const logFrom = server.log().length;
          const seenFrom = timeline.seen.length;
          server.enqueue({ delayMs: 800, text: LIVE_REPLY, chunkDelayMs: 120 });
          const result = await sup
            .runTurn(id, 'say hello', { timeoutMs: 90_000 })
            .catch(async (err: unknown) => {
              const requests = turnRequests(logFrom).map((e) => [e.status, e.outcome]);
              throw new Error(
                `${String(err)}\nserver: ${JSON.stringify(requests)}\n` +
                  `${timeline.describe(seenFrom)}\n${await session.capture()}`,
              );
            });
          expect(result.lastTurn.result, timeline.describe(seenFrom)).toBe('success');
          expect(result.lastTurn.source).toBe('explicit_input');
          expect(result.lastTurn.turnId).toBe(result.turnId);

          const seen = timeline.seen.slice(seenFrom);
          const completed = seen.find(
            (e) =>
              e.s.completion?.turnId === result.turnId && e.s.completion.status === 'completed',
          );
          expect(completed, timeline.describe(seenFrom)).toBeDefined();
          expect(
            seen.some(
              (e) =>
                e.s.completion?.turnId === result.turnId && e.s.completion.status === 'in_progress',
            ),
            `the CLI's own working surface was seen\n${timeline.describe(seenFrom)}`,
          ).toBe(true);
          const turns = turnRequests(logFrom);
          expect(turns).toHaveLength(1);
          expect(turns[0]!.outcome).toBe('completed');
          // Never before the model finished; at most settle + stability + a few polls after the
          // CLI stopped showing work: counted from the stream's end, or from the first state with
          // no activity on screen after the last one with some, whichever is later. What the CLI
          // still draws after the stream (Kilo keeps its working bar 2-4 s on a loaded machine)
          // is the CLI's time, not paneward's.
          const streamEnd = turns[0]!.endedAt!;
          const lastBusy = seen.findLastIndex(
            (e) => e.at <= completed!.at && e.s.surface.activeReasons.length > 0,
          );
          const calmAt = Math.max(streamEnd, seen[lastBusy + 1]?.at ?? streamEnd);
          expect(completed!.at - streamEnd).toBeGreaterThan(0);
          expect(completed!.at - calmAt, timeline.describe(seenFrom)).toBeLessThanOrEqual(
            (SETTLE_SECONDS + STABILITY_SECONDS + 6 * POLL_SECONDS) * 1000,
          );
        },
        step,
      );

      it(
        noEvidence
          ? 'claims no success for an interrupted turn, and is ready again'
          : 'reports the interrupted turn after the interrupt key',
        async () => {
          await readyAgain(30_000);
          const logFrom = server.log().length;
          const seenFrom = timeline.seen.length;
          server.enqueue({ text: LONG_REPLY, chunkDelayMs: 300 });
          const turnId = await submit('write a long answer');
          await timeline.waitFor(
            'working',
            (s) =>
              s.turn.phase === 'active' &&
              s.turn.current?.id === turnId &&
              s.readiness.status !== 'ready',
            { from: seenFrom, timeoutMs: 30_000 },
          );
          // The stream must really be running when we interrupt.
          for (
            let i = 0;
            i < 300 && !turnRequests(logFrom).some((e) => e.firstByteAt !== null);
            i++
          ) {
            await sleep(50);
          }
          await sleep(1500);
          // One call, however many presses the CLI needs (opencode, Copilot CLI: two).
          await sup.interrupt(id);
          if (noEvidence) {
            await expectNoSuccessClaimed(turnId, seenFrom, logFrom);
          } else {
            const result = await sup.waitForTurn(id, turnId, { timeoutMs: 30_000 });
            expect(result.lastTurn.result, timeline.describe(seenFrom)).toBe('interrupted');
            expect(result.lastTurn.turnId).toBe(turnId);
          }
          const turns = turnRequests(logFrom);
          expect(turns).toHaveLength(1);
          await server.waitFor((e) => e.seq === turns[0]!.seq, { timeoutMs: 10_000 });
          expect(turns[0]!.outcome).toBe('aborted');
          // The box is empty again: a CLI that puts the interrupted prompt back (Qwen Code
          // 0.24) has it cleared, so the next prompt is not joined to it.
          await timeline.waitFor(
            'an empty prompt box after the interrupt',
            (s) => s.surface.editingInput !== 'yes',
            { from: Math.max(0, timeline.seen.length - 1), timeoutMs: 10_000 },
          );
        },
        step,
      );

      it(
        'reports a known failure once the CLI gives up on a failing provider',
        async () => {
          await readyAgain(30_000);
          const logFrom = server.log().length;
          const seenFrom = timeline.seen.length;
          server.enqueue(...agent.failure.plans);
          const turnId = await submit('trigger an error please');
          if (agent.failure.dialog) {
            await timeline
              .waitFor(
                'blocked on the retry dialog',
                (s) => s.readiness.status === 'blocked' && s.completion?.turnId === turnId,
                { from: seenFrom, timeoutMs: agent.failure.timeoutMs },
              )
              .catch(async (err: unknown) => {
                const requests = turnRequests(logFrom).map((e) => [e.status, e.outcome]);
                throw new Error(
                  `${String(err)}\nserver: ${JSON.stringify(requests)}\n${await session.capture()}`,
                );
              });
            await session.waitForText(agent.failure.dialog.text, 5000);
            await keys(agent.failure.dialog.keys);
          }
          const result = await sup.waitForTurn(id, turnId, { timeoutMs: agent.failure.timeoutMs });
          // Failing plans the CLI did not use must not fail the next turn.
          server.dropPlans();
          const log = () =>
            `${timeline.describe(seenFrom)}\nserver: ${JSON.stringify(turnRequests(logFrom).map((e) => [e.status, e.outcome]))}`;
          expect(result.lastTurn.result, log()).toBe('known_failure');
          expect(result.lastTurn.turnId).toBe(turnId);
          const turns = turnRequests(logFrom);
          expect(turns.length).toBeGreaterThan(0);
          expect(turns.every((e) => e.status >= 400)).toBe(true);
          // A retry is not the failure: it is reported only after the last attempt failed.
          const failed = timeline.seen
            .slice(seenFrom)
            .find((e) => e.s.lastTurn.turnId === turnId && e.s.lastTurn.result === 'known_failure');
          expect(failed!.at).toBeGreaterThanOrEqual(Math.max(...turns.map((e) => e.endedAt!)));
        },
        step + 120_000,
      );

      const permission = agent.permission;
      it.skipIf(permission === null)(
        noEvidence && !recordTellsSuccess
          ? 'reports blocked on a permission prompt; once approved, no success claimed and ready again'
          : 'reports blocked on a permission prompt, and success once the operator approves',
        async () => {
          if (!permission) return;
          await readyAgain(30_000);
          const logFrom = server.log().length;
          const seenFrom = timeline.seen.length;
          const file = 'paneward-approved.txt';
          server.enqueue(
            { toolUse: permission.toolUse(file) },
            { text: 'Done: the marker file exists now.', chunkDelayMs: 100 },
          );
          const turnId = await submit('create the marker file');
          const blocked = await timeline.waitFor(
            'blocked',
            (s) =>
              s.readiness.status === 'blocked' &&
              s.completion?.turnId === turnId &&
              s.completion.status === 'blocked',
            { from: seenFrom, timeoutMs: 60_000 },
          );
          expect(blocked.s.surface.blockedPrompt, await session.capture()).toBe('tool_permission');
          expect(await session.capture()).toMatch(permission.dialog);
          // Still blocked a few polls later: the prompt waits for the operator.
          await sleep(1500);
          expect(sup.get(id).readiness.status).toBe('blocked');
          expect(existsSync(join(workDir, file))).toBe(false);

          // The operator answers in the pane; paneward only watches.
          await keys(permission.approve);
          if (noEvidence) {
            await server.waitFor((e) => e.streaming && e.seq > logFrom, {
              count: 2,
              timeoutMs: 60_000,
            });
            if (recordTellsSuccess) await expectRecordSuccess(turnId, seenFrom);
            else await expectNoSuccessClaimed(turnId, seenFrom, logFrom);
            expect(existsSync(join(workDir, file))).toBe(true);
            expect(turnRequests(logFrom)).toHaveLength(2);
            return;
          }
          const result = await sup.waitForTurn(id, turnId, { timeoutMs: 60_000 });
          expect(result.lastTurn.result, timeline.describe(seenFrom)).toBe('success');
          expect(existsSync(join(workDir, file))).toBe(true);
          const turns = turnRequests(logFrom);
          expect(turns).toHaveLength(2);
          const completed = timeline.seen
            .slice(seenFrom)
            .find(
              (e) => e.s.completion?.turnId === turnId && e.s.completion.status === 'completed',
            );
          expect(completed!.at).toBeGreaterThan(turns[1]!.endedAt!);
        },
        step,
      );
    });
}
