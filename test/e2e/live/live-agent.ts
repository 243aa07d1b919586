/**
 * What the live suite knows of a CLI and of paneward's defaults, and the checks its tests share:
 * the turn requests on the server, a success the record decided, none claimed, ready again.
 */
import { rmSync } from 'node:fs';
import { expect } from 'vitest';
import { type Supervisor, type TerminalState } from '../../../src/index.js';
import { sessionRecordReader } from '../../../src/profiles/session-records.js';
import type { AgentLaunch, KeyStep } from '../../../src/tooling/agents/chat-agent.js';
import type { TurnPlanInput } from '../../../src/tooling/model-server/plan.js';
import type { Protocol, RequestLogEntry } from '../../../src/tooling/model-server/server.js';
import { type FakeModelServer } from '../../../src/tooling/model-server/server.js';
import { type AgentSession } from '../harness/session.js';
import type { Timeline } from '../harness/timeline.js';

export const POLL_SECONDS = 0.25;
/** statecharts.md §3 defaults, which this suite does not override. */
export const SETTLE_SECONDS = 1;
export const STABILITY_SECONDS = 1;
export const COLS = 160;
export const ROWS = 45;

export const LIVE_REPLY =
  'Hello! This reply comes from the fake model server. It has a few sentences so the transcript changes visibly while it streams.';
export const LONG_REPLY = Array.from(
  { length: 40 },
  (_, i) => `Sentence ${i + 1} of a long answer that takes a while to stream.`,
).join(' ');

