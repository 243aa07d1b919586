/**
 * Records the real Claude Code CLI against the fake model server, one fixture per scenario:
 * `test/fixtures/claude_code/<scenario>.jsonl` (screens) and `<scenario>.server.jsonl` (ground truth).
 *
 *   npx tsx test/e2e/record/claude_code.ts [scenario ...]
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startRecorder, type Recorder } from '../../../src/observe/recorder.js';
import { claudeCodeFacts, prepareClaudeCode } from '../agents/claude_code.js';
import { anthropicProtocol } from '../fake-model/anthropic.js';
import type { TurnPlanInput } from '../fake-model/plan.js';
import { startFakeModelServer, type FakeModelServer } from '../fake-model/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';

const FIXTURES = resolve('test/fixtures/claude_code');
const SCRATCH = resolve('.tmp/record/claude_code');
const COLS = 160;
const ROWS = 45;
/** Bottom-line hint shown only when the prompt is idle (not while a turn runs). */
const IDLE = /\? for shortcuts/;
const WORKING = /esc to interrupt/;

interface Ctx {
  server: FakeModelServer;
  session: AgentSession;
  recorder: Recorder;
  /** Types a prompt literally, records the input, submits it with Enter. */
  submit(text: string): Promise<void>;
  /** Waits until `count` turn requests have ended on the server. */
  turnsEnded(count: number, timeoutMs?: number): Promise<void>;
  idle(timeoutMs?: number): Promise<string>;
}

