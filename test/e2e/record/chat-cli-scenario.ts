/**
 * What every scenario of the chat CLI recorder gets (the CLI, the server, the pane, the recorder
 * and the waits on them) and the turns they are made of.
 */
import { type Recorder } from '../../../src/observe/recorder.js';
import type { ChatAgent, KeyStep } from '../../../src/tooling/agents/chat-agent.js';
import type { TurnPlanInput } from '../../../src/tooling/model-server/plan.js';
import {
  type FakeModelServer,
  type RequestLogEntry,
} from '../../../src/tooling/model-server/server.js';
import { type AgentSession } from '../harness/session.js';

export interface Ctx {
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
  /**
   * Pastes `text` (bracketed) and presses the submit keys in one tmux command, so the CLI reads
   * both at once, as it does when it was too busy to read the paste before the keys came.
   */
  pasteWithSubmit(text: string): Promise<void>;
}

export interface Scenario {
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

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const isTurn = (e: RequestLogEntry) => e.streaming;

export const REPLY =
  'Hello! This reply comes from the fake model server. It has a few sentences so the transcript changes visibly while it streams.';
export const LONG_REPLY = Array.from(
  { length: 40 },
  (_, i) => `Sentence ${i + 1} of a long answer that takes a while to stream.`,
).join(' ');

export async function simpleTurn(ctx: Ctx, prompt: string, plan: TurnPlanInput, ended: number) {
  ctx.server.enqueue(plan);
  await ctx.submit(prompt);
  await ctx.turnsEnded(ended);
  await ctx.idle();
}

export async function interruptedTurn(ctx: Ctx, prompt: string, ended: number) {
  ctx.server.enqueue({ text: LONG_REPLY, chunkDelayMs: 250 });
  await ctx.submit(prompt);
  await ctx.streaming(ended);
  await sleep(4000);
  await ctx.keys(ctx.agent.interrupt);
  await ctx.turnsEnded(ended);
  await ctx.idle();
}
