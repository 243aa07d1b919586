/**
 * Records Gemini CLI's real screens against the fake model, one fixture pair per scenario:
 * `test/fixtures/gemini_cli/<scenario>.jsonl` (the recording) and `<scenario>.server.jsonl`
 * (the fake server's request log). Usage: `npx tsx test/e2e/record/gemini_cli.ts [scenario ...]`.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeModelServer, type FakeModelServer } from '../fake-model/server.js';
import type { TurnPlanInput } from '../fake-model/plan.js';
import { geminiProtocol } from '../fake-model/gemini.js';
import { geminiCliAgent, prepareGeminiCli } from '../agents/gemini_cli.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';
import { startRecorder, type Recorder } from '../../../src/observe/recorder.js';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const fixtures = join(repoRoot, 'test/fixtures/gemini_cli');
const scratch = join(repoRoot, '.tmp/record/gemini_cli');
const READY = /Type your message or @path\/to\/file/;
const BANNER = /Gemini CLI v\d/;

interface Ctx {
  server: FakeModelServer;
  session: AgentSession;
  recorder: Recorder;
}

interface Scenario {
  /** Launch settings that differ from the defaults. */
  maxAttempts?: number;
  settings?: Record<string, unknown>;
  remainOnExit?: boolean;
  run(ctx: Ctx): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function submit(ctx: Ctx, text: string): Promise<void> {
  await ctx.session.sendText(text);
  await sleep(400);
  await ctx.session.sendKeys(geminiCliAgent.submitKey);
  ctx.recorder.input(text);
}

/** Waits until `count` streaming requests have ended. */
async function streamsEnded(ctx: Ctx, count: number, timeoutMs = 60_000): Promise<void> {
  await ctx.server.waitFor((e) => e.streaming, { count, timeoutMs });
}

const longText =
  'Here is a long answer that streams slowly, one word at a time, so that there is plenty of time to ' +
  'look at the working screen while it grows, and to interrupt it in the middle if needed, before ' +
  'it ever reaches the end of this rather long sentence.';

/** The error dialog shows only with full error verbosity; the default retries silently forever. */
const errorSettings = { ui: { errorVerbosity: 'full' } };

