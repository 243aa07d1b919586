/**
 * Records the real Claude Code CLI against the fake model server, one fixture per scenario:
 * `test/fixtures/claude_code/<scenario>.jsonl` (screens) and `<scenario>.server.jsonl` (ground truth).
 *
 *   npx tsx test/e2e/record/claude_code.ts [--size COLSxROWS] [--out DIR] [scenario ...]
 *
 * `--size` overrides every selected scenario's terminal size (default 160x45, or the scenario's own).
 * `--out` writes the fixtures into DIR instead: a newer CLI version's recordings go into
 * `test/fixtures/claude_code/<version>/`, beside the older ones.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startRecorder, type Recorder } from '../../../src/observe/recorder.js';
import { claudeCodeSessionRecord } from '../../../src/profiles/claude_code/session-record.js';
import { claudeCodeFacts, prepareClaudeCode } from '../../../src/tooling/agents/claude_code.js';
import { anthropicProtocol } from '../../../src/tooling/model-server/anthropic.js';
import type { TurnPlanInput } from '../../../src/tooling/model-server/plan.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';

const FIXTURES = resolve('test/fixtures/claude_code');
const SCRATCH = resolve('.tmp/record/claude_code');
const DEFAULT_SIZE = { cols: 160, rows: 45 };
/**
 * Footer of an idle prompt: the shortcuts hint in manual mode; in auto mode the mode line
 * without "esc to interrupt" after it.
 */
const IDLE = /\? for shortcuts|auto mode on \(shift\+tab to cycle\)(?! · esc to interrupt)/;
const WORKING = /esc to interrupt/;

interface Ctx {
  server: FakeModelServer;
  session: AgentSession;
  recorder: Recorder;
  /** Types a prompt literally, records the input (`recorded`, default the text), submits it with Enter. */
  submit(text: string, recorded?: string): Promise<void>;
  /** Waits until `count` turn requests have ended on the server. */
  turnsEnded(count: number, timeoutMs?: number): Promise<void>;
  idle(timeoutMs?: number): Promise<string>;
}

