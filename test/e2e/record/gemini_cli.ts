/**
 * Records Gemini CLI's real screens against the fake model, one fixture pair per scenario:
 * `test/fixtures/gemini_cli/<scenario>.jsonl` (the recording) and `<scenario>.server.jsonl`
 * (the fake server's request log).
 * Usage: `npx tsx test/e2e/record/gemini_cli.ts [--size=COLSxROWS] [scenario ...]`; `--size`
 * overrides every chosen scenario's terminal size (default 120x40, or the scenario's own).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';
import type { TurnPlanInput } from '../../../src/tooling/model-server/plan.js';
import { geminiProtocol } from '../../../src/tooling/model-server/gemini.js';
import { geminiCliAgent, prepareGeminiCli } from '../../../src/tooling/agents/gemini_cli.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';
import { startRecorder, type Recorder } from '../../../src/observe/recorder.js';
import { geminiCliSessionRecord } from '../../../src/profiles/gemini_cli/session-record.js';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const fixtures = join(repoRoot, 'test/fixtures/gemini_cli');
const scratch = join(repoRoot, '.tmp/record/gemini_cli');
const READY = /Type your message or @path\/to\/file/;
const BANNER = /Gemini CLI v\d/;

interface Ctx {
  server: FakeModelServer;
  session: AgentSession;
  recorder: Recorder;
  /** The CLI's working directory. */
  cwd: string;
}

interface Scenario {
  /** Terminal size; default 120x40. */
  cols?: number;
  rows?: number;
  /** Launch settings that differ from the defaults (`null`: the CLI's own retry default). */
  maxAttempts?: number | null;
  settings?: Record<string, unknown>;
  trusted?: boolean;
  selectAuth?: boolean;
  relaunch?: boolean;
  remainOnExit?: boolean;
  /** Its folders outside this repository: the footer shows no Git branch of this one. */
  outsideRepo?: boolean;
  /** The scenario drives start-up itself (a dialog comes before the prompt box). */
  ownStartup?: boolean;
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
      const screen = await ctx.session.waitForText(/Keep trying|✕ +\[API Error/, 60_000);
      if (/Keep trying/.test(screen)) {
        await sleep(3000);
        await ctx.session.sendKeys('Down');
        await sleep(300);
        await ctx.session.sendKeys('Enter');
      }
      await ctx.session.waitForText(/✕ +\[API Error/, 15_000);
      await sleep(3000);
    },
  };
}

/** Text streamed at 0.6 s a chunk, then a shell call that asks for permission, approved. */
async function slowThenPermission(ctx: Ctx): Promise<void> {
  ctx.server.enqueue(
    {
      text: 'Let me think about where that file should go before I create it.',
      chunkDelayMs: 600,
      toolUse: {
        name: 'run_shell_command',
        input: { command: 'touch created-by-tool.txt', description: 'Create a file' },
      },
    },
    { text: 'Created created-by-tool.txt after your approval.', chunkDelayMs: 600 },
  );
  await submit(ctx, 'Think, then create a file named created-by-tool.txt.');
  await ctx.session.waitForText(/Allow execution of/, 60_000);
  await sleep(6000);
  await ctx.session.sendKeys(...geminiCliAgent.approveKeys);
  await streamsEnded(ctx, 2);
  await sleep(3000);
}

async function normalTurn(ctx: Ctx): Promise<void> {
  const before = ctx.server.log().filter((e) => e.streaming).length;
  ctx.server.enqueue({
    text: 'Hello! This reply comes from the fake model, streamed a few words at a time.',
    chunkDelayMs: 150,
  });
  await submit(ctx, 'Say hello.');
  await streamsEnded(ctx, before + 1);
  await sleep(3000);
}

/** Starts a long reply and cancels it with Escape after 3.5 s. */
async function interruptedTurn(ctx: Ctx): Promise<void> {
  const before = ctx.server.log().filter((e) => e.streaming).length;
  ctx.server.enqueue({ text: longText, chunkDelayMs: 400 });
  await submit(ctx, 'Write a long answer.');
  await sleep(3500);
  await ctx.session.sendKeys(geminiCliAgent.interruptKey);
  await streamsEnded(ctx, before + 1, 10_000);
  await sleep(3000);
}

/** A follow-up turn that succeeds while the previous turn's marker is still on screen. */
async function successAfter(ctx: Ctx): Promise<void> {
  const before = ctx.server.log().filter((e) => e.streaming).length;
  ctx.server.enqueue({ text: 'Second try: this one works and ends normally.', chunkDelayMs: 120 });
  await submit(ctx, 'Try again.');
  await streamsEnded(ctx, before + 1);
  await sleep(3000);
}

