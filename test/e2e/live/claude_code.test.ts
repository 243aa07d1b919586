/**
 * Live end-to-end suite: the real Claude Code CLI in tmux, driven against the fake Anthropic
 * server, observed only through paneward's public library API. The fake server's request log
 * is the ground truth the reported states are checked against.
 */
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSupervisor,
  isPanewardError,
  PanewardError,
  type Supervisor,
} from '../../../src/index.js';
import { CLAUDE_CODE_BIN, claudeCodeFacts } from '../../../src/tooling/agents/claude_code.js';
import { anthropicProtocol } from '../../../src/tooling/model-server/anthropic.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';
import type { Timeline } from '../harness/timeline.js';
import { liveRunOptions } from './live-env.js';
import { claudeSessions } from './claude-live.js';
import {
  LIVE_REPLY as REPLY,
  LONG_REPLY,
  POLL_SECONDS,
  readyNow,
  SETTLE_SECONDS,
  SOURCES,
  STABILITY_SECONDS,
} from './live-agent.js';

const STEP_TIMEOUT_MS = 90_000;
const SCRATCH = resolve('.tmp/e2e-live/claude_code', String(process.pid));

const missing = !existsSync(CLAUDE_CODE_BIN);
const installHint = `Claude Code is not installed at ${CLAUDE_CODE_BIN}: run scripts/install-agent.sh claude_code`;