/** What the suite needs to know about one CLI. */
export interface LiveAgent {
  tool: string;
  /**
   * The plain turn's success check is open for this CLI, and why: it is not run, and the reason
   * is printed with every run (an open defect, never a pass).
   */
  successOpen?: string;
  bin: string;
  install: string;
  protocol: Protocol;
  /** Writes the scratch configuration; returns how to start the CLI against `serverUrl`. */
  launch(o: { scratch: string; workDir: string; serverUrl: string }): Promise<AgentLaunch>;
  /** Ready within this long after launch on a loaded machine. */
  startupTimeoutMs: number;
  /** The failing turn: its plans end the turn in the CLI's final error. */
  failure: {
    plans: TurnPlanInput[];
    /** A dialog the CLI shows on the way (retry or stop?), and how the operator answers it. */
    dialog?: { text: RegExp; keys: readonly KeyStep[] };
    timeoutMs: number;
  };
  /**
   * A shell tool call that asks for permission, creating `file` in the work folder; null for a
   * CLI that never asks (pi).
   */
  permission: {
    toolUse(file: string): { name: string; input: Record<string, unknown> };
    dialog: RegExp;
    approve: readonly KeyStep[];
  } | null;
  /**
   * `outcome` (the default): a finished reply is reported `success`, an interrupt `interrupted`.
   * `no_evidence`: the CLI's screen does not tell a finished reply from an interrupted one (Cline
   * leaves no interrupt mark), so paneward must never claim success for it; the suite checks that
   * no success is claimed and that readiness comes back to `ready`.
   */
  replyOutcome?: 'outcome' | 'no_evidence';
  /** Notices drawn over the prompt at start (a promotion), and the keys that close them. */
  notices?: ReadonlyArray<{ text: RegExp; keys: readonly KeyStep[] }>;
  /** Stops the daemons the CLI leaves behind, by pid. */
  stopDaemons?(scratch: string): Promise<unknown> | void;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Ends a live suite's parts, each only if it started, in the order that leaves nothing behind:
 * the supervisor, the pane and its processes, what the CLI leaves outside them (`cleanup`), the
 * model server, the scratch folder.
 */
export async function stopLive(parts: {
  sup: Supervisor | undefined;
  session: AgentSession | undefined;
  server: FakeModelServer | undefined;
  scratch: string;
  cleanup?: () => Promise<unknown>;
}): Promise<void> {
  await parts.sup?.stop();
  await parts.session?.close();
  await parts.cleanup?.();
  await parts.server?.close();
  rmSync(parts.scratch, { recursive: true, force: true });
}

export const readyNow = (s: TerminalState) =>
  s.readiness.status === 'ready' &&
  s.diagnostics.availability === 'available' &&
  s.turn.phase === 'ready';

/** The CLI's prompt is idle again, whether or not paneward could end the turn. */
export const promptReady = (s: TerminalState) =>
  s.readiness.status === 'ready' && s.diagnostics.availability === 'available';

/**
 * The states in `seen` that report `turnId` a success. (The completion chart's `completed` only
 * says the CLI's surface settled for the turn; the outcome is `lastTurn.result`.)
 */
export const claimedSuccess = (seen: readonly { s: TerminalState }[], turnId: string) =>
  seen.filter((e) => e.s.lastTurn.turnId === turnId && e.s.lastTurn.result === 'success');

/** The frame sources the live suite runs on (PANEWARD_LIVE_SOURCES=control,polling narrows it). */
export const SOURCES = (process.env.PANEWARD_LIVE_SOURCES ?? 'control,polling')
  .split(',')
  .map((s) => s.trim())
  .filter((s): s is 'control' | 'polling' => s === 'control' || s === 'polling');

/** The parts a live run starts before its tests, read when a check runs. */
export interface LiveParts {
  server: FakeModelServer;
  session: AgentSession;
  sup: Supervisor;
  id: string;
}

/** The checks of the live suite's tests on one CLI, over the parts `live` gives once started. */
export function liveChecks(agent: LiveAgent, timeline: Timeline, live: () => LiveParts) {
  const turnRequests = (from: number): RequestLogEntry[] =>
    live()
      .server.log()
      .slice(from)
      .filter((e) => e.streaming);

  const noEvidence = agent.replyOutcome === 'no_evidence';
  /**
   * Where the screen cannot prove a finished reply but the CLI's session record can (Cline),
   * the record is the second witness: a finished reply is a success once the record has it
   * and the screen reads its idle prompt (docs/witness.md).
   */
  const reader = sessionRecordReader(agent.tool);
  const recordTellsSuccess =
    noEvidence && reader !== undefined && (reader.endings?.includes('success') ?? true);
  /** A success the record decided (with the screen, or after the window). */
  const expectRecordSuccess = async (turnId: string, seenFrom: number) => {
    const { sup, id } = live();
    const result = await sup.waitForTurn(id, turnId, { timeoutMs: 60_000 });
    expect(result.lastTurn.result, timeline.describe(seenFrom)).toBe('success');
    expect(result.lastTurn.turnId).toBe(turnId);
    expect(['both', 'record']).toContain(sup.get(id).lastTurn.witness);
  };
  /**
   * Ready for the next prompt. Where a finished reply leaves no evidence (Cline), a turn may
   * stay open while the prompt is idle again; paneward then refuses the next prompt as one
   * typed into a running turn, and the suite, having seen the CLI idle, forces it.
   */
  const settled = noEvidence ? promptReady : readyNow;
  const submit = (text: string) => {
    const { sup, id } = live();
    return sup.submit(id, text, { force: noEvidence && sup.get(id).turn.phase !== 'ready' });
  };
  /** The CLI's last request has ended and its prompt is idle again; never a success. */
  const expectNoSuccessClaimed = async (turnId: string, seenFrom: number, logFrom: number) => {
    await timeline.waitFor('the prompt idle again', promptReady, {
      from: timeline.seen.length,
      timeoutMs: 60_000,
    });
    // Longer than settle + stability + the stale-prompt window: whatever paneward decides
    // about the turn, it has decided by now.
    await sleep(10_000);
    const seen = timeline.seen.slice(seenFrom);
    expect(claimedSuccess(seen, turnId), timeline.describe(seenFrom)).toEqual([]);
    const { sup, id } = live();
    const now = sup.get(id);
    expect(now.readiness.status).toBe('ready');
    if (now.lastTurn.turnId === turnId) expect(now.lastTurn.result).not.toBe('success');
    expect(turnRequests(logFrom).length).toBeGreaterThan(0);
  };

  /** Waits until the terminal's latest state (not an earlier one) is ready for a prompt. */
  const readyAgain = (timeoutMs: number) =>
    timeline.waitFor('ready again', settled, {
      from: Math.max(0, timeline.seen.length - 1),
      timeoutMs,
    });

  const keys = async (steps: readonly KeyStep[]) => {
    const { session } = live();
    for (const s of steps) {
      if ('text' in s) await session.sendText(s.text);
      else await session.sendKeys(...s.keys);
      if (s.pauseMs) await sleep(s.pauseMs);
    }
  };

  return {
    turnRequests,
    noEvidence,
    recordTellsSuccess,
    expectRecordSuccess,
    settled,
    submit,
    expectNoSuccessClaimed,
    readyAgain,
    keys,
  };
}