const manyLines = Array.from(
  { length: 90 },
  (_, i) => `- Line ${i + 1} of a long list that scrolls the screen.\n`,
);

/** A scenario in screen-reader mode: no banner, so it waits for the prompt line itself. */
function screenReader(run: (ctx: Ctx) => Promise<void>): Scenario {
  return {
    settings: { ui: { accessibility: { screenReader: true }, errorVerbosity: 'full' } },
    ownStartup: true,
    async run(ctx) {
      await ctx.session.waitForText(READY, 30_000);
      await sleep(3000);
      await run(ctx);
    },
  };
}

/** The window of the default model (`gemini-2.5-flash`), as Gemini CLI counts it: 1,048,576 tokens. */
const WINDOW = 1_048_576;

/** A first turn whose reply reports `inputTokens` of the window used: a long conversation. */
async function longConversation(ctx: Ctx, inputTokens: number): Promise<void> {
  ctx.server.enqueue({
    text: 'Here is a long answer; the conversation is now close to the context window.',
    chunkDelayMs: 100,
    usage: { inputTokens },
  });
  await submit(ctx, 'Read the whole project.');
  await streamsEnded(ctx, 1);
  await sleep(3000);
}

/** The error the Gemini API gives a request over the model's window. */
const overWindow = (tokens: number): TurnPlanInput => ({
  error: {
    status: 400,
    message: `The input token count (${tokens}) exceeds the maximum number of tokens allowed (${WINDOW}).`,
  },
});

/**
 * Compression only once the window is full (`model.compressionThreshold: 1`), and a window
 * with 6 tokens left: the next prompt is not compressed first, it no longer fits, and it is not
 * sent.
 */
const fullWindow: Pick<Scenario, 'settings' | 'outsideRepo'> = {
  outsideRepo: true,
  settings: { model: { name: geminiCliAgent.model, compressionThreshold: 1 } },
};
async function overflowingPrompt(ctx: Ctx): Promise<void> {
  await longConversation(ctx, WINDOW - 6);
  await submit(ctx, 'Now summarise the whole project for me, file by file.');
  await ctx.session.waitForText(/might exceed the context window limit/, 30_000);
  await sleep(3000);
}

/**
 * `/compress` typed at the keyboard (no prompt of the recording's own: it asks no model for a
 * reply), and its result.
 */
