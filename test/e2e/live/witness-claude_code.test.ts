/**
 * Live: Claude Code's session record as the second witness (docs/witness.md), with the default
 * authority (`both`). Two panes of the real CLI share one HOME and one working folder: each
 * terminal must follow its own record, also after the CLI in a pane is restarted; success,
 * interruption and an API error are each decided with the record's agreement.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor, type TerminalState } from '../../../src/index.js';
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

const SCRATCH = resolve('.tmp/e2e-live/witness-claude_code', String(process.pid));
const POLL_SECONDS = 0.25;
const STEP_TIMEOUT_MS = 90_000;
const missing = !existsSync(CLAUDE_CODE_BIN);
const REPLY = 'A reply from the fake model, a few words long so that it streams for a moment.';
const LONG = Array.from({ length: 60 }, (_, i) => `Sentence ${i + 1} of a long answer.`).join(' ');

describe
  .skipIf(missing)
  .sequential('live Claude Code: the session record as second witness', () => {
    const socketName = uniqueSocketName('witness-live');
    const home = join(SCRATCH, 'home');
    const cwd = join(SCRATCH, 'work');
    let server: FakeModelServer;
    let sup: Supervisor;
    let a: AgentSession;
    let b: AgentSession;
    let aId: string;
    let bId: string;
    let launchLine: string;

    const until = async (
      id: string,
      what: string,
      pred: (s: TerminalState) => boolean,
      ms = 30_000,
    ) => {
      const end = Date.now() + ms;
      for (;;) {
        const s = sup.get(id);
        if (pred(s)) return s;
        if (Date.now() > end) throw new Error(`${what} not seen: ${JSON.stringify(s)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const ready = (s: TerminalState) =>
      s.readiness.status === 'ready' &&
      s.turn.phase === 'ready' &&
      s.diagnostics.availability === 'available';
    const fileOf = (id: string) => sup.get(id).witness?.file ?? null;

    beforeAll(async () => {
      rmSync(SCRATCH, { recursive: true, force: true });
      server = await startFakeModelServer({ protocols: [anthropicProtocol] });
      const launch = prepareClaudeCode({ home, cwd, baseUrl: server.url, maxRetries: 0 });
      launchLine = launch.command.join(' ');
      // Each pane runs a shell, so the CLI can be quit and started again in it.
      const shell = async (name: string) =>
        startAgentSession({
          socketName,
          sessionName: name,
          cols: 160,
          rows: 45,
          cwd: launch.cwd,
          env: { ...launch.env, PS1: 'shell$ ' },
          command: ['bash', '--norc', '--noprofile', '-i'],
        });
      a = await shell('a');
      b = await shell('b');
      for (const s of [a, b]) {
        await s.waitForText(/shell\$/);
        await s.sendText(launchLine);
        await s.sendKeys('Enter');
      }
      sup = createSupervisor({
        socketName,
        dataDir: join(SCRATCH, 'data'),
        source: 'polling',
        config: { pollIntervalSeconds: POLL_SECONDS },
      });
      aId = await sup.attach({ target: a.target, tool: 'claude_code' });
      bId = await sup.attach({ target: b.target, tool: 'claude_code' });
      await until(aId, 'a ready', ready, claudeCodeFacts.startupTimeoutMs);
      await until(bId, 'b ready', ready, claudeCodeFacts.startupTimeoutMs);
    }, 90_000);

    afterAll(async () => {
      await sup?.stop();
      for (const s of [a, b]) await s?.close();
      await server?.close();
      rmSync(SCRATCH, { recursive: true, force: true });
    }, 30_000);

    it(
      'two panes in one folder each follow their own record, and a success is decided by both',
      async () => {
        server.enqueue({ text: REPLY, chunkDelayMs: 60 });
        const ra = await sup.runTurn(aId, 'prompt typed in pane a', { timeoutMs: 60_000 });
        server.enqueue({ text: REPLY, chunkDelayMs: 60 });
        const rb = await sup.runTurn(bId, 'prompt typed in pane b', { timeoutMs: 60_000 });
        for (const r of [ra, rb]) expect(r.lastTurn.result).toBe('success');
        // Decided by both: at once when the record was already followed, else confirmed by it
        // as soon as the observer finds the CLI's new file.
        for (const id of [aId, bId]) {
          await until(id, 'both witnesses', (s) => s.lastTurn.witness === 'both', 3000);
        }
        const fa = fileOf(aId);
        const fb = fileOf(bId);
        expect(fa).not.toBeNull();
        expect(fb).not.toBeNull();
        expect(fa).not.toBe(fb);
        expect(dirname(fa!)).toBe(dirname(fb!)); // one project folder
        expect(readFileSync(fa!, 'utf8')).toContain('prompt typed in pane a');
        expect(readFileSync(fa!, 'utf8')).not.toContain('prompt typed in pane b');
        expect(readFileSync(fb!, 'utf8')).toContain('prompt typed in pane b');
        // The success came no later than the screen alone allows after the model's stream ended
        // (settle 1 s + two polls), and the journal keeps the record's evidence, not its text.
        const req = server
          .log()
          .filter((e) => e.streaming)
          .at(-1)!;
        const lagMs = rb.lastTurn.at! * 1000 - req.endedAt!;
        console.log(`witness: success ${Math.round(lagMs)} ms after the stream ended`);
        expect(lagMs).toBeLessThanOrEqual((1 + 2 * POLL_SECONDS) * 1000);
      },
      STEP_TIMEOUT_MS,
    );

    it(
      'an interruption and an API error are read right, with the record agreeing',
      async () => {
        await until(aId, 'a ready', ready);
        server.enqueue({ text: LONG, chunkDelayMs: 150 });
        const turnId = await sup.submit(aId, 'a long story please');
        await a.waitForText(/Sentence 3 /, 30_000);
        await sup.interrupt(aId);
        const ri = await sup.waitForTurn(aId, turnId, { timeoutMs: 30_000 });
        expect(ri.lastTurn.result).toBe('interrupted');
        // The CLI writes its interruption a moment after it draws it: the record confirms it.
        await until(aId, 'the record confirming', (s) => s.lastTurn.witness === 'both', 3000);

        await until(bId, 'b ready', ready);
        server.enqueue({
          error: { status: 500, type: 'api_error', message: 'Internal server error' },
        });
        const rf = await sup.runTurn(bId, 'this one fails', { timeoutMs: 60_000 });
        expect(rf.lastTurn.result).toBe('known_failure');
        await until(bId, 'the record confirming', (s) => s.lastTurn.witness === 'both', 3000);
      },
      STEP_TIMEOUT_MS,
    );

    it(
      'finds the new record after the CLI in a pane is restarted',
      async () => {
        await until(aId, 'a ready', ready);
        const before = fileOf(aId);
        const [oldPid] = await a.waitForProcess(['claude']);
        await a.sendText('/exit');
        await new Promise((r) => setTimeout(r, 500));
        await a.sendKeys('Enter');
        await a.waitForText(/shell\$\s*$/m, 20_000);
        await a.sendText(launchLine);
        await a.sendKeys('Enter');
        // Another claude process under the pane, then its idle prompt.
        const deadline = Date.now() + 20_000;
        while ((await a.waitForProcess(['claude'], 20_000))[0] === oldPid) {
          if (Date.now() > deadline) throw new Error('the CLI did not start again');
          await new Promise((r) => setTimeout(r, 200));
        }
        await a.waitForText(/\? for shortcuts/, 40_000);
        await new Promise((r) => setTimeout(r, 1500));
        await until(aId, 'a ready again', ready, 40_000);
        server.enqueue({ text: REPLY });
        const r = await sup.runTurn(aId, 'after the restart', { timeoutMs: 60_000 });
        expect(r.lastTurn.result).toBe('success');
        await until(aId, 'the record found', (s) => s.witness?.file !== before, 10_000);
        await until(aId, 'both witnesses', (s) => s.lastTurn.witness === 'both', 3000);
        const after = fileOf(aId);
        expect(after).not.toBe(before);
        expect(after).not.toBe(fileOf(bId));
        expect(readFileSync(after!, 'utf8')).toContain('after the restart');
      },
      STEP_TIMEOUT_MS,
    );
  });
