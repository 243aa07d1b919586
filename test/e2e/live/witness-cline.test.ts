/**
 * Live: Cline draws an interrupted reply like a finished one, writes nothing of it into its
 * messages, and runs no hook on Escape; its own log (`~/.cline/data/logs/cline.log`) says the
 * run was aborted. The real CLI offline in a real tmux pane, the supervisor with `both` (the
 * default): a finished turn is a success and a turn interrupted with Escape is `interrupted`,
 * each decided with the CLI's own files, and the journal names the log line it came from; a
 * finished turn's reply is the text of its messages document.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor, type TerminalState } from '../../../src/index.js';
import type { ChatLaunchOptions } from '../../../src/tooling/agents/chat-agent.js';
import { clineAgent } from '../../../src/tooling/agents/cline.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';

const SCRATCH = resolve('.tmp/e2e-live/witness-cline', String(process.pid));
const missing = !existsSync(clineAgent.bin);
const LONG = Array.from({ length: 200 }, (_, i) => `Sentence ${i + 1} of a long story.`).join(' ');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(missing).sequential('live Cline: an interrupted turn from its log', () => {
  const socketName = uniqueSocketName('witness-cline');
  let server: FakeModelServer;
  let options: ChatLaunchOptions;
  let pane: AgentSession;
  let sup: Supervisor;
  let id = '';

  const until = async (what: string, pred: (s: TerminalState) => boolean, ms = 30_000) => {
    const end = Date.now() + ms;
    for (;;) {
      const s = sup.get(id);
      if (pred(s)) return s;
      if (Date.now() > end) throw new Error(`${what}: not seen: ${JSON.stringify(s)}`);
      await sleep(100);
    }
  };
  const ready = (s: TerminalState) => s.readiness.status === 'ready' && s.turn.phase === 'ready';

  beforeAll(async () => {
    rmSync(SCRATCH, { recursive: true, force: true });
    mkdirSync(SCRATCH, { recursive: true });
    server = await startFakeModelServer({ protocols: [chatCompletionsProtocol] });
    options = {
      scratch: SCRATCH,
      workDir: join(SCRATCH, 'work'),
      serverUrl: server.url,
      retries: 'capped',
    };
    const launch = clineAgent.prepare(options);
    await clineAgent.setup!(options);
    pane = await startAgentSession({
      socketName,
      cols: 160,
      rows: 45,
      cwd: launch.cwd,
      env: launch.env,
      command: launch.command,
    });
    await pane.waitForText(clineAgent.idle, clineAgent.startupTimeoutMs);
    sup = createSupervisor({
      socketName,
      dataDir: join(SCRATCH, 'data'),
      source: 'polling',
      config: { pollIntervalSeconds: 0.25 },
    });
    id = await sup.attach({ target: pane.target, tool: 'cline' });
    await until('ready', ready, 30_000);
  }, 150_000);

  afterAll(async () => {
    await sup?.stop();
    await pane?.close();
    if (options) await clineAgent.stopDaemons?.(options);
    await server?.close();
    rmSync(SCRATCH, { recursive: true, force: true });
  }, 60_000);

  it('a finished turn is a success and one interrupted with Escape is interrupted', async () => {
    server.enqueue({ text: 'OK.', chunkDelayMs: 20 });
    const done = await sup.runTurn(id, 'a short answer please', { timeoutMs: 60_000 });
    expect(done.lastTurn.result).toBe('success');
    expect(['record', 'both']).toContain(done.lastTurn.witness);
    // What it answered comes from its messages document, not from the screen.
    expect(done.payload?.reply).toMatchObject({ text: 'OK.', source: 'record' });
    await until('ready again', ready);

    const logFrom = server.log().length;
    server.enqueue({ text: LONG, chunkDelayMs: 150 });
    const turnId = await sup.submit(id, 'a long story please');
    await pane.waitForText(/Sentence 3 /, 30_000);
    expect(
      server
        .log()
        .slice(logFrom)
        .some((e) => e.streaming),
    ).toBe(true);
    await sup.interrupt(id);
    const cut = await sup.waitForTurn(id, turnId, { timeoutMs: 30_000 });
    expect(cut.lastTurn.turnId).toBe(turnId);
    expect(cut.lastTurn.result).toBe('interrupted');
    expect(['record', 'both']).toContain(cut.lastTurn.witness);
    // The journal record is made durable a moment after the state changed.
    type Ended = { record?: { file: string; offset: number; event: string } };
    let ended: Ended | undefined;
    for (let i = 0; i < 50 && !ended; i += 1) {
      ended = sup.history(id, 500).find((r) => r.kind === 'turn.ended' && r.turnId === turnId) as
        Ended | undefined;
      if (!ended) await sleep(100);
    }
    const log = join(SCRATCH, 'home', '.cline', 'data', 'logs', 'cline.log');
    expect(ended?.record).toMatchObject({ file: log, event: 'agent.run-finished' });
    const line = readFileSync(log).subarray(ended!.record!.offset).toString('utf8').split('\n')[0]!;
    expect(JSON.parse(line)).toMatchObject({
      event: 'agent.run-finished',
      properties: { status: 'aborted' },
    });
    await until('ready after the interrupt', ready);

    server.enqueue({ text: 'OK again.', chunkDelayMs: 20 });
    const after = await sup.runTurn(id, 'one more short answer', { timeoutMs: 60_000 });
    expect(after.lastTurn.result).toBe('success');
    expect(after.payload?.reply).toMatchObject({ text: 'OK again.', source: 'record' });
  }, 240_000);
});