interface Scenario {
  /** Terminal size; default 160x45. */
  size?: { cols: number; rows: number };
  maxRetries?: number;
  /** Written to settings; `null` writes none (the CLI's own default, auto mode). */
  permissionMode?: 'default' | 'auto' | null;
  /** False leaves out `hasSeenAutoDefaultNudge`, so the auto-mode dialog shows at start-up. */
  autoNudgeSeen?: boolean;
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

/** 90 numbered lines, one chunk each: far taller than any screen, streamed over ~4.5 s. */
const TALL_REPLY_LINES = Array.from(
  { length: 90 },
  (_, i) => `Line ${i + 1} of a tall answer that scrolls the prompt echo off the screen.\n`,
);

async function simpleTurn(ctx: Ctx, prompt: string, plan: TurnPlanInput, ended: number) {
  ctx.server.enqueue(plan);
  await ctx.submit(prompt);
  await ctx.turnsEnded(ended);
  await ctx.idle();
}

/**
 * A turn that calls a tool and then answers: when `approveAfterMs` is set, the permission
 * prompt is waited for, left that long, and approved with the operator's key.
 */
async function toolTurn(
  ctx: Ctx,
  t: { prompt: string; intro: string; toolUse: TurnPlanInput['toolUse']; done: string },
  approveAfterMs: number | null,
): Promise<void> {
  await ctx.idle();
  await sleep(1000);
  ctx.server.enqueue({ text: t.intro, toolUse: t.toolUse }, { text: t.done, chunkDelayMs: 100 });
  await ctx.submit(t.prompt);
  if (approveAfterMs !== null) {
    await ctx.session.waitForText(/Do you want to proceed\?/, 15_000);
    await sleep(approveAfterMs);
    await ctx.session.sendKeys(...claudeCodeFacts.approveKeys);
  }
  await ctx.turnsEnded(2);
  await ctx.idle();
  await sleep(3000);
}

const MARKER_TURN = {
  prompt: 'create the marker file',
  intro: 'I will create the marker file.',
  toolUse: claudeCodeFacts.permissionToolUse,
  done: 'Done: the marker file exists now.',
};

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

function normalTurnAt(cols: number, rows: number): Scenario {
  return { size: { cols, rows }, run: (ctx) => SCENARIOS['normal-turn']!.run(ctx) };
}

/** Submits a long reply and interrupts it once the CLI shows it working. */
async function interruptedTurn(ctx: Ctx, prompt: string, ended: number): Promise<void> {
  ctx.server.enqueue({ text: LONG_REPLY, chunkDelayMs: 400 });
  await ctx.submit(prompt);
  await ctx.session.waitForText(WORKING, 10_000);
  await sleep(4000);
  await ctx.session.sendKeys(...claudeCodeFacts.interruptKeys);
  await ctx.turnsEnded(ended);
  await ctx.idle();
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
  'size-80x24-normal-turn': normalTurnAt(80, 24),
  'size-200x50-normal-turn': normalTurnAt(200, 50),
  'size-250x60-normal-turn': normalTurnAt(250, 60),
  'size-80x24-interrupted': {
    size: { cols: 80, rows: 24 },
    run: (ctx) => SCENARIOS.interrupted!.run(ctx),
  },
  'size-250x60-interrupted': {
    size: { cols: 250, rows: 60 },
    run: (ctx) => SCENARIOS.interrupted!.run(ctx),
  },
  'size-80x24-permission-prompt': {
    size: { cols: 80, rows: 24 },
    run: (ctx) => SCENARIOS['permission-prompt']!.run(ctx),
  },
  'size-250x60-permission-prompt': {
    size: { cols: 250, rows: 60 },
    run: (ctx) => SCENARIOS['permission-prompt']!.run(ctx),
  },
  'long-reply-scrolls': {
    async run(ctx) {
      await ctx.idle();
      await sleep(1000);
      const plan = { chunks: TALL_REPLY_LINES, chunkDelayMs: 50 };
      await simpleTurn(ctx, 'write ninety lines', plan, 1);
      await sleep(3000);
    },
  },
  'size-80x24-long-reply-scrolls': {
    size: { cols: 80, rows: 24 },
    run: (ctx) => SCENARIOS['long-reply-scrolls']!.run(ctx),
  },
  // A long conversation: the first reply reports 985,000 input tokens (the default model has a 1,000,000-token window).
  'context-near-full': {
    async run(ctx) {
      await ctx.idle();
      await sleep(1000);
      const full = { text: REPLY, chunkDelayMs: 100, usage: { inputTokens: 985_000 } };
      await simpleTurn(ctx, 'read the whole project', full, 1);
      await sleep(3000);
      await simpleTurn(ctx, 'now summarise it', { text: REPLY, chunkDelayMs: 100 }, 2);
      await sleep(3000);
    },
  },
  'error-then-success': {
    async run(ctx) {
      await ctx.idle();
      await sleep(1000);
      await simpleTurn(ctx, 'trigger an error please', { error: { status: 500 } }, 1);
      await sleep(2000);
      await simpleTurn(ctx, 'try again', { text: REPLY, chunkDelayMs: 100 }, 2);
      await sleep(3000);
    },
  },
  'interrupted-then-success': {
    async run(ctx) {
      await ctx.idle();
      await sleep(1000);
      await interruptedTurn(ctx, 'write a long answer', 1);
      await sleep(2000);
      await simpleTurn(ctx, 'now a short one', { text: REPLY, chunkDelayMs: 100 }, 2);
      await sleep(3000);
    },
  },
  'multiline-prompt': {
    async run(ctx) {
      await ctx.idle();
      await sleep(1000);
      ctx.server.enqueue({ text: 'Three lines received, thank you.', chunkDelayMs: 100 });
      const lines = ['first line of the prompt', 'second line of the prompt', 'third line'];
      // A backslash before Enter inserts a newline instead of submitting.
      for (const line of lines.slice(0, -1)) {
        await ctx.session.sendText(`${line}\\`);
        await sleep(200);
        await ctx.session.sendKeys('Enter');
        await sleep(300);
      }
      await ctx.submit(lines[lines.length - 1]!, lines.join('\n'));
      await ctx.turnsEnded(1);
      await ctx.idle();
      await sleep(3000);
    },
  },
  'draft-over-old-marker': {
    async run(ctx) {
      await ctx.idle();
      await sleep(1000);
      await interruptedTurn(ctx, 'write a long answer', 1);
      await sleep(2000);
      // Typed, never submitted: no input line.
      await ctx.session.sendText('a draft I am still thinking about');
      await sleep(4000);
    },
  },
  'startup-auto-mode-dialog': {
    autoNudgeSeen: false,
    async run(ctx) {
      await ctx.session.waitForText(
        /Make auto mode your default/,
        claudeCodeFacts.startupTimeoutMs,
      );
      await sleep(3000);
      await ctx.session.sendKeys(...claudeCodeFacts.autoModeKeys);
      await ctx.idle();
      await sleep(3000);
    },
  },
  'auto-mode-tool-run': {
    permissionMode: null,
    run: (ctx) => toolTurn(ctx, MARKER_TURN, null),
  },
  'tool-output-long': {
    run: (ctx) =>
      toolTurn(
        ctx,
        {
          prompt: 'print three hundred lines',
          intro: 'I will print the lines.',
          toolUse: claudeCodeFacts.longOutputToolUse,
          done: 'Done: that was 300 lines of output.',
        },
        2000,
      ),
  },
  'error-500': errorScenario(500),
  'error-529-overloaded': errorScenario(529),
  'error-429-rate-limit': errorScenario(429),
  'permission-prompt': {
    // The prompt is left for 10 s before the operator approves it.
    run: (ctx) => toolTurn(ctx, MARKER_TURN, 10_000),
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

async function record(
  name: string,
  scenario: Scenario,
  sizeOverride: { cols: number; rows: number } | null,
  recordPieces: boolean,
  outDir: string,
): Promise<void> {
  const { cols, rows } = sizeOverride ?? scenario.size ?? DEFAULT_SIZE;
  // With the session record, the folders live outside this repository: the CLIs write their
  // working folder's paths and Git state into their records.
  const scratch = recordPieces
    ? join(tmpdir(), 'pw-record', 'claude_code', name)
    : join(SCRATCH, name);
  rmSync(scratch, { recursive: true, force: true });
  const file = join(outDir, `${name}.jsonl`);
  const serverLog = join(outDir, `${name}.server.jsonl`);
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
      permissionMode: scenario.permissionMode === undefined ? 'default' : scenario.permissionMode,
      autoNudgeSeen: scenario.autoNudgeSeen ?? true,
    });
    const command = scenario.viaShell
      ? ['bash', '--norc', '-c', '"$0"; exec bash --norc -i', ...launch.command]
      : launch.command;
    const launchedAt = Date.now();
    session = await startAgentSession({
      socketName: uniqueSocketName('pw-claude_code-rec'),
      cols,
      rows,
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
      // `record-<scenario>`: with the CLI's session record (docs/contracts.md §2).
      ...(recordPieces ? { sessionRecord: claudeCodeSessionRecord } : {}),
    });
    const s = session;
    const r = recorder;
    let startupMs: number | null = null;
    const ctx: Ctx = {
      server,
      session: s,
      recorder: r,
      async submit(text, recorded = text) {
        await s.sendText(text);
        await sleep(300);
        r.input(recorded);
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
    console.log(`${name}: ok at ${cols}x${rows} (start-up to idle prompt ${startupMs} ms)`);
  } finally {
    await recorder?.stop();
    await session?.close();
    await server.close();
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  let size: { cols: number; rows: number } | null = null;
  const at = args.indexOf('--size');
  if (at >= 0) {
    const m = /^(\d+)x(\d+)$/.exec(args[at + 1] ?? '');
    if (!m) throw new Error('--size wants COLSxROWS, e.g. 80x24');
    size = { cols: Number(m[1]), rows: Number(m[2]) };
    args.splice(at, 2);
  }
  let outDir = FIXTURES;
  const outAt = args.indexOf('--out');
  if (outAt >= 0) {
    const dir = args[outAt + 1];
    if (!dir || dir.startsWith('--'))
      throw new Error('--out wants a folder, e.g. test/fixtures/claude_code/2.1.332');
    outDir = resolve(dir);
    args.splice(outAt, 2);
  }
  const names = args;
  const selected = names.length > 0 ? names : Object.keys(SCENARIOS);
  // `record-<scenario>` records the scenario with the session record, as record-<scenario>.jsonl.
  const scenarioOf = (n: string) => SCENARIOS[n] ?? SCENARIOS[n.replace(/^record-/, '')];
  const unknown = selected.filter((n) => !scenarioOf(n));
  if (unknown.length > 0) throw new Error(`unknown scenario(s): ${unknown.join(', ')}`);
  mkdirSync(outDir, { recursive: true });
  for (const name of selected) {
    const pieces = !SCENARIOS[name] && name.startsWith('record-');
    await record(name, scenarioOf(name)!, size, pieces, outDir);
  }
}

await main();
