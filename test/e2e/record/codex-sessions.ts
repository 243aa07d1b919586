/**
 * The Codex recorder's own scenarios, in recording order: long replies, a turn after an error or
 * an interrupt, prompts and drafts, start-up dialogs, compactions near a full window, the tmux
 * session killed.
 */
import { codexAgent } from '../../../src/tooling/agents/codex.js';
import type { TurnPlanInput } from '../../../src/tooling/model-server/plan.js';
import {
  type Scenario,
  interruptedTurn,
  isTurn,
  MODEL_FOOTER,
  NINETY_LINES,
  REPLY,
  simpleTurn,
  sleep,
  TRUST_DIALOG,
  WAITING_FOR_STARTUP,
} from './codex-scenario.js';

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

export const CODEX_SESSIONS: Record<string, Scenario> = {
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
      await CODEX_SESSIONS['compact-error-500']!.run(ctx);
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
