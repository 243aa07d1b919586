/**
 * What every scenario of the Claude Code recorder gets (the server, the pane, the recorder and
 * the waits on them), the screens it waits for, and the turns the scenarios are made of.
 */
import { type Recorder } from '../../../src/observe/recorder.js';
import { claudeCodeFacts } from '../../../src/tooling/agents/claude_code.js';
import type { TurnPlanInput } from '../../../src/tooling/model-server/plan.js';
import { type FakeModelServer } from '../../../src/tooling/model-server/server.js';
import { type AgentSession } from '../harness/session.js';

/**
 * Footer of an idle prompt: the shortcuts hint in manual mode; in auto mode the mode line
 * without "esc to interrupt" after it.
 */
export const IDLE = /\? for shortcuts|auto mode on \(shift\+tab to cycle\)(?! · esc to interrupt)/;
export const WORKING = /esc to interrupt/;

export interface Ctx {
  server: FakeModelServer;
  session: AgentSession;
  recorder: Recorder;
  /** Types a prompt literally, records the input (`recorded`, default the text), submits it with Enter. */
  submit(text: string, recorded?: string): Promise<void>;
  /** Waits until `count` turn requests have ended on the server. */
  turnsEnded(count: number, timeoutMs?: number): Promise<void>;
  idle(timeoutMs?: number): Promise<string>;
}

export interface Scenario {
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

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const REPLY =
  'Hello! This reply comes from the fake model server. It has a few sentences so the transcript changes visibly while it streams.';
export const LONG_REPLY = Array.from(
  { length: 40 },
  (_, i) => `Sentence ${i + 1} of a long answer that takes a while to stream.`,
).join(' ');

/** 90 numbered lines, one chunk each: far taller than any screen, streamed over ~4.5 s. */
export const TALL_REPLY_LINES = Array.from(
  { length: 90 },
  (_, i) => `Line ${i + 1} of a tall answer that scrolls the prompt echo off the screen.\n`,
);

export async function simpleTurn(ctx: Ctx, prompt: string, plan: TurnPlanInput, ended: number) {
  ctx.server.enqueue(plan);
  await ctx.submit(prompt);
  await ctx.turnsEnded(ended);
  await ctx.idle();
}

/**
 * A turn that calls a tool and then answers: when `approveAfterMs` is set, the permission
 * prompt is waited for, left that long, and approved with the operator's key.
 */
export async function toolTurn(
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

export const MARKER_TURN = {
  prompt: 'create the marker file',
  intro: 'I will create the marker file.',
  toolUse: claudeCodeFacts.permissionToolUse,
  done: 'Done: the marker file exists now.',
};

export function errorScenario(status: number): Scenario {
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

/** Submits a long reply and interrupts it once the CLI shows it working. */
export async function interruptedTurn(ctx: Ctx, prompt: string, ended: number): Promise<void> {
  ctx.server.enqueue({ text: LONG_REPLY, chunkDelayMs: 400 });
  await ctx.submit(prompt);
  await ctx.session.waitForText(WORKING, 10_000);
  await sleep(4000);
  await ctx.session.sendKeys(...claudeCodeFacts.interruptKeys);
  await ctx.turnsEnded(ended);
  await ctx.idle();
}
