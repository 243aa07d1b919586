/**
 * Live: Copilot CLI keeps drawing a finished reply for a while after the model's stream ended.
 * With its session record as second witness (`both`, the default) a success must come no later
 * than from the screen alone: two panes of the real CLI, one under `surface` and one under
 * `both`, take the same turns in alternation; the lag from the end of the stream to the reported
 * success is printed for each.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor, type TerminalState } from '../../../src/index.js';
import { copilotAgent } from '../../../src/tooling/agents/copilot.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';

const SCRATCH = resolve('.tmp/e2e-live/witness-copilot', String(process.pid));
const POLL_SECONDS = 0.25;
const TURNS = 3;
const missing = !existsSync(copilotAgent.bin);
const REPLY = 'A reply from the fake model, a few words long so that it streams for a moment.';

describe.skipIf(missing).sequential('live Copilot CLI: success with the record as witness', () => {
  const socketName = uniqueSocketName('witness-copilot');
  let server: FakeModelServer;
  let sup: Supervisor;
  const panes: AgentSession[] = [];

  const until = async (id: string, pred: (s: TerminalState) => boolean, ms = 60_000) => {
    const end = Date.now() + ms;
    for (;;) {
      const s = sup.get(id);
      if (pred(s)) return s;
      if (Date.now() > end) throw new Error(`${id}: not seen: ${JSON.stringify(s)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const ready = (s: TerminalState) => s.readiness.status === 'ready' && s.turn.phase === 'ready';

  beforeAll(async () => {
    rmSync(SCRATCH, { recursive: true, force: true });
    server = await startFakeModelServer({ protocols: [chatCompletionsProtocol] });
    for (const name of ['surface', 'both']) {
      const scratch = join(SCRATCH, name);
      mkdirSync(scratch, { recursive: true });
      const launch = copilotAgent.prepare({
        scratch,
        workDir: join(scratch, 'work'),
        serverUrl: server.url,
        retries: 'capped',
      });
      const pane = await startAgentSession({
        socketName,
        sessionName: name,
        cols: 160,
        rows: 45,
        cwd: launch.cwd,
        env: launch.env,
        command: launch.command,
      });
      panes.push(pane);
      await pane.waitForText(copilotAgent.idle, copilotAgent.startupTimeoutMs);
    }
    sup = createSupervisor({
      socketName,
      dataDir: join(SCRATCH, 'data'),
      source: 'polling',
      config: { pollIntervalSeconds: POLL_SECONDS },
    });
  }, 150_000);

  afterAll(async () => {
    await sup?.stop();
    for (const p of panes) await p.close();
    await server?.close();
    rmSync(SCRATCH, { recursive: true, force: true });
  }, 30_000);

  it('a success with `both` comes no later than from the screen alone', async () => {
    const surfaceId = await sup.attach({
      target: panes[0]!.target,
      tool: 'copilot',
      completionAuthority: 'surface',
    });
    const bothId = await sup.attach({ target: panes[1]!.target, tool: 'copilot' });
    for (const id of [surfaceId, bothId]) await until(id, ready);
    const lags: Record<string, number[]> = { [surfaceId]: [], [bothId]: [] };
    for (let i = 0; i < TURNS; i += 1) {
      for (const id of [surfaceId, bothId]) {
        server.enqueue({ text: REPLY, chunkDelayMs: 40 });
        const r = await sup.runTurn(id, `turn ${i + 1} in ${id}`, { timeoutMs: 60_000 });
        expect(r.lastTurn.result).toBe('success');
        const req = server
          .log()
          .filter((e) => e.streaming)
          .at(-1)!;
        lags[id]!.push(r.lastTurn.at! * 1000 - req.endedAt!);
        await until(id, ready);
      }
    }
    expect(sup.get(surfaceId).lastTurn.witness ?? 'surface').toBe('surface');
    // Decided with the record: at once when the record was followed before the screen settled.
    expect(['record', 'both']).toContain(sup.get(bothId).lastTurn.witness);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const round = (xs: number[]) => xs.map((x) => Math.round(x)).join(', ');
    console.log(
      `copilot success after the stream ended, ms: surface ${round(lags[surfaceId]!)}; ` +
        `both ${round(lags[bothId]!)}`,
    );
    // The record may only make a success sooner: allow one poll of noise.
    expect(median(lags[bothId]!)).toBeLessThanOrEqual(
      median(lags[surfaceId]!) + POLL_SECONDS * 1000,
    );
  }, 240_000);
});
