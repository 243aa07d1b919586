/**
 * Answering a question, live: the real Claude Code in tmux against the loopback model server asks
 * for permission to run a shell command; paneward reads the dialog as a question and answers it
 * through the library and the HTTP route. Allow: the command ran (the file exists, and the CLI
 * sent the tool's result in a next request). Deny: it did not run. And the attacks: a forged
 * question id, a choice the question does not offer, two answers at once, an answer while a turn
 * runs with no dialog.
 */
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../../src/index.js';
import { createHttpApp } from '../../../src/server/app.js';
import {
  CLAUDE_CODE_BIN,
  claudeCodeFacts,
  prepareClaudeCode,
} from '../../../src/tooling/agents/claude_code.js';
import { anthropicProtocol } from '../../../src/tooling/model-server/anthropic.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';
import { Timeline } from '../harness/timeline.js';

const SCRATCH = resolve('.tmp/e2e-live/answer-claude_code', String(process.pid));
const missing = !existsSync(CLAUDE_CODE_BIN);
if (missing) console.warn(`live answer suite skipped: Claude Code is not at ${CLAUDE_CODE_BIN}`);

const bash = (command: string) => ({
  name: 'Bash',
  input: { command, description: 'Create an empty marker file' },
});

describe.skipIf(missing).sequential('live Claude Code: answering its permission question', () => {
  let server: FakeModelServer;
  let session: AgentSession;
  let sup: Supervisor;
  let id: string;
  const timeline = new Timeline(() => session.capture());
  const work = join(SCRATCH, 'work');
  const streaming = (from: number) =>
    server
      .log()
      .slice(from)
      .filter((e) => e.streaming);

  beforeAll(async () => {
    rmSync(SCRATCH, { recursive: true, force: true });
    server = await startFakeModelServer({ protocols: [anthropicProtocol] });
    const launch = prepareClaudeCode({
      home: join(SCRATCH, 'home'),
      cwd: work,
      baseUrl: server.url,
      permissionMode: 'default',
      maxRetries: 0,
    });
    session = await startAgentSession({
      socketName: uniqueSocketName('pw-live-answer'),
      cols: 160,
      rows: 45,
      cwd: launch.cwd,
      env: launch.env,
      command: launch.command,
    });
    sup = createSupervisor({
      socketName: session.socketName,
      dataDir: join(SCRATCH, 'data'),
      config: { pollIntervalSeconds: 0.25 },
    });
    id = await sup.attach({ target: session.target, tool: 'claude_code' });
    sup.state$(id).subscribe((s) => timeline.push(s));
    await timeline.waitFor('ready', (s) => s.readiness.status === 'ready', {
      timeoutMs: claudeCodeFacts.startupTimeoutMs + 30_000,
    });
  }, 90_000);

  afterAll(async () => {
    await sup?.stop();
    await session?.close();
    await server?.close();
    rmSync(SCRATCH, { recursive: true, force: true });
  }, 60_000);

  /** Submits a prompt whose reply is a tool call, and waits for its question. */
  const ask = async (file: string) => {
    const from = timeline.seen.length;
    server.enqueue({ toolUse: bash(`touch ${file}`) }, { text: 'Done.', chunkDelayMs: 50 });
    const turnId = await sup.submit(id, `create ${file}`);
    const { s } = await timeline.waitFor(
      'the question',
      (x) => x.readiness.status === 'blocked' && x.surface.question?.kind === 'tool_permission',
      { from, timeoutMs: 60_000 },
    );
    return { turnId, question: s.surface.question! };
  };

  it('allow: refuses a forged id and a choice it does not offer, types once for two answers, and the tool runs', async () => {
    const logFrom = server.log().length;
    const file = 'paneward-approved.txt';
    const { turnId, question } = await ask(file);
    expect(question.subject).toBe(`touch ${file}`);
    expect(question.choices.map((c) => c.id)).toEqual([
      'allow_once',
      'allow_always',
      'switch_to_auto_mode',
      'deny',
    ]);

    // A forged question id: refused, nothing typed, still asking.
    await expect(
      sup.answer(id, { questionId: 'q-000000000000', choice: 'allow_once' }),
    ).rejects.toMatchObject({ code: 'refused' });
    // A choice the question does not offer: invalid input naming `choice` and the valid ones.
    await expect(
      sup.answer(id, { questionId: question.id, choice: 'allow_forever' }),
    ).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(
        /^choice: .*allow_once, allow_always, switch_to_auto_mode, deny/,
      ),
    });
    await new Promise((r) => setTimeout(r, 1000));
    expect(sup.get(id).surface.question?.id).toBe(question.id);
    expect(existsSync(join(work, file))).toBe(false);

    // Two answers at the same moment: exactly one types; the other finds the dialog gone.
    const answers = await Promise.allSettled([
      sup.answer(id, { questionId: question.id, choice: 'allow_once' }),
      sup.answer(id, { questionId: question.id, choice: 'allow_once' }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = answers.find((a) => a.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: 'refused' });

    const result = await sup.waitForTurn(id, turnId, { timeoutMs: 60_000 });
    expect(result.lastTurn.result).toBe('success');
    expect(existsSync(join(work, file))).toBe(true);
    // The tool ran and its result went to the model: a second request in the same turn.
    expect(streaming(logFrom)).toHaveLength(2);
    const records = sup.history(id, 500).filter((r) => r.kind === 'question.answered');
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      questionId: question.id,
      questionKind: 'tool_permission',
      choice: 'allow_once',
      by: { via: 'library', tokenId: null },
      outcome: 'closed',
    });
  }, 150_000);

  it('deny through the HTTP route: the dialog closes and the command never runs', async () => {
    await timeline.waitFor(
      'ready',
      (s) => s.readiness.status === 'ready' && s.turn.phase === 'ready',
      {
        from: Math.max(0, timeline.seen.length - 1),
        timeoutMs: 30_000,
      },
    );
    const logFrom = server.log().length;
    const file = 'paneward-denied.txt';
    const { question } = await ask(file);
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
    expect(res.status, JSON.stringify(await res.clone().json())).toBe(200);
    expect(await res.json()).toMatchObject({
      questionId: question.id,
      choice: 'deny',
      closed: true,
    });
    await timeline.waitFor('ready again', (s) => s.readiness.status === 'ready', {
      from: Math.max(0, timeline.seen.length - 1),
      timeoutMs: 60_000,
    });
    await new Promise((r) => setTimeout(r, 2000));
    expect(existsSync(join(work, file))).toBe(false);
    // The CLI refused the tool: no request carried its result.
    expect(streaming(logFrom)).toHaveLength(1);
    const record = sup
      .history(id, 500)
      .filter((r) => r.kind === 'question.answered')
      .at(-1);
    expect(record).toMatchObject({
      choice: 'deny',
      by: { via: 'http', tokenId: expect.stringMatching(/^tok-[0-9a-f]{8}$/) },
      outcome: 'closed',
    });
  }, 150_000);

  it('an answer while a turn runs with no dialog is refused and types nothing', async () => {
    await timeline.waitFor(
      'ready',
      (s) => s.readiness.status === 'ready' && s.turn.phase === 'ready',
      {
        from: Math.max(0, timeline.seen.length - 1),
        timeoutMs: 30_000,
      },
    );
    const before = await session.capture();
    server.enqueue({ delayMs: 3000, text: 'A slow reply.', chunkDelayMs: 200 });
    const turnId = await sup.submit(id, 'say something slowly');
    await timeline.waitFor('working', (s) => s.turn.phase === 'active', { timeoutMs: 20_000 });
    await expect(
      sup.answer(id, { questionId: 'q-625b38fb69ba', choice: 'allow_once' }),
    ).rejects.toMatchObject({ code: 'refused', message: expect.stringMatching(/no question/) });
    const result = await sup.waitForTurn(id, turnId, { timeoutMs: 60_000 });
    expect(result.lastTurn.result).toBe('success');
    expect(before).not.toBe('');
  }, 120_000);
});
