import type { TransportOutcome } from '../../schemas/probe.js';
import { commandLine, type ControlReply } from '../control-protocol.js';
import { isMissingTarget } from '../internal/tmux-errors.js';
import { unexpectedOutput } from '../tmux-locale.js';
import type { PaneInfo, PaneProbe, PaneSampling, SampleCause } from '../types.js';

// One batch: for every pane in it, its facts, its screen (and with escapes when asked), and a
// `continue` for a paused pane, all sent as one write of command lines whose replies come back
// in order.

const FACTS_FORMAT = [
  '#{pane_id}',
  '#{window_id}',
  '#{session_id}',
  '#{pane_pid}',
  '#{pane_dead}',
  '#{pane_width}',
  '#{pane_height}',
  '#{pane_current_command}',
].join('\t');

/** What a batch needs of a pane. */
export interface Batched {
  readonly sampling: PaneSampling;
  readonly paneId: string | null;
  readonly urgent: boolean;
  readonly dirty: boolean;
  readonly cause: SampleCause;
}

/** One pane's place in a batch: the index of its first reply, and of its `continue` (or -1). */
export interface BatchEntry<W> {
  w: W;
  first: number;
  resume: number;
  paneId: string | null;
  cause: SampleCause;
}

/** The command lines of a batch and where each pane's replies are. */
export function batchLines<W extends Batched>(
  watches: readonly W[],
  paused: ReadonlySet<string>,
): { lines: string[]; plan: BatchEntry<W>[] } {
  const lines: string[] = [];
  const plan = watches.map((w) => {
    const t = w.sampling.target;
    const first = lines.length;
    lines.push(commandLine('display-message', ['-p', '-t', t, FACTS_FORMAT]));
    lines.push(commandLine('capture-pane', ['-p', '-t', t]));
    if (w.sampling.includeAnsi) lines.push(commandLine('capture-pane', ['-p', '-e', '-t', t]));
    const isPaused = w.paneId !== null && paused.has(w.paneId);
    // Continued right after its capture: output after it marks the pane again.
    const resume = isPaused ? lines.length : -1;
    if (isPaused) lines.push(commandLine('refresh-client', ['-A', `${w.paneId}:continue`]));
    const cause: SampleCause = w.urgent || w.dirty ? w.cause : 'refresh';
    return { w, first, resume, paneId: w.paneId, cause };
  });
  return { lines, plan };
}

/** Where tmux says a pane is. */
export interface Facts {
  pane: PaneInfo;
  windowId: string;
  sessionId: string;
}

/** A pane's facts line, or null when it is not what was asked for. */
export function parseFacts(body: string): Facts | null {
  const [id = '', windowId = '', sessionId = '', pid, dead, width, height, ...command] =
    body.split('\t');
  const pane: PaneInfo = {
    id,
    pid: Number(pid),
    dead: dead === '1',
    currentCommand: command.join('\t'),
    width: Number(width),
    height: Number(height),
  };
  if (!id.startsWith('%') || !windowId.startsWith('@') || !sessionId.startsWith('$')) return null;
  if (![pane.pid, pane.width, pane.height].every(Number.isInteger)) return null;
  return { pane, windowId, sessionId };
}

type Base = Pick<PaneProbe, 'tookMs' | 'sampledAt' | 'cause'>;

/**
 * What one pane's replies say: `gone` the capture failed (the pane is missing, or tmux refused);
 * `unparsed` the facts were not understood; `answered` the screen and the facts.
 */
export type Answer =
  | { kind: 'gone'; probe: PaneProbe }
  | { kind: 'unparsed'; probe: PaneProbe }
  | { kind: 'answered'; facts: Facts; capture: { text: string; ansi?: string } };

export function readAnswer(
  factsReply: ControlReply,
  screenReply: ControlReply,
  ansiResult: PromiseSettledResult<ControlReply> | undefined,
  base: Base,
): Answer {
  // capture-pane decides whether the pane exists: display-message falls back to another pane.
  const failed = !screenReply.ok
    ? screenReply
    : ansiResult?.status === 'fulfilled' && !ansiResult.value.ok
      ? ansiResult.value
      : null;
  if (failed || ansiResult?.status === 'rejected') {
    const message = failed?.body ?? 'ANSI capture not answered';
    const missing = failed !== null && isMissingTarget(failed.body);
    return {
      kind: 'gone',
      probe: {
        ...base,
        transport: missing ? 'tmux_missing' : 'probe_error',
        process: 'unknown',
        capture: null,
        pane: null,
        pids: [],
        error: { kind: missing ? 'tmux_missing' : 'tmux_failed', message },
      },
    };
  }
  const facts = factsReply.ok ? parseFacts(factsReply.body) : null;
  if (!facts) {
    return {
      kind: 'unparsed',
      probe: {
        ...base,
        transport: 'probe_error',
        process: 'unknown',
        capture: null,
        pane: null,
        pids: [],
        error: { kind: 'parse', message: unexpectedOutput(factsReply.body) },
      },
    };
  }
  const capture: { text: string; ansi?: string } = { text: screenReply.body };
  if (ansiResult?.status === 'fulfilled') capture.ansi = ansiResult.value.body;
  return { kind: 'answered', facts, capture };
}

/** A sample for a pane tmux did not answer for `silentMs` (tmux is hung). */
export function hungSample(silentMs: number, cause: SampleCause): PaneProbe {
  return {
    transport: 'probe_error',
    process: 'unknown',
    capture: null,
    pane: null,
    pids: [],
    error: { kind: 'tmux_timeout', message: `tmux did not answer for ${Math.round(silentMs)} ms` },
    tookMs: Math.round(silentMs),
    sampledAt: Date.now(),
    cause,
  };
}

/** A sample for a pane while there is no tmux server. */
export function serverMissingSample(message: string): PaneProbe {
  return {
    transport: 'tmux_missing',
    process: 'unknown',
    capture: null,
    pane: null,
    pids: [],
    error: { kind: 'tmux_missing', message },
    tookMs: 0,
    sampledAt: Date.now(),
    cause: 'server',
  };
}

/** The previous sample of a watch, as far as telling a repeat needs. */
export interface LastSample {
  text: string;
  ansi: string | undefined;
  key: string;
}

/**
 * Marks a sample `unchanged` when it equals the previous one of the same watch (screen, pane
 * facts and outcomes; without a screen, the same failed transport), and returns what to keep
 * as the previous one. A repeat hands out the strings already held, so an unchanged screen is
 * not kept twice.
 */
export function markRepeat(
  probe: PaneProbe,
  last: LastSample | null,
  lastTransport: TransportOutcome | null,
): { out: PaneProbe; last: LastSample | null } {
  if (!probe.capture) {
    const unchanged = lastTransport === probe.transport && probe.transport !== 'tmux_up';
    return { out: { ...probe, unchanged }, last: null };
  }
  const key = JSON.stringify([probe.transport, probe.process, probe.pane, probe.pids, probe.error]);
  if (
    last &&
    last.key === key &&
    last.text === probe.capture.text &&
    last.ansi === probe.capture.ansi
  ) {
    const capture: { text: string; ansi?: string } = { text: last.text };
    if (last.ansi !== undefined) capture.ansi = last.ansi;
    return { out: { ...probe, capture, unchanged: true }, last };
  }
  return {
    out: { ...probe, unchanged: false },
    last: { text: probe.capture.text, ansi: probe.capture.ansi, key },
  };
}