interface Scenario {
  maxRetries?: number;
  trustFolder?: boolean;
  /** Run the CLI from an interactive shell, so quitting returns to a shell prompt. */
  viaShell?: boolean;
  run(ctx: Ctx): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const REPLY =
  'Hello! This reply comes from the fake model server. It has a few sentences so the transcript changes visibly while it streams.';
const LONG_REPLY = Array.from(
  { length: 40 },
  (_, i) => `Sentence ${i + 1} of a long answer that takes a while to stream.`,
).join(' ');

async function simpleTurn(ctx: Ctx, prompt: string, plan: TurnPlanInput, ended: number) {
  ctx.server.enqueue(plan);
  await ctx.submit(prompt);
  await ctx.turnsEnded(ended);
  await ctx.idle();
}

function errorScenario(status: number): Scenario {
  // Two retries, so the retry status line is on record before the final error.
  return {
    maxRetries: 2,
    async run(ctx) {
      await ctx.idle();
      await sleep(1000);
      ctx.server.enqueue(...Array.from({ length: 3 }, () => ({ error: { status } })));
      await ctx.submit('trigger an error please');
      await ctx.turnsEnded(3, 30_000);
      await ctx.idle();
      await sleep(3000);
    },
  };
}

const SCENARIOS: Record<string, Scenario> = {
  'trust-prompt': {
    trustFolder: false,
    async run(ctx) {
      await ctx.session.waitForText(/trust/i, claudeCodeFacts.startupTimeoutMs);
      await sleep(3000);
      // "No, exit" is preselected: move to "Yes, I trust this folder" first.
      await ctx.session.sendKeys(...claudeCodeFacts.trustKeys);
      await ctx.idle();
      await sleep(2000);
    },
  },
  startup: {
    async run(ctx) {
      await ctx.idle();
      await sleep(3000);
    },
  },
  'normal-turn': {
    async run(ctx) {
      await ctx.idle();
      await sleep(1000);
      await simpleTurn(ctx, 'say hello', { text: REPLY, chunkDelayMs: 120 }, 1);
      await sleep(3000);
    },
  },
  'long-turn-pause': {
    async run(ctx) {
      await ctx.idle();
      await sleep(1000);
      const plan = { text: REPLY, chunkDelayMs: 120, pauses: [{ afterChunk: 5, ms: 6000 }] };
      await simpleTurn(ctx, 'answer with a pause', plan, 1);
      await sleep(3000);
    },
  },
  'two-turns': {
    async run(ctx) {
      await ctx.idle();
      await sleep(1000);
      await simpleTurn(ctx, 'first question', { text: REPLY, chunkDelayMs: 100 }, 1);
      await sleep(2000);
      const second = {
        text: 'The second answer is different from the first one.',
        chunkDelayMs: 150,
      };
      await simpleTurn(ctx, 'second question', second, 2);
      await sleep(3000);
    },
  },
  interrupted: {
    async run(ctx) {
      await ctx.idle();
      await sleep(1000);
      ctx.server.enqueue({ text: LONG_REPLY, chunkDelayMs: 400 });
      await ctx.submit('write a long answer');
      await ctx.session.waitForText(WORKING, 10_000);
      await sleep(4000);
      await ctx.session.sendKeys(...claudeCodeFacts.interruptKeys);
      await ctx.turnsEnded(1);
      await ctx.idle();
      await sleep(3000);
    },
  },
  'error-500': errorScenario(500),
  'error-529-overloaded': errorScenario(529),
  'error-429-rate-limit': errorScenario(429),
  'permission-prompt': {
    async run(ctx) {
      await ctx.idle();
      await sleep(1000);
      ctx.server.enqueue(
        { text: 'I will create the marker file.', toolUse: claudeCodeFacts.permissionToolUse },
        { text: 'Done: the marker file exists now.', chunkDelayMs: 100 },
      );
      await ctx.submit('create the marker file');
      await ctx.session.waitForText(/Do you want to proceed\?/, 15_000);
      await sleep(10_000);
      await ctx.session.sendKeys(...claudeCodeFacts.approveKeys);
      await ctx.turnsEnded(2);
      await ctx.idle();
      await sleep(3000);
    },
  },
  hang: {
    async run(ctx) {
      await ctx.idle();
      await sleep(1000);
      ctx.server.enqueue({ hang: true });
      await ctx.submit('this will hang');
      await sleep(20_000);
      await ctx.session.sendKeys(...claudeCodeFacts.interruptKeys);
      await ctx.turnsEnded(1);
      // Interrupted before any reply, the CLI drops the turn and puts the prompt back as a draft.
      await sleep(3000);
    },
  },
  'cli-exit': {
    viaShell: true,
    async run(ctx) {
      await ctx.idle();
      await sleep(1000);
      await simpleTurn(ctx, 'say hello', { text: REPLY, chunkDelayMs: 80 }, 1);
      await sleep(1500);
      // A CLI command, not a turn: no input line.
      await ctx.session.sendText(claudeCodeFacts.quitCommand);
      await sleep(600);
      await ctx.session.sendKeys(...claudeCodeFacts.submitKeys);
      await ctx.session.waitForText(/bash-[\d.]+[#$]\s*$/, 10_000);
      await sleep(3000);
    },
  },
  'cli-killed': {
    async run(ctx) {
      await ctx.idle();
      await sleep(1000);
      await simpleTurn(ctx, 'say hello', { text: REPLY, chunkDelayMs: 80 }, 1);
      await sleep(1500);
      const [pid] = await ctx.session.waitForProcess(['claude']);
      process.kill(pid!, 'SIGKILL');
      await sleep(3000);
    },
  },
  'session-killed': {
    async run(ctx) {
      await ctx.idle();
      await sleep(1000);
      await simpleTurn(ctx, 'say hello', { text: REPLY, chunkDelayMs: 80 }, 1);
      await sleep(1500);
      await ctx.session.killSession();
      await sleep(3000);
    },
  },
};

async function record(name: string, scenario: Scenario): Promise<void> {
  const scratch = join(SCRATCH, name);
  rmSync(scratch, { recursive: true, force: true });
  const file = join(FIXTURES, `${name}.jsonl`);
  const serverLog = join(FIXTURES, `${name}.server.jsonl`);
  writeFileSync(serverLog, '');
  const server = await startFakeModelServer({ protocols: [anthropicProtocol], logFile: serverLog });
  let session: AgentSession | null = null;
  let recorder: Recorder | null = null;
  try {
    const launch = prepareClaudeCode({
      home: join(scratch, 'home'),
      cwd: join(scratch, 'work'),
      baseUrl: server.url,
      maxRetries: scenario.maxRetries ?? 0,
      trustFolder: scenario.trustFolder ?? true,
    });
    const command = scenario.viaShell
      ? ['bash', '--norc', '-c', '"$0"; exec bash --norc -i', ...launch.command]
      : launch.command;
    const launchedAt = Date.now();
    session = await startAgentSession({
      socketName: uniqueSocketName('pw-claude_code-rec'),
      cols: COLS,
      rows: ROWS,
      cwd: launch.cwd,
      env: launch.env,
      command,
      remainOnExit: true,
    });
    recorder = startRecorder({
      transport: session.transport,
      target: session.target,
      tool: claudeCodeFacts.tool,
      toolVersion: claudeCodeFacts.version,
      processNames: ['claude'],
      intervalMs: 250,
      file,
    });
    const s = session;
    const r = recorder;
    let startupMs: number | null = null;
    const ctx: Ctx = {
      server,
      session: s,
      recorder: r,
      async submit(text) {
        await s.sendText(text);
        await sleep(300);
        r.input(text);
        await s.sendKeys(...claudeCodeFacts.submitKeys);
      },
      async turnsEnded(count, timeoutMs = 60_000) {
        await server.waitFor((e) => e.streaming, { count, timeoutMs });
      },
      async idle(timeoutMs = claudeCodeFacts.startupTimeoutMs) {
        const screen = await s.waitForText(IDLE, timeoutMs);
        startupMs ??= Date.now() - launchedAt;
        return screen;
      },
    };
    await scenario.run(ctx);
    console.log(`${name}: ok (start-up to idle prompt ${startupMs} ms)`);
  } finally {
    await recorder?.stop();
    await session?.close();
    await server.close();
  }
}

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  const selected = names.length > 0 ? names : Object.keys(SCENARIOS);
  const unknown = selected.filter((n) => !(n in SCENARIOS));
  if (unknown.length > 0) throw new Error(`unknown scenario(s): ${unknown.join(', ')}`);
  mkdirSync(FIXTURES, { recursive: true });
  for (const name of selected) await record(name, SCENARIOS[name]!);
}

await main();