if (missing && process.env.CI) {
  describe('live Claude Code', () => {
    it('has the CLI installed', () => {
      throw new Error(installHint);
    });
  });
} else {
  if (missing) console.warn(`live Claude Code suite skipped: ${installHint}`);

  for (const source of SOURCES)
    describe
      .skipIf(missing)
      .sequential(`live Claude Code through the library API (${source})`, () => {
        const socketName = uniqueSocketName('pw-live-claude');
        const sessions: AgentSession[] = [];
        const timelines = new Map<string, Timeline>();
        let server: FakeModelServer;
        let sup: Supervisor;
        /** Claude Code, carried through ready, turns, interrupt, overload, permission, kill. */
        let main: AgentSession;
        let mainId: string;
        let mainCwd: string;
        /** A second Claude Code whose tmux session gets killed. */
        let spare: AgentSession;
        let spareId: string;
        /** A plain shell attached as an unsupported tool. */
        let shell: AgentSession;
        let shellId: string;

        const tl = (id: string): Timeline => timelines.get(id)!;

        const { launchClaude, attach, turnRequests } = claudeSessions(
          SCRATCH,
          socketName,
          sessions,
          timelines,
          () => ({ server, sup }),
        );

        beforeAll(async () => {
          rmSync(SCRATCH, { recursive: true, force: true });
          server = await startFakeModelServer({ protocols: [anthropicProtocol] });
          // remain-on-exit is a server-wide option: every session on this socket keeps dead panes.
          main = await launchClaude('main', true);
          mainCwd = join(SCRATCH, 'main', 'work');
          spare = await launchClaude('spare', true);
          shell = await startAgentSession({
            socketName,
            sessionName: 'shell',
            cols: 80,
            rows: 24,
            cwd: SCRATCH,
            env: { HOME: SCRATCH, PS1: 'shell$ ' },
            command: ['bash', '--norc', '--noprofile', '-i'],
            remainOnExit: true,
          });
          sessions.push(shell);
          const run = liveRunOptions('claude_code', source, join(SCRATCH, source, 'data'));
          sup = createSupervisor({
            socketName,
            dataDir: run.dataDir,
            readUnverifiedVersions: run.readUnverifiedVersions,
            source,
            config: { pollIntervalSeconds: POLL_SECONDS },
          });
          mainId = await attach(main, 'claude_code');
          spareId = await attach(spare, 'claude_code');
          shellId = await attach(shell, 'unsupported');
        }, 60_000);

        afterAll(async () => {
          await sup?.stop();
          for (const s of sessions) await s.close();
          await server?.close();
          rmSync(SCRATCH, { recursive: true, force: true });
        }, 30_000);

        it(
          'reports ready once the CLI shows its idle prompt',
          async () => {
            const { s } = await tl(mainId).waitFor('main ready', readyNow, {
              timeoutMs: claudeCodeFacts.startupTimeoutMs + 10_000,
            });
            expect(s.tool).toBe('claude_code');
            expect(s.diagnostics.process).toBe('tui_up');
            expect(s.surface.acceptingInput).toBe('yes');
            expect(s.lastTurn.result).toBe('none');
            expect(sup.get(mainId).readiness.status).toBe('ready');
          },
          STEP_TIMEOUT_MS,
        );

        it(
          'completes a normal turn after the stream ends, as a success of that explicit turn',
          async () => {
            await tl(mainId).waitFor('main ready', readyNow, {
              timeoutMs: claudeCodeFacts.startupTimeoutMs,
            });
            const logFrom = server.log().length;
            const seenFrom = tl(mainId).seen.length;
            server.enqueue({ delayMs: 800, text: REPLY, chunkDelayMs: 120 });
            const result = await sup.runTurn(mainId, 'say hello', { timeoutMs: 60_000 });

            expect(result.result).toBe('completed');
            expect(result.completion.status).toBe('completed');
            expect(result.lastTurn.result).toBe('success');
            expect(result.lastTurn.source).toBe('explicit_input');
            expect(result.lastTurn.turnId).toBe(result.turnId);

            const seen = tl(mainId).seen.slice(seenFrom);
            const completed = seen.find(
              (e) =>
                e.s.completion?.turnId === result.turnId && e.s.completion.status === 'completed',
            );
            expect(completed, tl(mainId).describe(seenFrom)).toBeDefined();
            const active = seen.filter(
              (e) => e.s.turn.phase === 'active' && e.s.turn.current?.id === result.turnId,
            );
            expect(active.length, tl(mainId).describe(seenFrom)).toBeGreaterThan(0);
            expect(active[0]!.at).toBeLessThan(completed!.at);
            // The CLI's own working surface was seen, not just the armed anchor.
            expect(
              seen.some(
                (e) =>
                  e.s.completion?.turnId === result.turnId &&
                  e.s.completion.status === 'in_progress',
              ),
              tl(mainId).describe(seenFrom),
            ).toBe(true);

            const turns = turnRequests(logFrom);
            expect(turns).toHaveLength(1);
            const [turn] = turns;
            expect(turn!.outcome).toBe('completed');
            expect(turn!.endedAt).not.toBeNull();
            // Never before the model finished; at most settle + stability + two polls after it.
            const lagMs = completed!.at - turn!.endedAt!;
            expect(lagMs).toBeGreaterThan(0);
            expect(lagMs).toBeLessThanOrEqual(
              (SETTLE_SECONDS + STABILITY_SECONDS + 2 * POLL_SECONDS) * 1000,
            );
          },
          STEP_TIMEOUT_MS,
        );

        it(
          'refuses a submit while a turn works, then reports the interrupted turn',
          async () => {
            await tl(mainId).waitFor('main ready again', readyNow);
            const logFrom = server.log().length;
            const seenFrom = tl(mainId).seen.length;
            server.enqueue({ text: LONG_REPLY, chunkDelayMs: 300 });
            const turnId = await sup.submit(mainId, 'write a long answer');

            await tl(mainId).waitFor(
              'main working',
              (s) =>
                s.turn.phase === 'active' &&
                s.turn.current?.id === turnId &&
                s.readiness.status !== 'ready',
              { from: seenFrom },
            );
            // The stream must really be running when we refuse and interrupt.
            await server.waitFor((e) => e.seq > logFrom && e.streaming && e.firstByteAt !== null, {
              ended: false,
              timeoutMs: 15_000,
            });

            const refused = await sup.submit(mainId, 'another prompt').then(
              () => null,
              (e: unknown) => e,
            );
            expect(refused).toBeInstanceOf(PanewardError);
            expect(isPanewardError(refused) && refused.code).toBe('not_ready');

            await new Promise((r) => setTimeout(r, 1500));
            await sup.interrupt(mainId);
            const result = await sup.waitForTurn(mainId, turnId, { timeoutMs: 30_000 });
            expect(result.lastTurn.result, tl(mainId).describe(seenFrom)).toBe('interrupted');
            expect(result.lastTurn.turnId).toBe(turnId);
            expect(result.lastTurn.source).toBe('explicit_input');

            const turns = turnRequests(logFrom);
            expect(turns).toHaveLength(1);
            await server.waitFor((e) => e.seq === turns[0]!.seq, { timeoutMs: 10_000 });
            expect(turns[0]!.outcome).toBe('aborted');
            // The refused prompt was never typed.
            expect(await main.capture()).not.toContain('another prompt');
          },
          STEP_TIMEOUT_MS,
        );

        it(
          'reports a known failure when every retry is overloaded',
          async () => {
            await tl(mainId).waitFor('main ready again', readyNow);
            const logFrom = server.log().length;
            const seenFrom = tl(mainId).seen.length;
            // maxRetries 2: the first request and both retries fail.
            server.enqueue(...Array.from({ length: 3 }, () => ({ error: { status: 529 } })));
            const result = await sup.runTurn(mainId, 'trigger an error please', {
              timeoutMs: 60_000,
            });

            expect(result.lastTurn.result, tl(mainId).describe()).toBe('known_failure');
            expect(result.lastTurn.turnId).toBe(result.turnId);
            const turns = turnRequests(logFrom);
            expect(turns.map((e) => e.status)).toEqual([529, 529, 529]);
            // A retry is not the failure: it is reported only after the last attempt failed.
            const failed = tl(mainId)
              .seen.slice(seenFrom)
              .find((e) => e.s.lastTurn.turnId === result.turnId);
            expect(failed!.at).toBeGreaterThan(turns[2]!.endedAt!);
          },
          STEP_TIMEOUT_MS,
        );

        it(
          'reports blocked on a permission prompt and success once the operator approves',
          async () => {
            await tl(mainId).waitFor('main ready again', readyNow);
            const logFrom = server.log().length;
            const seenFrom = tl(mainId).seen.length;
            server.enqueue(
              {
                text: 'I will create the marker file.',
                toolUse: claudeCodeFacts.permissionToolUse,
              },
              { text: 'Done: the marker file exists now.', chunkDelayMs: 100 },
            );
            const turnId = await sup.submit(mainId, 'create the marker file');

            const blocked = await tl(mainId).waitFor(
              'main blocked',
              (s) =>
                s.readiness.status === 'blocked' &&
                s.completion?.turnId === turnId &&
                s.completion.status === 'blocked',
              { from: seenFrom, timeoutMs: 30_000 },
            );
            expect(blocked.s.surface.blockedPrompt).not.toBeNull();
            expect(await main.capture()).toMatch(/Do you want to proceed\?/);
            // Still blocked a few polls later: the prompt waits for the operator.
            await new Promise((r) => setTimeout(r, 1500));
            expect(sup.get(mainId).readiness.status).toBe('blocked');
            expect(existsSync(join(mainCwd, 'paneward-approved.txt'))).toBe(false);

            // The operator answers in the pane; paneward only watches.
            await main.sendKeys(...claudeCodeFacts.approveKeys);
            const result = await sup.waitForTurn(mainId, turnId, { timeoutMs: 60_000 });
            expect(result.result).toBe('completed');
            expect(result.lastTurn.result, tl(mainId).describe(seenFrom)).toBe('success');
            expect(result.lastTurn.turnId).toBe(turnId);
            expect(existsSync(join(mainCwd, 'paneward-approved.txt'))).toBe(true);

            const turns = turnRequests(logFrom);
            expect(turns).toHaveLength(2);
            const completed = tl(mainId)
              .seen.slice(seenFrom)
              .find(
                (e) => e.s.completion?.turnId === turnId && e.s.completion.status === 'completed',
              );
            expect(completed!.at).toBeGreaterThan(turns[1]!.endedAt!);
          },
          STEP_TIMEOUT_MS,
        );

        it(
          'reports tui_down when the CLI process is killed, though its screen remains',
          async () => {
            await tl(mainId).waitFor('main ready again', readyNow);
            const before = await main.capture();
            const seenFrom = tl(mainId).seen.length;
            const [pid] = await main.waitForProcess(['claude']);
            process.kill(pid!, 'SIGKILL');

            const { s } = await tl(mainId).waitFor(
              'main tui_down',
              (st) =>
                st.diagnostics.availability === 'tui_down' && st.readiness.status === 'failed',
              { from: seenFrom, timeoutMs: 15_000 },
            );
            expect(s.diagnostics.process).toBe('tui_down');
            expect(s.turn.phase).toBe('unknown');
            // The dead pane still shows the transcript: only the process tells the truth.
            const after = await main.capture();
            expect(after).toContain('Done: the marker file exists now.');
            expect(before).toContain('Done: the marker file exists now.');
          },
          STEP_TIMEOUT_MS,
        );

        it(
          'reports unavailable when the tmux session is killed; the supervisor and siblings go on',
          async () => {
            await tl(spareId).waitFor('spare ready', readyNow, {
              timeoutMs: claudeCodeFacts.startupTimeoutMs,
            });
            const seenFrom = tl(spareId).seen.length;
            await spare.killSession();
            const { s } = await tl(spareId).waitFor(
              'spare unavailable',
              (st) => st.diagnostics.availability === 'unavailable',
              { from: seenFrom, timeoutMs: 15_000 },
            );
            expect(s.diagnostics.transport).toBe('tmux_missing');
            expect(s.turn.phase).toBe('unknown');

            expect(sup.ids()).toEqual(expect.arrayContaining([mainId, spareId, shellId]));
            // The shell on the same tmux server is still polled: its screen change shows up.
            const shellFrom = tl(shellId).seen.length;
            await shell.sendText('echo paneward-still-here');
            await shell.sendKeys('Enter');
            await tl(shellId).waitFor('shell changed', (st) => !st.stability.stable, {
              from: shellFrom,
              timeoutMs: 10_000,
            });
            const settled = await tl(shellId).waitFor(
              'shell stable again',
              (st) => st.stability.stable,
              {
                from: tl(shellId).seen.length,
                timeoutMs: 10_000,
              },
            );
            expect(settled.s.diagnostics.transport).toBe('tmux_up');
            expect(settled.s.diagnostics.process).toBe('unsupported_tool');
            expect(sup.get(spareId).diagnostics.availability).toBe('unavailable');

            // Detaching the gone terminal ends its stream; the others stay attached.
            let spareEnded = false;
            sup.state$(spareId).subscribe({ complete: () => (spareEnded = true) });
            sup.detach(spareId);
            expect(spareEnded).toBe(true);
            expect(sup.ids()).toEqual(expect.arrayContaining([mainId, shellId]));
            expect(sup.ids()).not.toContain(spareId);
            expect(() => sup.get(spareId)).toThrow(
              expect.objectContaining({ code: 'unknown_terminal' }) as unknown as Error,
            );
          },
          STEP_TIMEOUT_MS,
        );
      });
}
