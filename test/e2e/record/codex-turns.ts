/**
 * The Codex recorder's first scenarios, in recording order: start-up, turns of every length,
 * interrupts, errors, the permission prompt, a hang, the CLI quitting or killed, other sizes.
 */
import { readFileSync } from 'node:fs';
import { codexAgent } from '../../../src/tooling/agents/codex.js';
import { type AgentSession } from '../harness/session.js';
import {
  type Scenario,
  interruptedTurn,
  isTurn,
  LONG_REPLY,
  REPLY,
  simpleTurn,
  sleep,
} from './codex-scenario.js';

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

export const CODEX_TURNS: Record<string, Scenario> = {
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
    run: (ctx) => CODEX_TURNS['permission-prompt']!.run(ctx),
  },
  'size-250x60-permission-prompt': {
    cols: 250,
    rows: 60,
    run: (ctx) => CODEX_TURNS['permission-prompt']!.run(ctx),
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
};
