/**
 * What every scenario of the Codex recorder gets (the server, the pane, the recorder and the
 * waits on them), the screens it waits for, and the turns the scenarios are made of.
 */
import { type Recorder } from '../../../src/observe/recorder.js';
import { codexAgent } from '../../../src/tooling/agents/codex.js';
import type { TurnPlanInput } from '../../../src/tooling/model-server/plan.js';
import {
  type FakeModelServer,
  type RequestLogEntry,
} from '../../../src/tooling/model-server/server.js';
import { type AgentSession } from '../harness/session.js';

/** The composer's placeholder: drawn only while the prompt box is empty. */
export const EMPTY_COMPOSER = /^› Ask Codex to do anything/m;
export const WORKING = /esc to interrupt\)/;
/** The start-up question about a folder that is not in the trusted projects. */
export const WAITING_FOR_STARTUP = /^\s*Waiting for startup\b/m;
export const TRUST_DIALOG = /Trust this folder\?/;
/** The footer naming the model: drawn once the session is up (Codex 0.171 takes no input before). */
export const MODEL_FOOTER = /^ {2}gpt-fake-1 /m;

export interface Ctx {
  server: FakeModelServer;
  session: AgentSession;
  recorder: Recorder;
  scratch: string;
  /** Types a prompt literally, checks it is in the box, records the input, submits with Enter. */
  submit(text: string): Promise<void>;
  /** Waits until `count` turn requests (plan-consuming ones) have ended on the server. */
  turnsEnded(count: number, timeoutMs?: number): Promise<void>;
  /** Waits until the screen shows an empty composer and no working status, stable for a while. */
  idle(timeoutMs?: number): Promise<string>;
}

export interface Scenario {
  /** Terminal size (default 120x40). */
  cols?: number;
  rows?: number;
  /** Leave the work folder out of the trusted projects, so Codex asks about it at start-up. */
  untrusted?: boolean;
  /**
   * A new user's setup: a config with only the model and its provider, and a work folder outside
   * any Git repository; and no background server installed yet (Codex 0.171 installs it first).
   */
  providerOnly?: boolean;
  /** Run the CLI from a shell, so quitting returns to a shell prompt. */
  viaShell?: boolean;
  remainOnExit?: boolean;
  /** A small context window the fake usage nears, with the provider named as OpenAI's own. */
  longContext?: boolean;
  run(ctx: Ctx): Promise<void>;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const isTurn = (e: RequestLogEntry) => e.streaming && e.path.endsWith('/responses');

export const REPLY =
  'Hello! This reply comes from the fake model server. It has a few sentences so the transcript changes visibly while it streams.';
export const LONG_REPLY = Array.from(
  { length: 40 },
  (_, i) => `Sentence ${i + 1} of a long answer that takes a while to stream.`,
).join(' ');

/** One list item per chunk: 90 lines, streamed over about 5 s at 55 ms a chunk. */
export const NINETY_LINES = Array.from(
  { length: 90 },
  (_, i) => `${i + 1}. Line ${i + 1} of a long reply that scrolls the prompt away.\n`,
);

export async function simpleTurn(ctx: Ctx, prompt: string, plan: TurnPlanInput, ended: number) {
  ctx.server.enqueue(plan);
  await ctx.submit(prompt);
  await ctx.turnsEnded(ended);
  await ctx.idle();
}

/** A long reply interrupted with the interrupt key once it has streamed for a few seconds. */
export async function interruptedTurn(ctx: Ctx, prompt: string, ended: number) {
  ctx.server.enqueue({ text: LONG_REPLY, chunkDelayMs: 150 });
  await ctx.submit(prompt);
  await ctx.server.waitFor((e) => isTurn(e) && e.firstByteAt !== null, {
    ended: false,
    count: ended,
  });
  await sleep(4000);
  await ctx.session.sendKeys(...codexAgent.interruptKeys);
  await ctx.turnsEnded(ended);
  await ctx.idle();
}

/** The context window of the long-context scenarios, and where Codex compacts on its own. */
export const CONTEXT_WINDOW = { tokens: 100_000, autoCompactAt: 80_000 };
