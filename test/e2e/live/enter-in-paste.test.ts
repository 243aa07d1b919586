// An Enter that arrives together with the paste before it (the CLI's event loop busy while both
// came) is taken into the draft by grok-cli, Gemini CLI and Cline: nothing is submitted. grok-cli
// draws its box garbled around it. Live: paneward's paste is held back by the transport and sent
// with its Enter as one tmux command, so the CLI reads both at once every time. The box then
// holds a draft paneward reads as one (for grok-cli: test/fixtures/grok_cli/enter-in-paste.jsonl),
// and paneward presses Enter once more: the turn runs once, with the prompt whole.
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../../src/index.js';
import { createExecaTransport } from '../../../src/observe/execa-transport.js';
import { THEN, type TmuxArg } from '../../../src/observe/tmux-argv.js';
import type { TmuxRunOptions, TmuxTransport } from '../../../src/observe/transport.js';
import type { AgentLaunch, ChatLaunchOptions } from '../../../src/tooling/agents/chat-agent.js';
import { clineAgent } from '../../../src/tooling/agents/cline.js';
import { geminiCliAgent, prepareGeminiCli } from '../../../src/tooling/agents/gemini_cli.js';
import { grokCliAgent } from '../../../src/tooling/agents/grok_cli.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import { geminiProtocol } from '../../../src/tooling/model-server/gemini.js';
import {
  startFakeModelServer,
  type FakeModelServer,
  type Protocol,
} from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';
import { Timeline } from '../harness/timeline.js';
import { stopLive } from './live-agent.js';

/**
 * A transport that holds each `paste-buffer` back and runs it in one tmux command with the next
 * `send-keys`: the pane's program reads the paste and the keys in one read. Counts the merges.
 */
function pasteWithNextKeys(inner: TmuxTransport): TmuxTransport & { merged: number } {
  let held: readonly TmuxArg[] | null = null;
  const t = {
    merged: 0,
    async run(args: readonly TmuxArg[], opts?: TmuxRunOptions): Promise<string> {
      if (args[0] === 'paste-buffer' && held === null) {
        held = args;
        return '';
      }
      if (args[0] === 'send-keys' && held !== null) {
        const paste = held;
        held = null;
        t.merged++;
        return inner.run([...paste, THEN, ...args], opts);
      }
      return inner.run(args, opts);
    },
    close: () => inner.close(),
  };
  return t;
}

interface Case {
  tool: string;
  bin: string;
  protocol: Protocol;
  startupTimeoutMs: number;
  launch(scratch: string, serverUrl: string): Promise<AgentLaunch>;
  cleanup?(scratch: string): Promise<unknown>;
}

const chat = (scratch: string, serverUrl: string): ChatLaunchOptions => ({
  scratch,
  workDir: join(scratch, 'work'),
  serverUrl,
  retries: 'default',
});

const CASES: Case[] = [
  {
    tool: grokCliAgent.tool,
    bin: grokCliAgent.bin,
    protocol: chatCompletionsProtocol,
    startupTimeoutMs: grokCliAgent.startupTimeoutMs,
    launch: async (scratch, url) => grokCliAgent.prepare(chat(scratch, url)),
  },
  {
    tool: geminiCliAgent.tool,
    bin: geminiCliAgent.bin,
    protocol: geminiProtocol,
    startupTimeoutMs: 60_000,
    launch: async (scratch, url) =>
      prepareGeminiCli({ cwd: join(scratch, 'work'), home: join(scratch, 'home'), baseUrl: url }),
  },
  {
    tool: clineAgent.tool,
    bin: clineAgent.bin,
    protocol: chatCompletionsProtocol,
    startupTimeoutMs: clineAgent.startupTimeoutMs,
    launch: async (scratch, url) => {
      const launch = clineAgent.prepare(chat(scratch, url));
      await clineAgent.setup!(chat(scratch, url));
      return launch;
    },
    cleanup: (scratch) => clineAgent.stopDaemons!(chat(scratch, '')),
  },
];

describe.each(CASES)('live $tool: an Enter read with its paste', (c) => {
  const missing = !existsSync(c.bin);
  if (missing) console.warn(`live ${c.tool} enter-in-paste skipped: it is not at ${c.bin}`);
  const scratch = resolve(`.tmp/e2e-live/enter-in-paste-${c.tool}`, String(process.pid));
  let server: FakeModelServer;
  let session: AgentSession;
  let sup: Supervisor;
  let transport: ReturnType<typeof pasteWithNextKeys>;
  let id: string;
  const timeline = new Timeline(() => session.capture());

  beforeAll(async () => {
    if (missing) return;
    rmSync(scratch, { recursive: true, force: true });
    server = await startFakeModelServer({ protocols: [c.protocol] });
    const launch = await c.launch(scratch, server.url);
    session = await startAgentSession({
      socketName: uniqueSocketName(`pw-live-enter-paste-${c.tool}`),
      cols: 160,
      rows: 45,
      cwd: launch.cwd,
      env: launch.env,
      command: launch.command,
    });
    transport = pasteWithNextKeys(createExecaTransport({ socketName: session.socketName }));
    sup = createSupervisor({
      socketName: session.socketName,
      transport,
      dataDir: null,
      config: { pollIntervalSeconds: 0.25 },
    });
    id = await sup.attach({ target: session.target, tool: c.tool });
    sup.state$(id).subscribe((s) => timeline.push(s));
    await timeline.waitFor(
      'ready',
      // Settled: a start-up still drawing above the box would count as the turn's transcript
      // changing, and a turn whose Enter was lost would look started.
      (s) =>
        s.readiness.status === 'ready' && s.surface.editingInput === 'no' && s.stability.stable,
      { timeoutMs: c.startupTimeoutMs + 30_000 },
    );
  }, c.startupTimeoutMs + 60_000);

  afterAll(
    () => stopLive({ sup, session, server, scratch, cleanup: async () => c.cleanup?.(scratch) }),
    60_000,
  );

  it.skipIf(missing)(
    'reads the box as holding a draft, presses Enter once more, and the turn runs once',
    async () => {
      server.enqueue({ text: 'Hello from the loopback server.', chunkDelayMs: 50 });
      const from = timeline.seen.length;
      const turnId = await sup.submit(id, 'say hello');
      const ended = await sup.waitForTurn(id, turnId, { timeoutMs: 60_000 });
      // The paste and its Enter went as one command: the CLI read them at once. paneward
      // waited for the CLI to read the paste first, as long as it waits (11 s), in vain.
      expect(transport.merged).toBe(1);
      expect(ended.completion.turnId).toBe(turnId);
      // The box held the Enter in its draft, read as such (not a screen paneward cannot place).
      const during = timeline.seen.slice(from).map(({ s }) => s);
      expect(during.some((s) => s.surface.editingInput === 'yes')).toBe(true);
      expect(during.some((s) => s.surface.uiContext === 'unplaced')).toBe(false);
      // The turn ran and its reply was drawn (Cline's screen alone cannot say it succeeded).
      expect(ended.result).toBe('completed');
      expect(await session.capture()).toContain('Hello from the loopback server.');
      // One request, and the prompt drawn once in the transcript, whole.
      expect(server.log().filter((e) => e.streaming)).toHaveLength(1);
      const echoes = (await session.capture()).split('\n').filter((l) => l.includes('say hello'));
      expect(echoes).toHaveLength(1);
      expect(echoes[0]).toMatch(/say hello\s*$/);
    },
    120_000,
  );
});
