/**
 * Records the real Codex CLI against the fake model server, one fixture per scenario:
 * `test/fixtures/codex/<scenario>.jsonl` (screens) and `<scenario>.server.jsonl` (ground truth).
 *
 *   npx tsx test/e2e/record/codex.ts [scenario ...]
 */
import { readFileSync, rmSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startRecorder, type Recorder } from '../../../src/observe/recorder.js';
import { codexAgent, prepareCodex, stopCodexDaemons } from '../agents/codex.js';
import { openaiProtocol } from '../fake-model/openai.js';
import type { TurnPlanInput } from '../fake-model/plan.js';
import {
  startFakeModelServer,
  type FakeModelServer,
  type RequestLogEntry,
} from '../fake-model/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';

const FIXTURES = resolve('test/fixtures/codex');
const SCRATCH = resolve('.tmp/record/codex');
const COLS = 120;
const ROWS = 40;
/** The composer's placeholder: drawn only while the prompt box is empty. */
const EMPTY_COMPOSER = /^› Ask Codex to do anything/m;
const WORKING = /esc to interrupt\)/;

interface Ctx {
  server: FakeModelServer;
  session: AgentSession;
  recorder: Recorder;
  scratch: string;
  /** Types a prompt literally, checks it is in the box, records the input, submits with Enter. */
  submit(text: string): Promise<void>;
  /** Waits until `count` turn requests (plan-consuming ones) have ended on the server. */
  turnsEnded(count: number, timeoutMs?: number): Promise<void>;
  /** Waits until the screen shows an empty composer and no working status, stable for a while. */
  idle(timeoutMs?: number): Promise<string>;
}

interface Scenario {
  /** Run the CLI from a shell, so quitting returns to a shell prompt. */
  viaShell?: boolean;
  remainOnExit?: boolean;
  run(ctx: Ctx): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isTurn = (e: RequestLogEntry) => e.streaming && e.path.endsWith('/responses');

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
  return {
    async run(ctx) {
      ctx.server.enqueue({ error: { status } });
      await ctx.submit('trigger an error please');
      await ctx.turnsEnded(1, 30_000);
      await ctx.idle();
      await sleep(3000);
    },
  };
}

/** The CLI's own processes under the pane (not the detached app-server daemon). */
async function cliPids(session: AgentSession): Promise<number[]> {
  const pids = await session.waitForProcess(codexAgent.processNames);
  return pids.filter((pid) => {
    try {
      return !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('app-server');
    } catch {
      return false;
    }
  });
}

const SCENARIOS: Record<string, Scenario> = {
  startup: {
    async run(ctx) {
      await ctx.idle();
      await sleep(3000);
    },
  },
  'normal-turn': {
    async run(ctx) {
      await simpleTurn(ctx, 'say hello', { text: REPLY, chunkDelayMs: 120 }, 1);
      await sleep(3000);
    },
  },
  'long-turn-pause': {
    async run(ctx) {
      const plan = { text: REPLY, chunkDelayMs: 120, pauses: [{ afterChunk: 6, ms: 6000 }] };
      await simpleTurn(ctx, 'answer with a pause', plan, 1);
      await sleep(3000);
    },
  },
  'two-turns': {
    async run(ctx) {
      await simpleTurn(ctx, 'first question', { text: REPLY, chunkDelayMs: 100 }, 1);
      await sleep(2000);
      const second =
        'Second answer: shorter, but still streamed in several chunks over a second or two.';
      await simpleTurn(ctx, 'second question', { text: second, chunkDelayMs: 100 }, 2);
      await sleep(3000);
    },
  },
  interrupted: {
    async run(ctx) {
      ctx.server.enqueue({ text: LONG_REPLY, chunkDelayMs: 150 });
      await ctx.submit('write a long answer');
      await ctx.server.waitFor((e) => isTurn(e) && e.firstByteAt !== null, { ended: false });
      await sleep(4000);
      await ctx.session.sendKeys(...codexAgent.interruptKeys);
      await ctx.turnsEnded(1);
      await ctx.idle();
      await sleep(3000);
    },
  },
  'error-500': errorScenario(500),
  // OpenAI signals overload with 503 `server_is_overloaded` (there is no 529).
  'error-529-overloaded': errorScenario(503),
  'error-429-rate-limit': errorScenario(429),
  'permission-prompt': {
    async run(ctx) {
      ctx.server.enqueue(
        {
          toolUse: {
            name: codexAgent.shellTool,
            input: {
              cmd: 'touch approved.txt',
              ...codexAgent.escalation,
              justification: 'Allow creating approved.txt outside the sandbox?',
            },
          },
        },
        { text: 'Created approved.txt after your approval.', chunkDelayMs: 80 },
      );
      await ctx.submit('create approved.txt');
      await ctx.session.waitForText(/Would you like to run the following command\?/, 30_000);
      await sleep(10_000);
      await ctx.session.sendKeys(...codexAgent.approveKeys);
      await ctx.turnsEnded(2, 30_000);
      await ctx.idle();
      await sleep(3000);
    },
  },
  hang: {
    async run(ctx) {
      ctx.server.enqueue({ hang: true });
      await ctx.submit('this one never finishes');
      await ctx.server.waitFor((e) => isTurn(e) && e.firstByteAt !== null, { ended: false });
      await sleep(20_000);
      await ctx.session.sendKeys(...codexAgent.interruptKeys);
      await ctx.turnsEnded(1);
      await ctx.idle();
      await sleep(3000);
    },
  },
  'cli-exit': {
    viaShell: true,
    async run(ctx) {
      await simpleTurn(ctx, 'say hello', { text: REPLY, chunkDelayMs: 60 }, 1);
      await sleep(1500);
      await ctx.session.sendText(codexAgent.quitCommand);
      await ctx.session.waitForText(/^› \/quit/m);
      await sleep(500);
      await ctx.session.sendKeys(...codexAgent.submitKeys);
      await sleep(5000);
    },
  },
  'cli-killed': {
    remainOnExit: true,
    async run(ctx) {
      await simpleTurn(ctx, 'say hello', { text: REPLY, chunkDelayMs: 60 }, 1);
      await sleep(1500);
      for (const pid of await cliPids(ctx.session)) process.kill(pid, 'SIGKILL');
      await sleep(5000);
    },
  },
  'session-killed': {
    async run(ctx) {
      await simpleTurn(ctx, 'say hello', { text: REPLY, chunkDelayMs: 60 }, 1);
      await sleep(1500);
      await ctx.session.killSession();
      await sleep(3000);
    },
  },
};

