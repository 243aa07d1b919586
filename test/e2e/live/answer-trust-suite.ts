// The live folder-trust suite every CLI that asks gets (answer-trust.test.ts holds the CLIs): a
// CLI started untrusted under supervision, its trust question, and the `trust` answer's proof.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor, type TerminalState } from '../../../src/index.js';
import type { AgentLaunch } from '../../../src/tooling/agents/chat-agent.js';
import {
  startFakeModelServer,
  type FakeModelServer,
  type Protocol,
} from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';
import { Timeline } from '../harness/timeline.js';

export interface LiveTrustCase {
  tool: string;
  label: string;
  bin: string;
  protocol: Protocol;
  /** Sets the CLI up in a fresh home where `work` is not trusted; how to start it. */
  prepare(o: { scratch: string; work: string; serverUrl: string }): Promise<AgentLaunch>;
  cleanup?(scratch: string): Promise<unknown>;
  /** The choices its trust dialog offers, in order. */
  choices: string[];
  /** The choice that trusts the folder in the CLI's config (`trust` unless said). */
  trustChoice?: string;
  /** What the CLI's own config says of the folder's trust (undefined: it says nothing). */
  trustRecord(scratch: string, work: string): unknown;
  /** That record once the folder is trusted. */
  trustedRecord: unknown;
  /** Whether the dialog names the folder (the question's subject) or draws no path. */
  namesFolder: boolean;
  /**
   * Trusting restarts the CLI (Gemini CLI through its launcher): the old process's ready screen
   * stays drawn until the new one has started, so the prompt waits until the pane reads keys.
   */
  restartsOnTrust?: boolean;
  /** How long its trust dialog may take to show. */
  startupTimeoutMs: number;
}

/** One CLI under supervision in its own tmux server, home and model server. */
export interface Run {
  server: FakeModelServer;
  session: AgentSession;
  sup: Supervisor;
  id: string;
  timeline: Timeline;
  scratch: string;
  work: string;
  close(): Promise<void>;
}

