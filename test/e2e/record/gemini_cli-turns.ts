/**
 * The Gemini CLI recorder's first scenarios, in recording order: start-up, turns, interrupts,
 * errors, the permission prompt, a hang, the CLI quitting or killed, other sizes.
 */
import { geminiCliAgent } from '../../../src/tooling/agents/gemini_cli.js';
import {
  type Scenario,
  errorScenario,
  interruptedTurn,
  longText,
  normalTurn,
  sleep,
  streamsEnded,
  submit,
} from './gemini_cli-scenario.js';

export const GEMINI_TURNS: Record<string, Scenario> = {
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
    run: (ctx) => GEMINI_TURNS['permission-prompt']!.run(ctx),
  },
  'size-250x60-permission-prompt': {
    cols: 250,
    rows: 60,
    run: (ctx) => GEMINI_TURNS['permission-prompt']!.run(ctx),
  },
};