async function record(name: string, scenario: Scenario): Promise<void> {
  const scratch = join(SCRATCH, name);
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(FIXTURES, { recursive: true });
  const serverLog = join(FIXTURES, `${name}.server.jsonl`);
  rmSync(serverLog, { force: true });
  const server = await startFakeModelServer({ protocols: [openaiProtocol], logFile: serverLog });
  const launch = prepareCodex({
    scratchDir: scratch,
    workDir: join(scratch, 'work'),
    serverUrl: server.url,
  });
  const command = scenario.viaShell
    ? [
        'bash',
        '--noprofile',
        '--norc',
        '-c',
        `${launch.command.join(' ')}; exec bash --noprofile --norc -i`,
      ]
    : launch.command;
  let session: AgentSession | undefined;
  let recorder: Recorder | undefined;
  try {
    session = await startAgentSession({
      socketName: uniqueSocketName('pw-codex'),
      cols: COLS,
      rows: ROWS,
      cwd: launch.cwd,
      env: { ...launch.env, PS1: '$ ' },
      command,
      remainOnExit: scenario.remainOnExit ?? false,
    });
    recorder = startRecorder({
      transport: session.transport,
      target: session.target,
      tool: codexAgent.tool,
      toolVersion: codexAgent.version,
      processNames: codexAgent.processNames,
      intervalMs: 250,
      file: join(FIXTURES, `${name}.jsonl`),
    });
    const s = session;
    const r = recorder;
    const ctx: Ctx = {
      server,
      session: s,
      recorder: r,
      scratch,
      async submit(text) {
        await ctx.idle();
        await s.sendText(text);
        await s.waitForText(
          new RegExp(`^› ${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'),
          5000,
        );
        await sleep(300);
        r.input(text);
        await s.sendKeys(...codexAgent.submitKeys);
      },
      async turnsEnded(count, timeoutMs = 60_000) {
        await server.waitFor(isTurn, { count, timeoutMs });
      },
      async idle(timeoutMs = 30_000) {
        // The box is drawn before it takes input: require the same idle screen for 1.5 s.
        const deadline = Date.now() + timeoutMs;
        let last = '';
        let since = Date.now();
        for (;;) {
          const screen = await s.capture();
          const ready = EMPTY_COMPOSER.test(screen) && !WORKING.test(screen);
          if (screen !== last || !ready) {
            last = screen;
            since = Date.now();
          } else if (Date.now() - since >= 1500) {
            return screen;
          }
          if (Date.now() > deadline)
            throw new Error(`codex not idle within ${timeoutMs} ms:\n${screen}`);
          await sleep(100);
        }
      },
    };
    await scenario.run(ctx);
  } finally {
    await recorder?.stop();
    await session?.close();
    stopCodexDaemons(scratch);
    await server.close();
  }
}

async function main(): Promise<void> {
  const requested = process.argv.slice(2);
  const selected = requested.length > 0 ? requested : Object.keys(SCENARIOS);
  for (const name of selected) {
    if (!SCENARIOS[name])
      throw new Error(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(', ')}`);
  }
  for (const name of selected) {
    process.stdout.write(`recording ${name}... `);
    await record(name, SCENARIOS[name]!);
    process.stdout.write('done\n');
  }
}

await main();
