/**
 * Answering a question, live, the same for every CLI that asks before it runs a shell command:
 * the real CLI against the loopback model server is asked (by the model) to run `touch FILE`;
 * paneward reads the dialog as a question and answers it with the CLI's own keys. Allow: the
 * command ran and its result went to the model in a next request. Deny: it did not run, the
 * dialog closed, no request carried a result, and the turn ends as the CLI's refusal path draws it.
 */
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../../src/index.js';
import type { AgentLaunch } from '../../../src/tooling/agents/chat-agent.js';
import {
  startFakeModelServer,
  type FakeModelServer,
  type Protocol,
} from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';
import { Timeline } from '../harness/timeline.js';

export interface LiveAnswerCase {
  /** The profile's name (`codex`), and the CLI's for the titles (`Codex`). */
  tool: string;
  label: string;
  bin: string;
  protocol: Protocol;
  /** Sets the CLI up in a fresh home against the server; how to start it. */
  prepare(o: {
    scratch: string;
    work: string;
    serverUrl: string;
  }): AgentLaunch | Promise<AgentLaunch>;
  /** What a stopped CLI left behind, ended. */
  cleanup?(scratch: string): Promise<unknown>;
  /** The model's request to run `touch FILE` in this CLI's tool. */
  shell(file: string): { name: string; input: Record<string, unknown> };
  /** The choices its dialog offers, in order. */
  choices: string[];
}

export function describeLiveAnswer(c: LiveAnswerCase): void {
  const scratch = resolve(`.tmp/e2e-live/answer-${c.tool}`, String(process.pid));
  const missing = !existsSync(c.bin);
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
      const launch = await c.prepare({ scratch, work, serverUrl: server.url });
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
        timeoutMs: 90_000,
      });
    }, 120_000);

    afterAll(async () => {
      await sup?.stop();
      await session?.close();
      await c.cleanup?.(scratch);
      await server?.close();
      rmSync(scratch, { recursive: true, force: true });
    }, 60_000);

    const ready = () =>
      timeline.waitFor('ready', (s) => s.readiness.status === 'ready' && s.turn.phase === 'ready', {
        from: Math.max(0, timeline.seen.length - 1),
        timeoutMs: 60_000,
      });

    const ask = async (file: string) => {
      const from = timeline.seen.length;
      server.enqueue({ toolUse: c.shell(file) }, { text: 'Done.', chunkDelayMs: 50 });
      const turnId = await sup.submit(id, `create ${file}`);
      const { s } = await timeline.waitFor(
        'the question',
        (x) => x.readiness.status === 'blocked' && x.surface.question?.kind === 'tool_permission',
        { from, timeoutMs: 60_000 },
      );
      return { turnId, question: s.surface.question! };
    };

    it('allow_once: the command runs and its result goes to the model', async () => {
      await ready();
      const logFrom = server.log().length;
      const file = 'approved.txt';
      const { turnId, question } = await ask(file);
      expect(question.subject).toBe(`touch ${file}`);
      expect(question.choices.map((x) => x.id)).toEqual(c.choices);
      await expect(
        sup.answer(id, { questionId: question.id, choice: 'allow_once' }),
      ).resolves.toMatchObject({ closed: true });
      const result = await sup.waitForTurn(id, turnId, { timeoutMs: 60_000 });
      expect(result.lastTurn.result).toBe('success');
      expect(existsSync(join(work, file))).toBe(true);
      expect(streaming(logFrom)).toHaveLength(2);
    }, 150_000);

    it('deny: the dialog closes and the command never runs', async () => {
      await ready();
      const logFrom = server.log().length;
      const file = 'denied.txt';
      const { question } = await ask(file);
      await expect(
        sup.answer(id, { questionId: question.id, choice: 'deny' }),
      ).resolves.toMatchObject({ closed: true, choice: 'deny' });
      await timeline.waitFor('not asking', (s) => s.readiness.status !== 'blocked', {
        from: Math.max(0, timeline.seen.length - 1),
        timeoutMs: 30_000,
      });
      await new Promise((r) => setTimeout(r, 3000));
      expect(existsSync(join(work, file))).toBe(false);
      // The refusal path: the turn stops there, interrupted, and no request carried a result.
      expect(streaming(logFrom)).toHaveLength(1);
      expect(sup.get(id).lastTurn.result).toBe('interrupted');
      expect(sup.get(id).surface.question).toBeNull();
    }, 150_000);
  });
}
