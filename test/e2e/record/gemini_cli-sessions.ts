/**
 * The Gemini CLI recorder's own scenarios, in recording order: the working line without its
 * glyph, screen-reader mode, long replies, a turn after an error or an interrupt, prompts and
 * drafts, start-up dialogs, an edit approval, long conversations, the shortcuts help.
 */
import { join } from 'node:path';
import type { TurnPlanInput } from '../../../src/tooling/model-server/plan.js';
import { geminiCliAgent } from '../../../src/tooling/agents/gemini_cli.js';
import {
  type Ctx,
  type Scenario,
  errorScenario,
  errorSettings,
  interruptedTurn,
  manyLines,
  normalTurn,
  READY,
  screenReader,
  sleep,
  slowThenPermission,
  streamsEnded,
  submit,
  successAfter,
} from './gemini_cli-scenario.js';

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

export const GEMINI_SESSIONS: Record<string, Scenario> = {
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
      await GEMINI_SESSIONS['error-then-success']!.run(ctx);
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
