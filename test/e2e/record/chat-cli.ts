/**
 * Records a real OpenAI-compatible agent CLI against the fake Chat Completions server, one
 * fixture per scenario: `test/fixtures/<tool>/<scenario>.jsonl` (screens) and
 * `<scenario>.server.jsonl` (the server's request log, the ground truth).
 *
 *   npx tsx test/e2e/record/chat-cli.ts <tool> [--out DIR] [scenario ...]
 *
 * `--out DIR` writes the fixtures into DIR instead: a newer version of the CLI is recorded into
 * `test/fixtures/<tool>/<version>/`, beside the recordings of the version before it.
 *
 * The tool's facts (how to configure, start, interrupt, approve and quit it) are in
 * `src/tooling/agents/<tool>.ts`; the scenarios are the same for every CLI, each skipped where the
 * CLI cannot show it (no permission prompts, say).
 */
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startRecorder, type Recorder } from '../../../src/observe/recorder.js';
import type { SessionRecordReader } from '../../../src/profiles/session-record.js';
import { sessionRecordReader } from '../../../src/profiles/session-records.js';
import { CHAT_AGENTS } from '../../../src/tooling/agents/index.js';
import type { ChatAgent, KeyStep } from '../../../src/tooling/agents/chat-agent.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import type { TurnPlanInput } from '../../../src/tooling/model-server/plan.js';
import type { Protocol } from '../../../src/tooling/model-server/server.js';
import {
  startFakeModelServer,
  type FakeModelServer,
  type RequestLogEntry,
} from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';

const COLS = 160;
const ROWS = 45;

interface Ctx {
  agent: ChatAgent;
  server: FakeModelServer;
  session: AgentSession;
  recorder: Recorder;
  submit(text: string): Promise<void>;
  /** Waits until `count` turn requests have ended on the server. */
  turnsEnded(count: number, timeoutMs?: number): Promise<void>;
  /** Waits until the turn request number `count` has started streaming. */
  streaming(count: number): Promise<void>;
  /** Waits for the idle screen, unchanged for 1.5 s. */
  idle(timeoutMs?: number): Promise<string>;
  keys(steps: readonly KeyStep[]): Promise<void>;
}

