/**
 * Records the real Codex CLI against the fake model server, one fixture per scenario:
 * `test/fixtures/codex/<scenario>.jsonl` (screens) and `<scenario>.server.jsonl` (ground truth).
 *
 *   npx tsx test/e2e/record/codex.ts [--out DIR] [scenario ...]
 *
 * `--out DIR` writes the fixtures there instead: a release other than the one whose recordings
 * are in `test/fixtures/codex/` is recorded into `test/fixtures/codex/<version>/`, so the older
 * recordings stay. With no scenario named, every scenario is recorded (not the `record-` ones).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startRecorder, type Recorder } from '../../../src/observe/recorder.js';
import { codexSessionRecord } from '../../../src/profiles/codex/session-record.js';
import {
  codexAgent,
  installedDaemonPackages,
  prepareCodex,
  stopCodexDaemons,
} from '../../../src/tooling/agents/codex.js';
import { openaiProtocol } from '../../../src/tooling/model-server/openai.js';
import type { TurnPlanInput } from '../../../src/tooling/model-server/plan.js';
import {
  startFakeModelServer,
  type FakeModelServer,
  type RequestLogEntry,
} from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';

/** Where the fixtures are written: `--out DIR`, else `test/fixtures/codex/`. */
let FIXTURES = resolve('test/fixtures/codex');
const SCRATCH = resolve('.tmp/record/codex');
/** The size of the first recordings; a scenario may ask for another. */
const COLS = 120;
const ROWS = 40;
/** The composer's placeholder: drawn only while the prompt box is empty. */
const EMPTY_COMPOSER = /^› Ask Codex to do anything/m;
const WORKING = /esc to interrupt\)/;
/** The start-up question about a folder that is not in the trusted projects. */
const WAITING_FOR_STARTUP = /^\s*Waiting for startup\b/m;
const TRUST_DIALOG = /Trust this folder\?/;
/** The footer naming the model: drawn once the session is up (Codex 0.171 takes no input before). */
const MODEL_FOOTER = /^ {2}gpt-fake-1 /m;

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
  /** Terminal size (default 120x40). */
  cols?: number;
  rows?: number;
  /** Leave the work folder out of the trusted projects, so Codex asks about it at start-up. */
  untrusted?: boolean;
  /**
   * A new user's setup: a config with only the model and its provider, and a work folder outside
   * any Git repository; and no background server installed yet (Codex 0.171 installs it first).
   */
  providerOnly?: boolean;
  /** Run the CLI from a shell, so quitting returns to a shell prompt. */
  viaShell?: boolean;
  remainOnExit?: boolean;
  /** A small context window the fake usage nears, with the provider named as OpenAI's own. */
  longContext?: boolean;
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

/** One list item per chunk: 90 lines, streamed over about 5 s at 55 ms a chunk. */
const NINETY_LINES = Array.from(
  { length: 90 },
  (_, i) => `${i + 1}. Line ${i + 1} of a long reply that scrolls the prompt away.\n`,
);

/**
 * Types the prompt and presses Enter the moment the box is drawn. Codex 0.169.0 mostly drops that
 * Enter (the prompt stays in the box) and sometimes queues it ("Waiting for startup"). Then, as
 * the supervisor does: no sign of a turn 1.5 s later and the prompt still a draft in the box,
 * press submit once more.
 */
const enterDuringStartup: Scenario = {
  async run(ctx) {
    ctx.server.enqueue({ text: REPLY, chunkDelayMs: 120 });
    await ctx.session.waitForText(/^› /m, 30_000);
    await ctx.session.sendText('say hello');
    ctx.recorder.input('say hello');
    await ctx.session.sendKeys(...codexAgent.submitKeys);
    await sleep(1500);
    const screen = await ctx.session.capture();
    const queued = WAITING_FOR_STARTUP.test(screen) || ctx.server.log().some(isTurn);
    process.stdout.write(`(the Enter was ${queued ? 'queued' : 'dropped'}) `);
    if (!queued && /^› say hello/m.test(screen))
      await ctx.session.sendKeys(...codexAgent.submitKeys);
    await ctx.turnsEnded(1, 30_000);
    await ctx.idle();
    await sleep(3000);
  },
};

