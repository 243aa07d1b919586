/**
 * Answering a question, live: the real Codex CLI against the loopback model server asks for
 * approval of an escalated shell command; paneward reads it as a question and answers it by the
 * shortcut the dialog draws. Allow: the command ran and its result went to the model in a next
 * request. Deny: it did not run, and the dialog closed.
 */
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../../src/index.js';
import {
  codexAgent,
  installedDaemonPackages,
  prepareCodex,
  stopCodexDaemons,
} from '../../../src/tooling/agents/codex.js';
import { openaiProtocol } from '../../../src/tooling/model-server/openai.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';
import { Timeline } from '../harness/timeline.js';

const SCRATCH = resolve('.tmp/e2e-live/answer-codex', String(process.pid));
const missing = !existsSync(codexAgent.bin);
if (missing) console.warn(`live answer suite skipped: Codex is not at ${codexAgent.bin}`);

const shell = (file: string) => ({
  name: codexAgent.shellTool,
  input: {
    cmd: `touch ${file}`,
    ...codexAgent.escalation,
    justification: `Allow creating ${file} outside the sandbox?`,
  },
});

describe.skipIf(missing).sequential('live Codex: answering its approval question', () => {
  let server: FakeModelServer;
  let session: AgentSession;
  let sup: Supervisor;
  let id: string;
  const timeline = new Timeline();
  const work = join(SCRATCH, 'work');
  const streaming = (from: number) =>
    server
      .log()
      .slice(from)
      .filter((e) => e.streaming);

  beforeAll(async () => {
    rmSync(SCRATCH, { recursive: true, force: true });
    server = await startFakeModelServer({ protocols: [openaiProtocol] });
    const launch = prepareCodex({
      scratchDir: SCRATCH,
      workDir: work,
      serverUrl: server.url,
      retries: 0,
      daemonPackages: await installedDaemonPackages(),
    });
    session = await startAgentSession({
      socketName: uniqueSocketName('pw-live-answer-codex'),
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
    id = await sup.attach({ target: session.target, tool: 'codex' });
    sup.state$(id).subscribe((s) => timeline.push(s));
    await timeline.waitFor('ready', (s) => s.readiness.status === 'ready', { timeoutMs: 90_000 });
  }, 120_000);

  afterAll(async () => {
    await sup?.stop();
    await session?.close();
    await stopCodexDaemons(SCRATCH);
    await server?.close();
    rmSync(SCRATCH, { recursive: true, force: true });
  }, 60_000);

  const ready = () =>
    timeline.waitFor('ready', (s) => s.readiness.status === 'ready' && s.turn.phase === 'ready', {
      from: Math.max(0, timeline.seen.length - 1),
      timeoutMs: 60_000,
    });

  const ask = async (file: string) => {
    const from = timeline.seen.length;
    server.enqueue({ toolUse: shell(file) }, { text: 'Done.', chunkDelayMs: 50 });
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
    expect(question.choices.map((c) => c.id)).toEqual(['allow_once', 'allow_always', 'deny']);
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
    // Codex's refusal path: the turn stops there, interrupted, and no request carried a result.
    expect(streaming(logFrom)).toHaveLength(1);
    expect(sup.get(id).lastTurn.result).toBe('interrupted');
    expect(sup.get(id).surface.question).toBeNull();
  }, 150_000);
});