interface Scenario {
  cols?: number;
  rows?: number;
  retries?: 'capped' | 'default';
  fresh?: boolean;
  viaShell?: boolean;
  remainOnExit?: boolean;
  /** Extra environment for the CLI, on top of its launch environment. */
  env?: Record<string, string>;
  /** Extra arguments for the CLI's command line. */
  args?: string[];
  /** False when the CLI cannot show this scenario. */
  applies?(agent: ChatAgent): boolean;
  run(ctx: Ctx): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isTurn = (e: RequestLogEntry) => e.streaming;

export const REPLY =
  'Hello! This reply comes from the fake model server. It has a few sentences so the transcript changes visibly while it streams.';
export const LONG_REPLY = Array.from(
  { length: 40 },
  (_, i) => `Sentence ${i + 1} of a long answer that takes a while to stream.`,
).join(' ');

/** The provider's refusal of a request over the model's window (OpenAI's words and code). */
const CONTEXT_LENGTH_EXCEEDED: TurnPlanInput = {
  match: 'any',
  error: {
    status: 400,
    code: 'context_length_exceeded',
    message:
      "This model's maximum context length is 131072 tokens. However, your messages resulted in 140000 tokens. Please reduce the length of the messages.",
  },
};

/**
 * A first reply that reports `inputTokens` of input, then a prompt; `streams` turn requests in
 * all (the second prompt's is missing when the CLI keeps it).
 */
async function nearFullThenPrompt(ctx: Ctx, inputTokens: number, streams: number) {
  await ctx.idle();
  const full = { text: REPLY, chunkDelayMs: 100, usage: { inputTokens } };
  await simpleTurn(ctx, 'read the whole project', full, 1);
  await sleep(3000);
  ctx.server.enqueue({ text: REPLY, chunkDelayMs: 100 });
  await ctx.submit('now summarise it');
  if (streams > 1) await ctx.turnsEnded(streams, 60_000);
  else await ctx.session.waitForText(/✕ \[API Error/, 60_000);
  await ctx.idle(60_000);
  await sleep(3000);
}

/** TMUX as tmux sets it in its panes (socket path, server pid, session index). */
const TMUX_ENV = '/tmp/tmux-1000/default,4242,0';
/** Text streamed before a tool call, slowly enough that the working line is seen. */
const SLOW_PREAMBLE = 'Let me think about where that file should go before I create it.';

/** A reply that quotes interface text of the CLIs (their working, done, error and dialog lines). */
export const QUOTED_CHROME = [
  'Here is what the screens of these tools show, quoted:\n\n',
  'esc interrupt   esc to cancel   esc to interrupt   Working...\n',
  '▣  Build · fake-model · interrupted\n',
  'Error: Retry failed after 3 attempts\n',
  '△ Permission required   Allow once   Allow always   Reject\n',
  'Do you want to run this command?  ❯ 1. Yes\n',
  'Operation cancelled by user   Request cancelled.   Operation aborted\n',
  "Allow execution of: 'touch'?  Waiting for user confirmation...\n",
  'Approve tool call?  [y] Approve   [n] Deny\n',
  'Do you want to proceed with this operation?\n',
  '✗ Failed to get response from the AI model; retried 5 times\n',
  '\nThose were quotes, not the state of this session.\n',
  'The turn goes on for a few more lines,\n',
  'so that the quoted lines sit in the middle of the reply\n',
  'and the live edge of the screen shows only this reply,\n',
  'its end, and the idle prompt.\n',
  'That is all.',
];

async function simpleTurn(ctx: Ctx, prompt: string, plan: TurnPlanInput, ended: number) {
  ctx.server.enqueue(plan);
  await ctx.submit(prompt);
  await ctx.turnsEnded(ended);
  await ctx.idle();
}

async function interruptedTurn(ctx: Ctx, prompt: string, ended: number) {
  ctx.server.enqueue({ text: LONG_REPLY, chunkDelayMs: 250 });
  await ctx.submit(prompt);
  await ctx.streaming(ended);
  await sleep(4000);
  await ctx.keys(ctx.agent.interrupt);
  await ctx.turnsEnded(ended);
  await ctx.idle();
}

/**
 * Errors on every request of a turn. Where the CLI gives up, the turn ends in its final error;
 * where it retries without end, the user interrupts after a while.
 */
function errorScenario(
  status: number,
  retries: 'capped' | 'default',
  retried = true,
  /** The user interrupts while the CLI still retries. */
  interrupt = false,
  /** How long the server takes to answer each request with the error, ms. */
  delayMs = 0,
): Scenario {
  return {
    retries,
    async run(ctx) {
      // A status no client retries (400) ends the turn at once.
      const givesUp = !retried || ctx.agent.givesUp[retries];
      ctx.server.enqueue(...Array.from({ length: 200 }, () => ({ error: { status }, delayMs })));
      await ctx.submit('trigger an error please');
      await ctx.turnsEnded(1, 60_000);
      if (givesUp && !interrupt) {
        await ctx.idle(240_000);
      } else {
        await ctx.turnsEnded(3, 120_000);
        await sleep(5000);
        await ctx.keys(ctx.agent.interrupt);
        await ctx.idle(60_000);
      }
      await sleep(3000);
    },
  };
}

function permissionScenario(answer: 'approve' | 'deny'): Scenario {
  return {
    applies: (a) => a.permission !== null,
    async run(ctx) {
      const p = ctx.agent.permission!;
      const file = answer === 'approve' ? 'approved.txt' : 'denied.txt';
      ctx.server.enqueue(
        { toolUse: p.toolUse(file) },
        {
          text:
            answer === 'approve'
              ? `Created ${file} after your approval.`
              : 'Understood, I did not run it.',
          chunkDelayMs: 80,
        },
      );
      await ctx.submit(`create ${file}`);
      await ctx.session.waitForText(p.dialog, 60_000);
      await sleep(8000);
      await ctx.keys(answer === 'approve' ? p.approve : p.deny);
      await ctx.turnsEnded(2, 60_000).catch(() => undefined);
      await ctx.idle(60_000);
      await sleep(3000);
    },
  };
}

/**
 * Allow always: the dialog's middle option, then the confirmation it opens, then a second turn
 * asking for the very same command, which the CLI runs without asking again.
 */
const permissionAllowAlways: Scenario = {
  applies: (a) => a.permission?.approveAlways !== undefined,
  async run(ctx) {
    const p = ctx.agent.permission!;
    const file = 'always.txt';
    ctx.server.enqueue(
      { toolUse: p.toolUse(file) },
      { text: `Created ${file}, allowed always.`, chunkDelayMs: 80 },
    );
    await ctx.submit(`create ${file}`);
    await ctx.session.waitForText(p.dialog, 60_000);
    await sleep(8000);
    await ctx.keys(p.approveAlways!);
    await ctx.turnsEnded(2, 60_000).catch(() => undefined);
    await ctx.idle(60_000);
    await sleep(2000);
    ctx.server.enqueue(
      { toolUse: p.toolUse(file) },
      { text: `Touched ${file} again, unasked.`, chunkDelayMs: 80 },
    );
    await ctx.submit(`touch ${file} again`);
    await ctx.turnsEnded(4, 60_000);
    await ctx.idle(60_000);
    await sleep(3000);
  },
};

/** OpenAI's refusal of a prompt that does not fit the model's window (of 100,000 tokens). */
const REFUSED_TOO_LONG: TurnPlanInput = {
  error: {
    status: 400,
    code: 'context_length_exceeded',
    message:
      "This model's maximum context length is 100000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
  },
};

/**
 * A long conversation: the first reply reports `share` of the window the CLI assumes as its
 * input usage, then a second prompt (a CLI that compacts near a full window does so first, or
 * beside it). The second prompt's request gets the reply; the requests after it (a compaction's)
 * get `after`, or replies when it is not given. Which of the two requests comes first (the
 * prompt's or a compaction's beside it) is the CLI's race: `second` goes to the first.
 */
function longConversation(
  share: number,
  after?: TurnPlanInput,
  second: TurnPlanInput = { text: REPLY, chunkDelayMs: 100 },
): Scenario {
  return {
    async run(ctx) {
      // A CLI that assumes no window (grok-cli) is told of a million input tokens.
      const inputTokens = Math.round((ctx.agent.contextWindow ?? 1_000_000) * share);
      const first = { text: REPLY, chunkDelayMs: 100, usage: { inputTokens } };
      await simpleTurn(ctx, 'read the whole project', first, 1);
      await sleep(3000);
      const next = after ?? { text: REPLY, chunkDelayMs: 100 };
      ctx.server.enqueue(second, ...Array.from({ length: 8 }, () => next));
      await ctx.submit('now summarise it');
      await ctx.turnsEnded(2, 90_000);
      await ctx.idle(120_000);
      await sleep(3000);
    },
  };
}

/** Every request of a prompt is refused as too long for the window (the CLI may retry). */
async function contextLengthExceeded(ctx: Ctx): Promise<void> {
  ctx.server.enqueue(...Array.from({ length: 30 }, () => REFUSED_TOO_LONG));
  await ctx.submit('read every file in the project');
  await ctx.turnsEnded(1, 60_000);
  await ctx.idle(240_000);
  await sleep(3000);
}

/** The CLIs that track their context window and compact a long conversation themselves. */
const COMPACTING = new Set(['opencode', 'kilo', 'pi']);
const compacts = (a: ChatAgent) => COMPACTING.has(a.tool);

/**
 * An input usage near the 128,000-token window the offline set-ups declare: past opencode's and
 * Kilo's limit (the window less the 4,096 output tokens) and pi's (the window less its 16,384
 * reserved tokens).
 */
const NEAR_FULL = 125_000;

/** The provider's answer to a request that does not fit a 128,000-token window (OpenAI's words). */
export const WINDOW_REFUSAL = {
  status: 400,
  type: 'invalid_request_error',
  code: 'context_length_exceeded',
  message:
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
} as const;

/** Submits a prompt and waits for one more turn request to end, then for the idle screen. */
async function nextTurn(ctx: Ctx, prompt: string, plan: TurnPlanInput, timeoutMs = 90_000) {
  const before = ctx.server.log().filter(isTurn).length;
  ctx.server.enqueue(plan);
  await ctx.submit(prompt);
  await ctx.turnsEnded(before + 1, timeoutMs);
}

/** Waits until the server has been quiet (no request running or new) for `ms`, then for idle. */
async function settled(ctx: Ctx, ms = 4000, timeoutMs = 180_000) {
  const deadline = Date.now() + timeoutMs;
  let seen = -1;
  let since = Date.now();
  for (;;) {
    const log = ctx.server.log();
    const open = log.some((e) => e.endedAt === null);
    if (log.length !== seen || open) {
      seen = log.length;
      since = Date.now();
    } else if (Date.now() - since >= ms) break;
    if (Date.now() > deadline) throw new Error('the server never went quiet');
    await sleep(200);
  }
  await ctx.idle(timeoutMs);
}

/**
 * A first turn whose reply reports a near-full window: the CLI compacts after it (or before the
 * next prompt). `compaction` is what the compaction's own request gets (queued for any request
 * once the turn streams, so that a side request at the start does not take it).
 */
async function nearFullTurn(ctx: Ctx, compaction: TurnPlanInput[]) {
  await ctx.idle(ctx.agent.startupTimeoutMs);
  await sleep(1000);
  ctx.server.enqueue({ text: REPLY, chunkDelayMs: 150, usage: { inputTokens: NEAR_FULL } });
  await ctx.submit('read the whole project');
  await ctx.streaming(1);
  await sleep(1500);
  ctx.server.enqueue(...compaction);
  await ctx.turnsEnded(1);
  await settled(ctx);
}

/**
 * Long conversations as Qwen Code meets them (it takes 200,000 tokens as the window of a model it
 * does not know).
 */
const QWEN_CONTEXT: Record<string, Scenario> = {
  // A long conversation (Qwen Code takes 200,000 tokens as the window of a model it does not
  // know): the first reply reports 170,000 input tokens, over the point where the CLI compacts
  // before the next prompt; that compaction gets the default reply and the prompt is answered.
  'context-near-full': {
    applies: (a) => a.tool === 'qwen_code',
    run: (ctx) => nearFullThenPrompt(ctx, 170_000, 2),
  },
  // 180,000: over the hard limit. The compaction works, but the CLI still counts the prompt
  // over that limit and does not send it.
  'context-hard-limit': {
    applies: (a) => a.tool === 'qwen_code',
    run: (ctx) => nearFullThenPrompt(ctx, 180_000, 1),
  },
  // Every request over the model's window (the provider's 400 `context_length_exceeded`), the
  // CLI's own compaction request too.
  'context-length-exceeded': {
    applies: (a) => a.tool === 'qwen_code',
    async run(ctx) {
      ctx.server.enqueue(...Array.from({ length: 20 }, () => CONTEXT_LENGTH_EXCEEDED));
      await ctx.submit('read every file in the project');
      await ctx.turnsEnded(1, 60_000);
      await ctx.idle(120_000);
      await sleep(3000);
    },
  },
  // The same, then the next prompt is answered: the error is history.
  'context-length-exceeded-then-success': {
    applies: (a) => a.tool === 'qwen_code',
    async run(ctx) {
      await QWEN_CONTEXT['context-length-exceeded']!.run(ctx);
      ctx.server.dropPlans();
      const before = ctx.server.log().filter(isTurn).length;
      await simpleTurn(ctx, 'try again', { text: REPLY, chunkDelayMs: 100 }, before + 1);
      await sleep(3000);
    },
  },
  // A first turn, then a request over the window: the CLI compacts the history (its request
  // gets the default reply) and sends the prompt again.
  'context-length-recovered': {
    applies: (a) => a.tool === 'qwen_code',
    async run(ctx) {
      await ctx.idle();
      await simpleTurn(ctx, 'say hello', { text: REPLY, chunkDelayMs: 100 }, 1);
      await sleep(2000);
      ctx.server.enqueue(CONTEXT_LENGTH_EXCEEDED, { text: REPLY, chunkDelayMs: 100 });
      await ctx.submit('read every file in the project');
      await ctx.turnsEnded(3, 60_000);
      await ctx.idle(60_000);
      await sleep(3000);
    },
  },
};

/**
 * Long conversations as the other CLIs meet them: a usage reported near or past the window the
 * CLI assumes, and the provider's refusal of a prompt as too long.
 */
const WINDOW_CONTEXT: Record<string, Scenario> = {
  // Near a full window (95% of it used): a CLI that tracks its usage warns, or compacts.
  'context-near-full': longConversation(0.95),
  // Every request after the long turn is refused (the prompt's and a compaction's alike).
  'context-all-refused': longConversation(0.95, REFUSED_TOO_LONG, REFUSED_TOO_LONG),
  // Past the window (110% of it used): what the CLI draws when the usage overflows it.
  'context-over-full': longConversation(1.1),
  // The provider refuses the prompt as too long (OpenAI's 400 `context_length_exceeded`).
  'context-length-exceeded': { run: contextLengthExceeded },
  // The same refusal, then a prompt that is answered: the refusal is history.
  'context-length-exceeded-then-success': {
    async run(ctx) {
      await contextLengthExceeded(ctx);
      ctx.server.dropPlans();
      const ended = ctx.server.log().filter(isTurn).length + 1;
      await simpleTurn(ctx, 'say hello', { text: REPLY, chunkDelayMs: 100 }, ended);
      await sleep(3000);
    },
  },
};

/**
 * Long conversations as the CLIs that compact by themselves meet them (opencode, Kilo, pi): the
 * first reply reports a near-full window, so the CLI compacts; its compaction request works, or
 * fails.
 */
const COMPACTING_CONTEXT: Record<string, Scenario> = {
  'context-near-full': {
    applies: compacts,
    async run(ctx) {
      await nearFullTurn(ctx, []);
      await nextTurn(ctx, 'now summarise it', { text: REPLY, chunkDelayMs: 100 });
      await settled(ctx);
      await sleep(3000);
    },
  },
  'compact-context-length-exceeded': {
    applies: compacts,
    async run(ctx) {
      await nearFullTurn(ctx, [{ match: 'any', error: WINDOW_REFUSAL }]);
      await sleep(3000);
    },
  },
  'compact-error-500': {
    applies: compacts,
    async run(ctx) {
      const failed = { match: 'any', error: { status: 500 } } as const;
      await nearFullTurn(
        ctx,
        Array.from({ length: 8 }, () => failed),
      );
      await sleep(3000);
    },
  },
  // The next prompt compacts again, and works: the failure is history.
  'compact-error-then-success': {
    applies: compacts,
    async run(ctx) {
      await nearFullTurn(ctx, [{ match: 'any', error: WINDOW_REFUSAL }]);
      await sleep(2000);
      await nextTurn(ctx, 'try again', { text: REPLY, chunkDelayMs: 100 });
      await settled(ctx);
      await sleep(3000);
    },
  },
  // A prompt that itself does not fit: the provider refuses it, the CLI compacts to recover, and
  // that compaction's request is refused the same way.
  'context-length-exceeded': {
    applies: compacts,
    async run(ctx) {
      await simpleTurn(ctx, 'say hello', { text: REPLY, chunkDelayMs: 100 }, 1);
      await sleep(1500);
      ctx.server.enqueue({ error: WINDOW_REFUSAL }, { match: 'any', error: WINDOW_REFUSAL });
      await ctx.submit('paste the whole log');
      await ctx.turnsEnded(2);
      await settled(ctx);
      await sleep(3000);
    },
  },
};

/**
 * Scenario sets joined by name. Where sets name the same scenario (each CLI family meets a long
 * conversation its own way), the first that applies to a CLI records it.
 */
function joined(...sets: ReadonlyArray<Record<string, Scenario>>): Record<string, Scenario> {
  const names = [...new Set(sets.flatMap((set) => Object.keys(set)))];
  return Object.fromEntries(
    names.map((name) => {
      const choices = sets.flatMap((set) => (set[name] ? [set[name]] : []));
      if (choices.length === 1) return [name, choices[0]!];
      const pick = (a: ChatAgent) => choices.find((c) => c.applies?.(a) ?? true);
      const scenario: Scenario = {
        applies: (a) => pick(a) !== undefined,
        run: (ctx) => pick(ctx.agent)!.run(ctx),
      };
      return [name, scenario];
    }),
  );
}

export const SCENARIOS: Record<string, Scenario> = {
  startup: {
    async run(ctx) {
      await ctx.idle(ctx.agent.startupTimeoutMs);
      await sleep(3000);
    },
  },
  'startup-dialogs': {
    fresh: true,
    applies: (a) => (a.startupDialogs ?? []).length > 0,
    async run(ctx) {
      for (const d of ctx.agent.startupDialogs!) {
        await ctx.session.waitForText(d.text, ctx.agent.startupTimeoutMs);
        await sleep(4000);
        await ctx.keys(d.keys);
      }
      await ctx.idle(ctx.agent.startupTimeoutMs);
      await sleep(3000);
    },
  },
  'normal-turn': {
    async run(ctx) {
      await simpleTurn(ctx, 'say hello', { text: REPLY, chunkDelayMs: 150 }, 1);
      await sleep(3000);
    },
  },
  'long-turn-pause': {
    async run(ctx) {
      const plan = { text: REPLY, chunkDelayMs: 150, pauses: [{ afterChunk: 6, ms: 6000 }] };
      await simpleTurn(ctx, 'answer with a pause', plan, 1);
      await sleep(3000);
    },
  },
  'two-turns': {
    async run(ctx) {
      await simpleTurn(ctx, 'first question', { text: REPLY, chunkDelayMs: 100 }, 1);
      await sleep(2000);
      const second = 'Second answer: shorter, but still streamed in several chunks.';
      await simpleTurn(ctx, 'second question', { text: second, chunkDelayMs: 100 }, 2);
      await sleep(3000);
    },
  },
  interrupted: {
    async run(ctx) {
      await interruptedTurn(ctx, 'write a long answer', 1);
      await sleep(3000);
    },
  },
  'error-500': errorScenario(500, 'capped'),
  'error-429-rate-limit': errorScenario(429, 'capped'),
  'error-500-default-retries': errorScenario(500, 'default'),
  // A request the provider refuses outright (400): nothing to retry.
  'error-400': errorScenario(400, 'capped', false),
  // The server takes 1.5 s to refuse, so the CLI shows the turn working before the error (Qwen
  // Code draws a quick 400 within one poll of the submit: no frame shows the turn).
  'error-400-slow': {
    ...errorScenario(400, 'capped', false, false, 1500),
    applies: (a) => a.tool === 'qwen_code',
  },
  // Escape while the CLI waits to retry a failed request.
  'retry-interrupted': errorScenario(500, 'default', true, true),
  'permission-approved': permissionScenario('approve'),
  'permission-denied': permissionScenario('deny'),
  'permission-allow-always': permissionAllowAlways,
  'quoted-chrome': {
    async run(ctx) {
      await simpleTurn(ctx, 'quote some screens', { chunks: QUOTED_CHROME, chunkDelayMs: 150 }, 1);
      await sleep(3000);
    },
  },
  hang: {
    async run(ctx) {
      ctx.server.enqueue({ hang: true });
      await ctx.submit('this one never finishes');
      await ctx.streaming(1);
      await sleep(15_000);
      await ctx.keys(ctx.agent.interrupt);
      await ctx.idle(60_000);
      await sleep(3000);
    },
  },
  'size-80x24-normal-turn': {
    cols: 80,
    rows: 24,
    async run(ctx) {
      await simpleTurn(ctx, 'say hello', { text: REPLY, chunkDelayMs: 150 }, 1);
      await sleep(3000);
    },
  },
  'size-250x60-normal-turn': {
    cols: 250,
    rows: 60,
    async run(ctx) {
      await simpleTurn(ctx, 'say hello', { text: REPLY, chunkDelayMs: 150 }, 1);
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
  'size-250x60-interrupted': {
    cols: 250,
    rows: 60,
    async run(ctx) {
      await interruptedTurn(ctx, 'write a long answer', 1);
      await sleep(3000);
    },
  },
  'size-80x24-permission-approved': { ...permissionScenario('approve'), cols: 80, rows: 24 },
  'size-250x60-permission-approved': { ...permissionScenario('approve'), cols: 250, rows: 60 },
  'size-80x24-allow-always': { ...permissionAllowAlways, cols: 80, rows: 24 },
  // A pane a user opens in tmux has TMUX set; the recordings above run under `env -i`
  // without it. Qwen Code draws another spinner there (docs/spinners.md).
  'tmux-env-slow-turn': {
    env: { TMUX: TMUX_ENV },
    async run(ctx) {
      await simpleTurn(ctx, 'answer slowly', { text: REPLY, chunkDelayMs: 600 }, 1);
      await sleep(3000);
    },
  },
  'tmux-env-slow-turn-then-permission': {
    env: { TMUX: TMUX_ENV },
    applies: (a) => a.permission !== null,
    async run(ctx) {
      const p = ctx.agent.permission!;
      ctx.server.enqueue(
        { text: SLOW_PREAMBLE, chunkDelayMs: 600, toolUse: p.toolUse('approved.txt') },
        { text: 'Created approved.txt after your approval.', chunkDelayMs: 600 },
      );
      await ctx.submit('think, then create approved.txt');
      await ctx.session.waitForText(p.dialog, 90_000);
      await sleep(6000);
      await ctx.keys(p.approve);
      await ctx.turnsEnded(2, 90_000);
      await ctx.idle(60_000);
      await sleep(3000);
    },
  },
  // Screen-reader mode: the word `responding` where the glyph stands (docs/spinners.md).
  'screen-reader-slow-turn-then-permission': {
    args: ['--screen-reader'],
    applies: (a) => a.tool === 'qwen_code',
    run: (ctx) => SCENARIOS['tmux-env-slow-turn-then-permission']!.run(ctx),
  },
  'size-80x24-tmux-env-slow-turn': {
    cols: 80,
    rows: 24,
    env: { TMUX: TMUX_ENV },
    async run(ctx) {
      await simpleTurn(ctx, 'answer slowly', { text: REPLY, chunkDelayMs: 600 }, 1);
      await sleep(3000);
    },
  },
  ...joined(QWEN_CONTEXT, COMPACTING_CONTEXT, WINDOW_CONTEXT),
  'cli-exit': {
    viaShell: true,
    async run(ctx) {
      await simpleTurn(ctx, 'say hello', { text: REPLY, chunkDelayMs: 60 }, 1);
      await sleep(1500);
      await ctx.keys(ctx.agent.exit);
      await ctx.session.waitForText(/^\$ $/m, 30_000).catch(() => undefined);
      await sleep(4000);
    },
  },
  'cli-killed': {
    remainOnExit: true,
    async run(ctx) {
      await simpleTurn(ctx, 'say hello', { text: REPLY, chunkDelayMs: 60 }, 1);
      await sleep(1500);
      for (const pid of await ctx.session.waitForProcess(ctx.agent.processNames)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await sleep(5000);
    },
  },
};

// The same scenarios with TMUX set, where a false success costs most: a pause in the stream,
// errors being retried, a hang, an interrupt.
for (const name of ['long-turn-pause', 'error-500', 'hang', 'interrupted']) {
  SCENARIOS[`tmux-env-${name}`] = {
    ...SCENARIOS[name]!,
    env: { TMUX: TMUX_ENV },
    applies: (a) => a.tool === 'qwen_code',
  };
}

// Screen-reader mode (`--screen-reader`): the turns whose end must be read from that view.
for (const name of ['two-turns', 'interrupted', 'error-500', 'hang']) {
  SCENARIOS[`screen-reader-${name}`] = {
    ...SCENARIOS[name]!,
    args: ['--screen-reader'],
    applies: (a) => a.tool === 'qwen_code',
  };
}

SCENARIOS['size-80x24-screen-reader-two-turns'] = {
  ...SCENARIOS['screen-reader-two-turns']!,
  cols: 80,
  rows: 24,
};

/** The default set, in recording order (default retries only where the CLI has a setting). */
function defaultScenarios(agent: ChatAgent): string[] {
  return Object.keys(SCENARIOS).filter((name) => {
    if (name === 'error-500-default-retries') return agent.retrySetting;
    return SCENARIOS[name]!.applies?.(agent) ?? true;
  });
}

async function record(
  agent: ChatAgent,
  name: string,
  scenario: Scenario,
  fixtures: string,
): Promise<void> {
  // With the session record, the folders live outside this repository: the CLIs write their
  // working folder's paths and Git state into their records.
  const scratch = withRecord(name)
    ? join(tmpdir(), 'pw-record', agent.tool, name)
    : resolve('.tmp/record', agent.tool, name);
  rmSync(scratch, { recursive: true, force: true });
  rmSync(join(tmpdir(), 'pw-clis-rec', agent.tool, name), { recursive: true, force: true });
  mkdirSync(fixtures, { recursive: true });
  const serverLog = join(fixtures, `${name}.server.jsonl`);
  writeFileSync(serverLog, '');
  // With PW_RECORD_BODIES set, every request body is kept in the scratch folder to inspect.
  const bodies = process.env.PW_RECORD_BODIES ? join(scratch, 'bodies.jsonl') : null;
  const protocol: Protocol = bodies
    ? {
        ...chatCompletionsProtocol,
        handle: (c) => {
          appendFileSync(bodies, JSON.stringify({ path: c.url.pathname, body: c.body }) + '\n');
          return chatCompletionsProtocol.handle(c);
        },
      }
    : chatCompletionsProtocol;
  mkdirSync(scratch, { recursive: true });
  const server = await startFakeModelServer({ protocols: [protocol], logFile: serverLog });
  const options = {
    scratch,
    // Outside this repository, so no CLI shows its Git state.
    workDir: join(tmpdir(), 'pw-clis-rec', agent.tool, name),
    serverUrl: server.url,
    retries: scenario.retries ?? 'capped',
    fresh: scenario.fresh ?? false,
  } as const;
  const prepared = agent.prepare(options);
  const launch = { ...prepared, command: [...prepared.command, ...(scenario.args ?? [])] };
  await agent.setup?.(options);
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
      socketName: uniqueSocketName(`pw-clis-rec-${agent.tool}`),
      cols: scenario.cols ?? COLS,
      rows: scenario.rows ?? ROWS,
      cwd: launch.cwd,
      env: { ...launch.env, ...scenario.env, PS1: '$ ' },
      command,
      remainOnExit: scenario.remainOnExit ?? false,
    });
    recorder = startRecorder({
      transport: session.transport,
      target: session.target,
      tool: agent.tool,
      toolVersion: agent.version,
      processNames: agent.processNames,
      intervalMs: 250,
      file: join(fixtures, `${name}.jsonl`),
      ...(withRecord(name) ? { sessionRecord: withRecord(name)! } : {}),
    });
    const s = session;
    const r = recorder;
    const ctx: Ctx = {
      agent,
      server,
      session: s,
      recorder: r,
      async keys(steps) {
        for (const step of steps) {
          if ('text' in step) await s.sendText(step.text);
          else await s.sendKeys(...step.keys);
          if (step.pauseMs) await sleep(step.pauseMs);
          if (process.env.PW_RECORD_DEBUG) {
            const tail = (await s.capture())
              .split('\n')
              .filter((l) => l.trim())
              .slice(-2);
            process.stdout.write(`\n[${JSON.stringify(step)}] ${tail.join(' | ')}\n`);
          }
        }
      },
      async submit(text) {
        await ctx.idle(agent.startupTimeoutMs);
        await s.sendText(text);
        await s.waitForText(agent.typed(text), 10_000);
        await sleep(400);
        r.input(text);
        await s.sendKeys(...agent.submitKeys);
      },
      async turnsEnded(count, timeoutMs = 90_000) {
        await server.waitFor(isTurn, { count, timeoutMs });
      },
      async streaming(count) {
        // Polled: the server wakes its waiters only when a request ends.
        const deadline = Date.now() + 60_000;
        while (server.log().filter((e) => isTurn(e) && e.firstByteAt !== null).length < count) {
          if (Date.now() > deadline) throw new Error(`turn request ${count} never streamed`);
          await sleep(50);
        }
      },
      async idle(timeoutMs = 30_000) {
        const deadline = Date.now() + timeoutMs;
        let last = '';
        let since = Date.now();
        for (;;) {
          const screen = await s.capture();
          const notice = agent.notices?.find((n) => n.text.test(screen));
          if (notice) await ctx.keys(notice.keys);
          // Busy markers are read near the bottom only: a reply may quote them (quoted-chrome).
          const tail = screen
            .split('\n')
            .filter((l) => l.trim() !== '')
            .slice(-10)
            .join('\n');
          const ready = agent.idle.test(screen) && !agent.busy.test(tail);
          if (screen !== last || !ready) {
            last = screen;
            since = Date.now();
          } else if (Date.now() - since >= 1500) {
            return screen;
          }
          if (Date.now() > deadline)
            throw new Error(`${agent.tool} not idle within ${timeoutMs} ms:\n${screen}`);
          await sleep(100);
        }
      },
    };
    await scenario.run(ctx);
  } finally {
    await recorder?.stop();
    await session?.close();
    const stopped = (await agent.stopDaemons?.(options)) ?? [];
    if (stopped.length > 0) process.stdout.write(`(stopped daemons ${stopped.join(', ')}) `);
    await server.close();
  }
}

/**
 * `record-<scenario>` records the scenario with the CLI's session record as well (its pieces in
 * the recording, docs/contracts.md §2), into `record-<scenario>.jsonl`.
 */
const RECORD_PREFIX = 'record-';

function scenarioOf(name: string): Scenario | undefined {
  return SCENARIOS[name] ?? SCENARIOS[name.slice(RECORD_PREFIX.length)];
}

function withRecord(name: string): SessionRecordReader | undefined {
  return name.startsWith(RECORD_PREFIX) && !SCENARIOS[name]
    ? sessionRecordReader(CHAT_AGENTS[process.argv[2] ?? '']?.tool ?? '')
    : undefined;
}

async function main(): Promise<void> {
  const [tool, ...rest] = process.argv.slice(2);
  const agent = tool ? CHAT_AGENTS[tool] : undefined;
  if (!agent) {
    throw new Error(
      `usage: chat-cli.ts <${Object.keys(CHAT_AGENTS).join('|')}> [--out DIR] [scenario ...]`,
    );
  }
  const outAt = rest.indexOf('--out');
  const out = outAt >= 0 ? rest[outAt + 1] : undefined;
  if (outAt >= 0 && (out === undefined || out.startsWith('-'))) {
    throw new Error('--out needs a folder: --out test/fixtures/<tool>/<version>');
  }
  const fixtures = out ? resolve(out) : resolve('test/fixtures', agent.tool);
  const requested = outAt >= 0 ? rest.filter((_, i) => i !== outAt && i !== outAt + 1) : rest;
  const selected = requested.length > 0 ? requested : defaultScenarios(agent);
  for (const name of selected) {
    if (!scenarioOf(name)) {
      throw new Error(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(', ')}`);
    }
  }
  for (const name of selected) {
    process.stdout.write(`recording ${agent.tool} ${name}... `);
    const started = Date.now();
    try {
      await record(agent, name, scenarioOf(name)!, fixtures);
      process.stdout.write(`done (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
    } catch (err) {
      process.stdout.write(`FAILED: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    }
  }
}

await main();
