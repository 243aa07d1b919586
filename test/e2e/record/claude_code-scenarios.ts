/**
 * The Claude Code recorder's scenarios, in recording order: the trust prompt and start-up,
 * turns, interrupts and sizes, long replies, follow-ups, prompts and drafts, auto mode, errors,
 * the permission prompt, a hang, the CLI quitting or killed, the tmux session killed.
 */
import { claudeCodeFacts } from '../../../src/tooling/agents/claude_code.js';
import {
  type Scenario,
  errorScenario,
  interruptedTurn,
  LONG_REPLY,
  MARKER_TURN,
  REPLY,
  simpleTurn,
  sleep,
  TALL_REPLY_LINES,
  toolTurn,
  WORKING,
} from './claude_code-scenario.js';

function normalTurnAt(cols: number, rows: number): Scenario {
  return { size: { cols, rows }, run: (ctx) => SCENARIOS['normal-turn']!.run(ctx) };
}

export const SCENARIOS: Record<string, Scenario> = {
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