export async function startRun(c: LiveTrustCase, scratch: string): Promise<Run> {
  rmSync(scratch, { recursive: true, force: true });
  const work = join(scratch, 'work');
  const server = await startFakeModelServer({ protocols: [c.protocol] });
  const launch = await c.prepare({ scratch, work, serverUrl: server.url });
  const session = await startAgentSession({
    socketName: uniqueSocketName(`pw-live-trust-${c.tool}`),
    cols: 160,
    rows: 45,
    cwd: launch.cwd,
    env: launch.env,
    command: launch.command,
  });
  const sup = createSupervisor({
    socketName: session.socketName,
    dataDir: join(scratch, 'data'),
    config: { pollIntervalSeconds: 0.25 },
  });
  const timeline = new Timeline(() => session.capture());
  const id = await sup.attach({ target: session.target, tool: c.tool });
  sup.state$(id).subscribe((s) => timeline.push(s));
  return {
    server,
    session,
    sup,
    id,
    timeline,
    scratch,
    work,
    async close() {
      await sup.stop();
      await session.close();
      await c.cleanup?.(scratch);
      await server.close();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/**
 * Where a run keeps its home and working folder: outside any git checkout, as a new project
 * would be. Inside one, Codex trusts the repository's root (for a worktree, the main checkout's)
 * rather than the folder, and the record would depend on where the tests run from.
 */
export const scratchOf = (c: LiveTrustCase) =>
  join(realpathSync(tmpdir()), `paneward-live-trust-${c.tool}-${process.pid}`);

/**
 * Waits until the CLI reads keys again after trusting: the pane's terminal stays in raw mode for
 * 3 s in a row. Between the old process and the new one it is line-buffered, and text typed then
 * is echoed, not read (seen live: the prompt lost). Whether the process under the pane changes
 * was not a reliable sign here: it was seen to keep its pid in one run.
 */
export async function restarted(r: Run, timeoutMs: number): Promise<void> {
  const tty = (
    await r.session.transport.run(['display-message', '-p', '-t', r.session.target, '#{pane_tty}'])
  ).trim();
  const raw = () => /(^|\s)-icanon(\s|$)/.test(execFileSync('stty', ['-F', tty, '-a']).toString());
  const end = Date.now() + timeoutMs;
  let since: number | null = null;
  for (;;) {
    since = raw() ? (since ?? Date.now()) : null;
    if (since !== null && Date.now() - since >= 3000) return;
    if (Date.now() > end) throw new Error('the pane never read keys for 3 s after the answer');
    await new Promise((res) => setTimeout(res, 200));
  }
}

export interface ClaudeConfig {
  projects?: Record<string, { hasTrustDialogAccepted?: boolean }>;
}

export const readJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));

export type Question = NonNullable<TerminalState['surface']['question']>;

/** Waits for the trust question and checks what it names and offers. */
export async function trustQuestion(run: Run, c: LiveTrustCase): Promise<Question> {
  const { s } = await run.timeline.waitFor(
    'the trust question',
    (x) => x.readiness.status === 'blocked' && x.surface.question?.kind === 'trust_folder',
    { timeoutMs: c.startupTimeoutMs },
  );
  const question = s.surface.question!;
  expect(question.subject).toBe(c.namesFolder ? resolve(run.work) : null);
  expect(question.choices.map((x) => x.id)).toEqual(c.choices);
  return question;
}

export function describeLiveTrust(c: LiveTrustCase, refuse?: (c: LiveTrustCase) => void): void {
  const scratch = scratchOf(c);
  const missing = !existsSync(c.bin);
  if (missing) console.warn(`live trust answer skipped: ${c.label} is not at ${c.bin}`);

  describe
    .skipIf(missing)
    .sequential(`live ${c.label}: answering its folder-trust question`, () => {
      let run: Run | undefined;
      beforeAll(async () => {
        run = await startRun(c, join(scratch, 'trust'));
      }, 60_000);
      afterAll(async () => {
        await run?.close();
        rmSync(scratch, { recursive: true, force: true });
      }, 60_000);

      it(
        'trust: the CLI reaches its prompt and a prompt round-trips through the model',
        async () => {
          const r = run!;
          const question = await trustQuestion(r, c);
          // Nothing went to the model while the folder was not trusted, and the CLI's config
          // says nothing of it yet.
          expect(r.server.log().filter((e) => e.streaming)).toHaveLength(0);
          expect(c.trustRecord(r.scratch, resolve(r.work))).not.toEqual(c.trustedRecord);
          const choice = c.trustChoice ?? 'trust';
          const answer = r.sup.answer(r.id, { questionId: question.id, choice });
          if (c.restartsOnTrust) {
            // The key went through, but the old process may leave the dialog drawn while it
            // restarts, past the answer's 5 s check on a loaded machine: then `answer_failed`
            // (look at the pane), never a second key. What counts is the restart, the config
            // and the prompt below.
            await answer.catch((e: unknown) => {
              expect(e).toMatchObject({ code: 'answer_failed' });
            });
            await restarted(r, c.startupTimeoutMs);
          } else {
            await expect(answer).resolves.toMatchObject({ closed: true, choice });
          }
          const seenFrom = r.timeline.seen.length;
          await r.timeline.waitFor(
            'ready',
            (s) => s.readiness.status === 'ready' && s.turn.phase === 'ready',
            { from: Math.max(0, seenFrom - 1), timeoutMs: c.startupTimeoutMs },
          );
          expect(r.sup.get(r.id).surface.question).toBeNull();
          // The CLI kept the answer as its own: the folder is trusted in its config.
          expect(c.trustRecord(r.scratch, resolve(r.work))).toEqual(c.trustedRecord);
          r.server.enqueue({ text: 'Trusted and answering.', chunkDelayMs: 50 });
          const result = await r.sup.runTurn(r.id, 'say something', { timeoutMs: 60_000 });
          expect(
            result.lastTurn.result,
            `${r.timeline.describe(seenFrom)}\n${await r.session.capture()}`,
          ).toBe('success');
          expect(r.server.log().filter((e) => e.streaming)).toHaveLength(1);
          const records = r.sup.history(r.id, 500).filter((x) => x.kind === 'question.answered');
          expect(records).toMatchObject([
            { questionId: question.id, questionKind: 'trust_folder', choice },
          ]);
        },
        c.startupTimeoutMs * 2 + 90_000,
      );

      refuse?.(c);
    });
}
