/**
 * The chat CLI recorder's long conversations: a usage reported near or past the window, the
 * provider's refusal of a prompt as too long, and the compactions of the CLIs that compact.
 */
import type { ChatAgent } from '../../../src/tooling/agents/chat-agent.js';
import type { TurnPlanInput } from '../../../src/tooling/model-server/plan.js';
import { isTurn, REPLY, simpleTurn, sleep, type Ctx, type Scenario } from './chat-cli-scenario.js';

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

/** The long-conversation scenarios, each CLI family's own where they share a name. */
export const CONTEXT_SCENARIOS = joined(QWEN_CONTEXT, COMPACTING_CONTEXT, WINDOW_CONTEXT);