async function simpleTurn(ctx: Ctx, prompt: string, plan: TurnPlanInput, ended: number) {
  ctx.server.enqueue(plan);
  await ctx.submit(prompt);
  await ctx.turnsEnded(ended);
  await ctx.idle();
}

/** A long reply interrupted with the interrupt key once it has streamed for a few seconds. */
async function interruptedTurn(ctx: Ctx, prompt: string, ended: number) {
  ctx.server.enqueue({ text: LONG_REPLY, chunkDelayMs: 150 });
  await ctx.submit(prompt);
  await ctx.server.waitFor((e) => isTurn(e) && e.firstByteAt !== null, {
    ended: false,
    count: ended,
  });
  await sleep(4000);
  await ctx.session.sendKeys(...codexAgent.interruptKeys);
  await ctx.turnsEnded(ended);
  await ctx.idle();
}

/** The context window of the long-context scenarios, and where Codex compacts on its own. */
const CONTEXT_WINDOW = { tokens: 100_000, autoCompactAt: 80_000 };
/** A first turn that reports 90% of the window used: the next prompt makes Codex compact first. */
const NEAR_FULL: TurnPlanInput = {
  text: 'Here is a long answer; the conversation is now close to the context window.',
  chunkDelayMs: 80,
  usage: { inputTokens: 90_000 },
};

/**
 * A long conversation, then a prompt: Codex compacts before it sends the prompt, and its compact
 * request gets `compaction` (a plan for the compaction request: an error, a cut stream, or the
 * compaction item). When the compaction succeeds, the prompt's reply follows.
 */
