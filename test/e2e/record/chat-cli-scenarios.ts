/**
 * The chat CLI recorder's scenarios, in recording order: start-up, turns, errors, permission
 * dialogs, sizes, TMUX set, screen-reader mode, long conversations, the CLI exiting or killed.
 */
import {
  interruptedTurn,
  isTurn,
  REPLY,
  simpleTurn,
  sleep,
  type Scenario,
} from './chat-cli-scenario.js';
import { CONTEXT_SCENARIOS } from './chat-cli-context.js';

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
  // A quick reply, then at once a turn interrupted with Escape: the second turn starts within
  // moments of the first, whose success must not be taken for the second's.
  'turn-then-interrupted': {
    async run(ctx) {
      await simpleTurn(ctx, 'a short answer please', { text: 'OK.', chunkDelayMs: 20 }, 1);
      await interruptedTurn(ctx, 'write a long answer', 2);
      await sleep(3000);
    },
  },
  // The prompt's paste and its Enter read at once (a CLI too busy to read the paste before the
  // Enter came): grok-cli takes the Enter into the draft and draws its box garbled. A second
  // Enter submits it; a CLI that submitted on the first gets none.
  'enter-in-paste': {
    async run(ctx) {
      ctx.server.enqueue({ text: REPLY, chunkDelayMs: 150 });
      await ctx.pasteWithSubmit('create approved.txt');
      await sleep(4000);
      if (ctx.server.log().filter(isTurn).length === 0) {
        await ctx.keys([{ keys: [...ctx.agent.submitKeys] }]);
      }
      await ctx.turnsEnded(1);
      await ctx.idle();
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
  ...CONTEXT_SCENARIOS,
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