function errorScenario(status: number, message?: string): Scenario {
  return {
    maxAttempts: 2,
    settings: errorSettings,
    async run(ctx) {
      const plan: TurnPlanInput = { error: { status, ...(message ? { message } : {}) } };
      ctx.server.enqueue(plan, plan, plan, plan, plan, plan);
      await submit(ctx, 'Say hello.');
      const screen = await ctx.session.waitForText(/Keep trying|✕ \[API Error/, 60_000);
      if (/Keep trying/.test(screen)) {
        await sleep(3000);
        await ctx.session.sendKeys('Down');
        await sleep(300);
        await ctx.session.sendKeys('Enter');
      }
      await ctx.session.waitForText(/✕ \[API Error/, 15_000);
      await sleep(3000);
    },
  };
}

const scenarios: Record<string, Scenario> = {
  startup: {
    async run() {
      await sleep(5000);
    },
  },
  'normal-turn': {
    async run(ctx) {
      ctx.server.enqueue({
        text: 'Hello! This reply comes from the fake model, streamed a few words at a time.',
        chunkDelayMs: 150,
      });
      await submit(ctx, 'Say hello.');
      await streamsEnded(ctx, 1);
      await sleep(3000);
    },
  },
  'long-turn-pause': {
    async run(ctx) {
      ctx.server.enqueue({
        text: 'First part of the answer arrives now. After a long pause the rest of the answer follows and ends here.',
        chunkDelayMs: 120,
        pauses: [{ afterChunk: 6, ms: 6000 }],
      });
      await submit(ctx, 'Answer slowly.');
      await streamsEnded(ctx, 1);
      await sleep(3000);
    },
  },
  'two-turns': {
    async run(ctx) {
      ctx.server.enqueue(
        { text: 'First answer: the sky is blue.', chunkDelayMs: 120 },
        { text: 'Second answer: the grass is green.', chunkDelayMs: 120 },
      );
      await submit(ctx, 'What colour is the sky.');
      await streamsEnded(ctx, 1);
      await sleep(2500);
      await submit(ctx, 'And the grass.');
      await streamsEnded(ctx, 2);
      await sleep(3000);
    },
  },
  interrupted: {
    async run(ctx) {
      ctx.server.enqueue({ text: longText, chunkDelayMs: 400 });
      await submit(ctx, 'Write a long answer.');
      await sleep(3500);
      await ctx.session.sendKeys(geminiCliAgent.interruptKey);
      await streamsEnded(ctx, 1, 10_000);
      await sleep(3000);
    },
  },
  'error-500': errorScenario(500),
  'error-529-overloaded': errorScenario(503),
  'error-429-rate-limit': errorScenario(429),
  'permission-prompt': {
    async run(ctx) {
      ctx.server.enqueue(
        {
          text: 'I will create the file.',
          chunkDelayMs: 80,
          toolUse: {
            name: 'run_shell_command',
            input: { command: 'touch created-by-tool.txt', description: 'Create a file' },
          },
        },
        { text: 'Created created-by-tool.txt. Done.', chunkDelayMs: 80 },
      );
      await submit(ctx, 'Create a file named created-by-tool.txt.');
      await ctx.session.waitForText(/Allow execution of/, 20_000);
      await sleep(10_000);
      await ctx.session.sendKeys(...geminiCliAgent.approveKeys);
      await streamsEnded(ctx, 2);
      await sleep(3000);
    },
  },
  hang: {
    async run(ctx) {
      ctx.server.enqueue({ text: 'Let me think about this', hang: true });
      await submit(ctx, 'Think hard.');
      await sleep(20_000);
      await ctx.session.sendKeys(geminiCliAgent.interruptKey);
      await sleep(3000);
    },
  },
  'cli-exit': {
    remainOnExit: true,
    async run(ctx) {
      await sleep(1500);
      await submit(ctx, geminiCliAgent.quitCommand);
      await sleep(5000);
    },
  },
  'cli-killed': {
    remainOnExit: true,
    async run(ctx) {
      ctx.server.enqueue({ text: 'A short answer before the end.', chunkDelayMs: 60 });
      await submit(ctx, 'Say something.');
      await streamsEnded(ctx, 1);
      await sleep(2000);
      const [pid] = await ctx.session.waitForProcess(['gemini']);
      if (pid === undefined) throw new Error('gemini process not found');
      process.kill(pid, 'SIGKILL');
      await sleep(4000);
    },
  },
  'session-killed': {
    async run(ctx) {
      await sleep(2000);
      await ctx.session.killSession();
      await sleep(3000);
    },
  },
};

async function record(name: string, scenario: Scenario): Promise<void> {
  mkdirSync(fixtures, { recursive: true });
  const dir = join(scratch, name);
  rmSync(dir, { recursive: true, force: true });
  const serverLog = join(fixtures, `${name}.server.jsonl`);
  writeFileSync(serverLog, '');
  const server = await startFakeModelServer({ protocols: [geminiProtocol], logFile: serverLog });
  let session: AgentSession | undefined;
  let recorder: Recorder | undefined;
  try {
    const launch = prepareGeminiCli({
      cwd: join(dir, 'work'),
      home: join(dir, 'home'),
      baseUrl: server.url,
      ...(scenario.maxAttempts ? { maxAttempts: scenario.maxAttempts } : {}),
      ...(scenario.settings ? { settings: scenario.settings } : {}),
    });
    session = await startAgentSession({
      socketName: uniqueSocketName('pw-gemini_cli-rec'),
      cwd: launch.cwd,
      env: launch.env,
      command: launch.command,
      cols: 120,
      rows: 40,
      remainOnExit: scenario.remainOnExit ?? false,
    });
    recorder = startRecorder({
      transport: session.transport,
      target: session.target,
      tool: geminiCliAgent.tool,
      toolVersion: geminiCliAgent.version,
      processNames: ['gemini'],
      intervalMs: 250,
      file: join(fixtures, `${name}.jsonl`),
    });
    // The prompt box is drawn before initialisation ends; keys sent before the banner can be lost.
    await session.waitForText(READY, 30_000);
    await session.waitForText(BANNER, 30_000);
    await sleep(1000);
    await scenario.run({ server, session, recorder });
  } finally {
    await recorder?.stop();
    await session?.close();
    await server.close();
  }
}

const wanted = process.argv.slice(2);
const names = wanted.length > 0 ? wanted : Object.keys(scenarios);
for (const name of names) {
  const scenario = scenarios[name];
  if (!scenario)
    throw new Error(`unknown scenario ${name}; known: ${Object.keys(scenarios).join(', ')}`);
  const t0 = Date.now();
  await record(name, scenario);
  console.log(`${name}: recorded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
