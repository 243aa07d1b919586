/**
 * What every scenario of the Gemini CLI recorder gets (the server, the pane, the recorder), the
 * screens it waits for, and the turns the scenarios are made of.
 */
import { type FakeModelServer } from '../../../src/tooling/model-server/server.js';
import type { TurnPlanInput } from '../../../src/tooling/model-server/plan.js';
import { geminiCliAgent } from '../../../src/tooling/agents/gemini_cli.js';
import { type AgentSession } from '../harness/session.js';
import { type Recorder } from '../../../src/observe/recorder.js';

export const READY = /Type your message or @path\/to\/file/;
export const BANNER = /Gemini CLI v\d/;

export interface Ctx {
  server: FakeModelServer;
  session: AgentSession;
  recorder: Recorder;
  /** The CLI's working directory. */
  cwd: string;
}

export interface Scenario {
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

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function submit(ctx: Ctx, text: string): Promise<void> {
  await ctx.session.sendText(text);
  await sleep(400);
  await ctx.session.sendKeys(geminiCliAgent.submitKey);
  ctx.recorder.input(text);
}

/** Waits until `count` streaming requests have ended. */
export async function streamsEnded(ctx: Ctx, count: number, timeoutMs = 60_000): Promise<void> {
  await ctx.server.waitFor((e) => e.streaming, { count, timeoutMs });
}

export const longText =
  'Here is a long answer that streams slowly, one word at a time, so that there is plenty of time to ' +
  'look at the working screen while it grows, and to interrupt it in the middle if needed, before ' +
  'it ever reaches the end of this rather long sentence.';

/** The error dialog shows only with full error verbosity; the default retries silently forever. */
export const errorSettings = { ui: { errorVerbosity: 'full' } };

export function errorScenario(status: number, message?: string): Scenario {
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
export async function slowThenPermission(ctx: Ctx): Promise<void> {
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

export async function normalTurn(ctx: Ctx): Promise<void> {
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
export async function interruptedTurn(ctx: Ctx): Promise<void> {
  const before = ctx.server.log().filter((e) => e.streaming).length;
  ctx.server.enqueue({ text: longText, chunkDelayMs: 400 });
  await submit(ctx, 'Write a long answer.');
  await sleep(3500);
  await ctx.session.sendKeys(geminiCliAgent.interruptKey);
  await streamsEnded(ctx, before + 1, 10_000);
  await sleep(3000);
}

/** A follow-up turn that succeeds while the previous turn's marker is still on screen. */
export async function successAfter(ctx: Ctx): Promise<void> {
  const before = ctx.server.log().filter((e) => e.streaming).length;
  ctx.server.enqueue({ text: 'Second try: this one works and ends normally.', chunkDelayMs: 120 });
  await submit(ctx, 'Try again.');
  await streamsEnded(ctx, before + 1);
  await sleep(3000);
}

export const manyLines = Array.from(
  { length: 90 },
  (_, i) => `- Line ${i + 1} of a long list that scrolls the screen.\n`,
);

/** A scenario in screen-reader mode: no banner, so it waits for the prompt line itself. */
export function screenReader(run: (ctx: Ctx) => Promise<void>): Scenario {
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