async function compress(ctx: Ctx, done: RegExp): Promise<void> {
  await ctx.session.sendText('/compress');
  await sleep(400);
  await ctx.session.sendKeys(geminiCliAgent.submitKey);
  await ctx.session.waitForText(done, 60_000);
  await sleep(3000);
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
  'size-80x24-normal-turn': { cols: 80, rows: 24, run: normalTurn },
  'size-80x24-interrupted': { cols: 80, rows: 24, run: interruptedTurn },
  'size-200x50-normal-turn': { cols: 200, rows: 50, run: normalTurn },
  'size-250x60-normal-turn': { cols: 250, rows: 60, run: normalTurn },
  'size-250x60-interrupted': { cols: 250, rows: 60, run: interruptedTurn },
  'size-80x24-permission-prompt': {
    cols: 80,
    rows: 24,
    run: (ctx) => scenarios['permission-prompt']!.run(ctx),
  },
  'size-250x60-permission-prompt': {
    cols: 250,
    rows: 60,
    run: (ctx) => scenarios['permission-prompt']!.run(ctx),
  },
  // The working line without its glyph (`ui.showSpinner: false`, docs/spinners.md).
  'no-spinner-slow-turn': { settings: { ui: { showSpinner: false } }, run: slowThenPermission },
  // Screen-reader mode draws the word `responding` where the glyph stands.
  'screen-reader-slow-turn': {
    settings: { ui: { accessibility: { screenReader: true } } },
    // No banner in this view: the prompt box, then time to finish initialising.
    ownStartup: true,
    async run(ctx) {
      await ctx.session.waitForText(READY, 30_000);
      await sleep(3000);
      await slowThenPermission(ctx);
    },
  },
  // The same view: an interrupted turn, then one that succeeds; a failed turn (the retry
  // dialog, then the error), then one that succeeds.
  'screen-reader-interrupted-then-success': screenReader(async (ctx) => {
    await interruptedTurn(ctx);
    await successAfter(ctx);
  }),
  'size-80x24-screen-reader-interrupted-then-success': {
    ...screenReader(async (ctx) => {
      await interruptedTurn(ctx);
      await successAfter(ctx);
    }),
    cols: 80,
    rows: 24,
  },
  'screen-reader-error-then-success': {
    ...screenReader(async (ctx) => {
      await scenarios['error-then-success']!.run(ctx);
    }),
    maxAttempts: 2,
  },
  'long-reply-scrolls': {
    async run(ctx) {
      ctx.server.enqueue({ text: manyLines.join(''), chunks: manyLines, chunkDelayMs: 50 });
      await submit(ctx, 'List ninety lines.');
      await streamsEnded(ctx, 1);
      await sleep(3000);
    },
  },
  'error-then-success': {
    maxAttempts: 2,
    settings: errorSettings,
    async run(ctx) {
      const plan: TurnPlanInput = { error: { status: 500 } };
      ctx.server.enqueue(plan, plan);
      await submit(ctx, 'Say hello.');
      const screen = await ctx.session.waitForText(/Keep trying|✕ +\[API Error/, 60_000);
      if (/Keep trying/.test(screen)) {
        await sleep(2000);
        await ctx.session.sendKeys('Down');
        await sleep(300);
        await ctx.session.sendKeys('Enter');
      }
      await ctx.session.waitForText(/✕ +\[API Error/, 15_000);
      await sleep(2500);
      await successAfter(ctx);
    },
  },
  'interrupted-then-success': {
    async run(ctx) {
      await interruptedTurn(ctx);
      await successAfter(ctx);
    },
  },
  'multiline-prompt': {
    async run(ctx) {
      ctx.server.enqueue({ text: 'Three lines received; here is the answer.', chunkDelayMs: 120 });
      const lines = ['First line of the prompt.', 'Second line of the prompt.', 'Third line.'];
      for (const [i, line] of lines.entries()) {
        // Ctrl+J starts a new line in the prompt box instead of submitting.
        if (i > 0) await ctx.session.sendKeys('C-j');
        await ctx.session.sendText(line);
      }
      await sleep(400);
      await ctx.session.sendKeys(geminiCliAgent.submitKey);
      ctx.recorder.input(lines.join('\n'));
      await streamsEnded(ctx, 1);
      await sleep(3000);
    },
  },
  'draft-over-old-marker': {
    async run(ctx) {
      await interruptedTurn(ctx);
      // Typed, never submitted: no input line, no new turn.
      await ctx.session.sendText('A draft that I have not sent yet');
      await sleep(3500);
    },
  },
  'startup-trust-dialog': {
    trusted: false,
    relaunch: true,
    ownStartup: true,
    async run(ctx) {
      await ctx.session.waitForText(/Do you trust/, 30_000);
      await sleep(3000);
      // "1. Trust folder" is preselected; the CLI restarts through its launcher.
      await ctx.session.sendKeys('Enter');
      await ctx.session.waitForText(READY, 30_000);
      await sleep(4000);
    },
  },
  'startup-auth-dialog': {
    selectAuth: false,
    ownStartup: true,
    async run(ctx) {
      await ctx.session.waitForText(/How would you like to authenticate/, 30_000);
      await sleep(3000);
      // "2. Use Gemini API Key" is preselected; the next dialog shows the key from the env.
      await ctx.session.sendKeys('Enter');
      await ctx.session.waitForText(/Enter Gemini API Key/, 15_000);
      await sleep(3000);
      await ctx.session.sendKeys('Enter');
      await ctx.session.waitForText(READY, 30_000);
      await sleep(4000);
    },
  },
  'error-default-settings': {
    maxAttempts: null,
    async run(ctx) {
      // Each attempt stays open a while so that the Escape lands on a request in flight.
      const plan: TurnPlanInput = { error: { status: 503 }, delayMs: 3000 };
      ctx.server.enqueue(...Array.from({ length: 12 }, () => plan));
      await submit(ctx, 'Say hello.');
      await sleep(40_000);
      const deadline = Date.now() + 60_000;
      while (
        !ctx.server.log().some((e) => e.outcome === 'pending' && Date.now() - e.receivedAt > 500)
      ) {
        if (Date.now() > deadline) throw new Error('no request in flight');
        await sleep(100);
      }
      await ctx.session.sendKeys(geminiCliAgent.interruptKey);
      await sleep(4000);
    },
  },
  'edit-approval': {
    async run(ctx) {
      ctx.server.enqueue(
        {
          text: 'I will write the file.',
          chunkDelayMs: 80,
          toolUse: {
            name: 'write_file',
            input: { file_path: join(ctx.cwd, 'notes.txt'), content: 'first note\n' },
          },
        },
        { text: 'Wrote notes.txt. Done.', chunkDelayMs: 80 },
      );
      await submit(ctx, 'Write a file named notes.txt.');
      await ctx.session.waitForText(/Apply this change/, 20_000);
      await sleep(8000);
      await ctx.session.sendKeys(...geminiCliAgent.approveKeys);
      await streamsEnded(ctx, 2);
      await sleep(3000);
    },
  },
  // Over half the window (the default compression threshold): the next prompt compresses the
  // history first (`ℹ Context compressed from 57% to 0%. …`; its requests get the default
  // reply), then is answered.
  'context-near-full': {
    outsideRepo: true,
    async run(ctx) {
      await longConversation(ctx, 600_000);
      await successAfter(ctx);
    },
  },
  // `Sending this message (…) might exceed the context window limit (6 tokens left). …`.
  'context-window-overflow': { ...fullWindow, run: overflowingPrompt },
  // The same, then `/compress` works and the next prompt is answered: the warning is history.
  'context-window-overflow-then-compress': {
    ...fullWindow,
    async run(ctx) {
      await overflowingPrompt(ctx);
      // The prompt not sent is back in the prompt box: Ctrl+C clears it.
      await ctx.session.sendKeys('C-c');
      await sleep(500);
      await compress(ctx, /Chat history compressed from/);
      await successAfter(ctx);
    },
  },
  // `/compress` near a full window, its summary request itself over the window (the API's 400):
  // `Failed to compress chat history: …`.
  'compress-context-length-exceeded': {
    outsideRepo: true,
    async run(ctx) {
      await longConversation(ctx, WINDOW - 6);
      ctx.server.enqueue({ match: 'any', ...overWindow(WINDOW + 120) });
      await compress(ctx, /Failed to compress chat history/);
    },
  },
  // The prompt itself is over the window: the API's 400 with its own words.
  'context-length-exceeded': {
    outsideRepo: true,
    ...errorScenario(400, overWindow(WINDOW + 151_424).error!.message),
  },
  'shortcuts-help': {
    async run(ctx) {
      await ctx.session.sendKeys('?');
      await sleep(3000);
      // Typing closes the help and goes into the prompt box.
      await normalTurn(ctx);
    },
  },
};

async function record(
  name: string,
  scenario: Scenario,
  size?: { cols: number; rows: number },
): Promise<void> {
  mkdirSync(fixtures, { recursive: true });
  // With the session record, the folders live outside this repository: the CLIs write their
  // working folder's paths and Git state into their records.
  const dir =
    name.startsWith('record-') || scenario.outsideRepo
      ? join(tmpdir(), 'pw-record', 'gemini_cli', name)
      : join(scratch, name);
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
      ...(scenario.maxAttempts !== undefined ? { maxAttempts: scenario.maxAttempts } : {}),
      ...(scenario.settings ? { settings: scenario.settings } : {}),
      ...(scenario.trusted !== undefined ? { trusted: scenario.trusted } : {}),
      ...(scenario.selectAuth !== undefined ? { selectAuth: scenario.selectAuth } : {}),
      ...(scenario.relaunch ? { relaunch: true } : {}),
    });
    session = await startAgentSession({
      socketName: uniqueSocketName('pw-gemini_cli-rec'),
      cwd: launch.cwd,
      env: launch.env,
      command: launch.command,
      cols: size?.cols ?? scenario.cols ?? 120,
      rows: size?.rows ?? scenario.rows ?? 40,
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
      // `record-<scenario>`: with the CLI's session record (docs/contracts.md §2).
      ...(!scenarios[name] && name.startsWith('record-')
        ? { sessionRecord: geminiCliSessionRecord }
        : {}),
    });
    if (!scenario.ownStartup) {
      // The prompt box is drawn before initialisation ends; keys sent before the banner can be lost.
      await session.waitForText(READY, 30_000);
      await session.waitForText(BANNER, 30_000);
      await sleep(1000);
    }
    await scenario.run({ server, session, recorder, cwd: launch.cwd });
  } finally {
    await recorder?.stop();
    await session?.close();
    await server.close();
  }
}

const args = process.argv.slice(2);
const sizeArg = args.find((a) => a.startsWith('--size='));
const sizeMatch = sizeArg ? /^--size=(\d+)x(\d+)$/.exec(sizeArg) : null;
if (sizeArg && !sizeMatch) throw new Error(`bad ${sizeArg}; expected --size=COLSxROWS`);
const size = sizeMatch ? { cols: Number(sizeMatch[1]), rows: Number(sizeMatch[2]) } : undefined;
const wanted = args.filter((a) => !a.startsWith('--'));
const names = wanted.length > 0 ? wanted : Object.keys(scenarios);
for (const name of names) {
  // `record-<scenario>` records the scenario with the session record, as record-<scenario>.jsonl.
  const scenario = scenarios[name] ?? scenarios[name.replace(/^record-/, '')];
  if (!scenario)
    throw new Error(`unknown scenario ${name}; known: ${Object.keys(scenarios).join(', ')}`);
  const t0 = Date.now();
  await record(name, scenario, size);
  console.log(`${name}: recorded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