function compactScenario(compaction: TurnPlanInput): Scenario {
  return {
    longContext: true,
    async run(ctx) {
      await simpleTurn(ctx, 'read the whole project', NEAR_FULL, 1);
      await sleep(1500);
      ctx.server.enqueue(compaction, { text: REPLY, chunkDelayMs: 120 });
      await ctx.submit('now summarise it');
      await ctx.turnsEnded(2, 60_000);
      const failed = compaction.error !== undefined || compaction.disconnect !== undefined;
      if (!failed) await ctx.turnsEnded(3, 60_000);
      await ctx.idle();
      await sleep(3000);
    },
  };
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
  // A reply that ends well under a second after the prompt: Codex prints `Worked for <1s`.
  'quick-turn': {
    async run(ctx) {
      await simpleTurn(ctx, 'say hi', { text: 'Hi.', chunkDelayMs: 0 }, 1);
      await sleep(3000);
    },
  },
  // A reply that takes over a minute: Codex prints `Worked for 1m 02s`.
  'minute-turn': {
    async run(ctx) {
      const plan = { text: REPLY, delayMs: 61_000, chunkDelayMs: 60 };
      ctx.server.enqueue(plan);
      await ctx.submit('take your time');
      await ctx.turnsEnded(1, 90_000);
      await ctx.idle();
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
  'size-80x24-normal-turn': {
    cols: 80,
    rows: 24,
    async run(ctx) {
      await simpleTurn(ctx, 'say hello', { text: REPLY, chunkDelayMs: 120 }, 1);
      await sleep(3000);
    },
  },
  'size-80x24-interrupted': {
    cols: 80,
    rows: 24,
    async run(ctx) {
      await interruptedTurn(ctx, 'write a long answer', 1);
      await sleep(3000);
    },
  },
  'size-80x24-permission-prompt': {
    cols: 80,
    rows: 24,
    run: (ctx) => SCENARIOS['permission-prompt']!.run(ctx),
  },
  'size-250x60-permission-prompt': {
    cols: 250,
    rows: 60,
    run: (ctx) => SCENARIOS['permission-prompt']!.run(ctx),
  },
  'size-250x60-interrupted': {
    cols: 250,
    rows: 60,
    async run(ctx) {
      await interruptedTurn(ctx, 'write a long answer', 1);
      await sleep(3000);
    },
  },
  'size-200x50-normal-turn': {
    cols: 200,
    rows: 50,
    async run(ctx) {
      await simpleTurn(ctx, 'say hello', { text: REPLY, chunkDelayMs: 120 }, 1);
      await sleep(3000);
    },
  },
  'size-250x60-normal-turn': {
    cols: 250,
    rows: 60,
    async run(ctx) {
      await simpleTurn(ctx, 'say hello', { text: REPLY, chunkDelayMs: 120 }, 1);
      await sleep(3000);
    },
  },
  'long-reply-scrolls': {
    async run(ctx) {
      await simpleTurn(ctx, 'write ninety lines', { chunks: NINETY_LINES, chunkDelayMs: 55 }, 1);
      await sleep(3000);
    },
  },
  'error-then-success': {
    async run(ctx) {
      ctx.server.enqueue({ error: { status: 500 } });
      await ctx.submit('trigger an error please');
      await ctx.turnsEnded(1, 30_000);
      await ctx.idle();
      await sleep(2000);
      await simpleTurn(ctx, 'now say hello', { text: REPLY, chunkDelayMs: 120 }, 2);
      await sleep(3000);
    },
  },
  'interrupted-then-success': {
    async run(ctx) {
      await interruptedTurn(ctx, 'write a long answer', 1);
      await sleep(2000);
      await simpleTurn(ctx, 'now say hello', { text: REPLY, chunkDelayMs: 120 }, 2);
      await sleep(3000);
    },
  },
  'multiline-prompt': {
    async run(ctx) {
      ctx.server.enqueue({ text: REPLY, chunkDelayMs: 120 });
      await ctx.idle();
      const lines = ['first line of the prompt', 'second line of the prompt', 'third line'];
      for (const [i, line] of lines.entries()) {
        if (i > 0) await ctx.session.sendKeys(...codexAgent.newlineKeys);
        await ctx.session.sendText(line);
      }
      await ctx.session.waitForText(/^ {2}third line/m, 5000);
      await sleep(300);
      ctx.recorder.input(lines.join('\n'));
      await ctx.session.sendKeys(...codexAgent.submitKeys);
      await ctx.turnsEnded(1);
      await ctx.idle();
      await sleep(3000);
    },
  },
  'draft-over-old-marker': {
    async run(ctx) {
      await interruptedTurn(ctx, 'write a long answer', 1);
      await sleep(1500);
      await ctx.session.sendText('a draft I have not sent');
      await sleep(4000);
    },
  },
  'startup-trust-dialog': {
    untrusted: true,
    async run(ctx) {
      await ctx.session.waitForText(TRUST_DIALOG, 30_000);
      await sleep(4000);
      await ctx.session.sendKeys(...codexAgent.trustKeys);
      await ctx.idle();
      await sleep(3000);
    },
  },
  'enter-during-startup': enterDuringStartup,
  'startup-fresh-home': {
    providerOnly: true,
    async run(ctx) {
      // Let the whole start screen show (its tips come with the session) before the turn. Codex
      // 0.171 first installs its background server into the new home: a minute or more.
      await ctx.session.waitForText(MODEL_FOOTER, 240_000);
      await ctx.idle();
      await sleep(2000);
      await simpleTurn(ctx, 'say hello', { text: REPLY, chunkDelayMs: 120 }, 1);
      await sleep(3000);
    },
  },
  'size-80x24-long-reply': {
    cols: 80,
    rows: 24,
    async run(ctx) {
      await simpleTurn(ctx, 'write ninety lines', { chunks: NINETY_LINES, chunkDelayMs: 55 }, 1);
      await sleep(3000);
    },
  },
  // Codex compacts on its own near the window: `• Context compacted · 0s`.
  'compact-auto': compactScenario({ usage: { inputTokens: 3000 } }),
  // The compaction fails: `■ Error running remote compact task: <why>`, the prompt unanswered.
  'compact-error-500': compactScenario({ error: { status: 500 } }),
  'compact-stream-disconnected': compactScenario({ disconnect: { afterChunk: 0 } }),
  'compact-context-length-exceeded': compactScenario({
    error: {
      status: 400,
      code: 'context_length_exceeded',
      message:
        'Your input exceeds the context window of this model. Please adjust your input and try again.',
    },
  }),
  'compact-unknown-parameter': compactScenario({
    error: {
      status: 400,
      code: 'unknown_parameter',
      message: "Unknown parameter: 'input[5].type'.",
    },
  }),
  // The prompt itself overflows the window (the provider's 400 `context_length_exceeded`):
  // `■ Codex ran out of room in the model's context window. Start a new thread or clear …`.
  'context-length-exceeded': {
    async run(ctx) {
      ctx.server.enqueue({
        error: {
          status: 400,
          code: 'context_length_exceeded',
          message:
            'Your input exceeds the context window of this model. Please adjust your input and try again.',
        },
      });
      await ctx.submit('read every file in the project');
      await ctx.turnsEnded(1, 30_000);
      await ctx.idle();
      await sleep(3000);
    },
  },
  // A failed compaction, then the next prompt compacts and is answered: the error is history.
  'compact-error-then-success': {
    longContext: true,
    async run(ctx) {
      await SCENARIOS['compact-error-500']!.run(ctx);
      ctx.server.dropPlans();
      ctx.server.enqueue({ usage: { inputTokens: 3000 } }, { text: REPLY, chunkDelayMs: 120 });
      await ctx.submit('try again');
      await ctx.turnsEnded(4, 60_000);
      await ctx.idle();
      await sleep(3000);
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

async function record(
  name: string,
  scenario: Scenario,
  daemonPackages: string | null,
): Promise<void> {
  // With the session record, the folders live outside this repository: the CLIs write their
  // working folder's paths and Git state into their records.
  // Not under the temporary folder either: Codex warns that it will not put its helpers there.
  const scratch = name.startsWith('record-')
    ? join(homedir(), '.cache', 'pw-record', 'codex', name)
    : join(SCRATCH, name);
  rmSync(scratch, { recursive: true, force: true });
  // Outside this repository when the scenario needs a folder that is not in a Git project.
  const workDir = scenario.providerOnly
    ? join(tmpdir(), `paneward-record-codex-${name}`)
    : join(scratch, 'work');
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(FIXTURES, { recursive: true });
  const serverLog = join(FIXTURES, `${name}.server.jsonl`);
  // Created empty, so a scenario without model requests still has its ground truth.
  writeFileSync(serverLog, '');
  const server = await startFakeModelServer({ protocols: [openaiProtocol], logFile: serverLog });
  const launch = prepareCodex({
    scratchDir: scratch,
    workDir,
    serverUrl: server.url,
    trusted: !scenario.untrusted,
    providerOnly: scenario.providerOnly ?? false,
    // A returning user's home has the background server installed; a new user's has not.
    daemonPackages: scenario.providerOnly ? null : daemonPackages,
    ...(scenario.longContext ? { providerName: 'OpenAI', contextWindow: CONTEXT_WINDOW } : {}),
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
      cols: scenario.cols ?? COLS,
      rows: scenario.rows ?? ROWS,
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
      // `record-<scenario>`: with the CLI's session record (docs/contracts.md §2).
      ...(!SCENARIOS[name] && name.startsWith('record-')
        ? { sessionRecord: codexSessionRecord }
        : {}),
    });
    const s = session;
    const r = recorder;
    let sessionUp = false;
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
        // The box is drawn before it takes input: require the same idle screen for 1.5 s, once
        // the session is up (the model footer drawn at least once).
        const deadline = Date.now() + timeoutMs;
        let last = '';
        let since = Date.now();
        for (;;) {
          const screen = await s.capture();
          if (MODEL_FOOTER.test(screen)) sessionUp = true;
          const ready = sessionUp && EMPTY_COMPOSER.test(screen) && !WORKING.test(screen);
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
    await stopCodexDaemons(scratch);
    await server.close();
  }
}

async function main(): Promise<void> {
  const requested = process.argv.slice(2);
  const out = requested.indexOf('--out');
  if (out >= 0) {
    const dir = requested[out + 1];
    if (dir === undefined || dir.startsWith('--')) throw new Error('--out: needs a folder');
    FIXTURES = resolve(dir);
    requested.splice(out, 2);
  }
  const selected = requested.length > 0 ? requested : Object.keys(SCENARIOS);
  // `record-<scenario>` records the scenario with the session record, as record-<scenario>.jsonl.
  const scenarioOf = (n: string) => SCENARIOS[n] ?? SCENARIOS[n.replace(/^record-/, '')];
  for (const name of selected) {
    if (!scenarioOf(name))
      throw new Error(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(', ')}`);
  }
  const daemonPackages = await installedDaemonPackages();
  for (const name of selected) {
    process.stdout.write(`recording ${name}... `);
    await record(name, scenarioOf(name)!, daemonPackages);
    process.stdout.write('done\n');
  }
}

await main();
