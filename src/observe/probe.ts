import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { isPanewardError } from '../errors.js';
import type { ProbeErrorInfo, ProcessOutcome, TransportOutcome } from '../schemas/probe.js';
import type { Target } from '../schemas/target.js';
import { withDeadline } from './internal/deadline.js';
import { findProcesses } from './process.js';
import type { TmuxTransport } from './transport.js';

/** What tmux reports about the probed pane. */
export interface PaneInfo {
  /** Pane id, `%N`. */
  id: string;
  /** The pid of the pane's first process. */
  pid: number;
  /** True when the pane's process exited and the pane remains (`remain-on-exit`). */
  dead: boolean;
  /** tmux's idea of the foreground command (`pane_current_command`). */
  currentCommand: string;
  width: number;
  height: number;
}

/** One probe of one pane (statecharts.md §6: transport and process outcomes, plus the capture). */
export interface PaneProbe {
  transport: TransportOutcome;
  process: ProcessOutcome;
  /** The screen; null when tmux could not be read. */
  capture: { text: string; ansi?: string } | null;
  pane: PaneInfo | null;
  /** Pids under the pane whose name matched `processNames` (empty unless `process` is `tui_up`). */
  pids: number[];
  error: ProbeErrorInfo | null;
  /** Wall time the probe took, in ms. */
  tookMs: number;
  /** Epoch ms when the sample was asked of tmux (frame sources set it; `probePane` does not). */
  sampledAt?: number;
  /** Why the frame source took this sample (see `SampleCause`). */
  cause?: SampleCause;
  /**
   * True when capture, pane facts and outcomes equal the previous sample of the same
   * subscription: a consumer may advance its clock instead of parsing the screen again. Set by
   * the control-mode source only; absent means unknown.
   */
  unchanged?: boolean;
}

/**
 * Why a frame source took a sample: `first` after subscribing; `poll` the polling source's
 * interval; `output` the pane printed; `flow` the pane floods and is captured every tick;
 * `lifecycle` a pane, window or session event (closed, resized, mode changed, client
 * re-attached); `process` a process under the pane started or ended; `refresh` the periodic
 * look at a quiet pane; `server` the tmux server went away.
 */
export type SampleCause =
  'first' | 'poll' | 'output' | 'flow' | 'lifecycle' | 'process' | 'refresh' | 'server';

/** Options for {@link probePane}. */
export interface ProbeOptions {
  /** Process names that mean the agent runs; empty means the tool is not supported. */
  processNames: readonly string[];
  /** Also capture with escapes (`capture-pane -e`). */
  includeAnsi?: boolean;
  signal?: AbortSignal;
  /** Per-call tmux timeout; the transport's default when omitted. */
  timeoutMs?: number;
  /**
   * How long the probe waits for the /proc inspection before reporting `probe_error`; default
   * 1000 ms. The inspection is not cancelled (it finishes in the background), and a probe can
   * only time out between its reads, which yield to the event loop.
   */
  inspectTimeoutMs?: number;
}

// Panes polled together share one scan of the whole process table (when the kernel does not
// list children) if it started at most this long ago: well under the default 500 ms poll.
const PROCESS_TABLE_MAX_AGE_MS = 200;

const PANE_FORMAT = [
  '#{pane_id}',
  '#{pane_pid}',
  '#{pane_dead}',
  '#{pane_width}',
  '#{pane_height}',
  '#{pane_current_command}',
].join('\t');

/**
 * Probes one pane with a single tmux invocation (pane facts and the capture, chained), then
 * inspects the processes under it. Never throws: every failure becomes an outcome.
 */
export async function probePane(
  transport: TmuxTransport,
  target: Target,
  options: ProbeOptions,
): Promise<PaneProbe> {
  const started = performance.now();
  const done = (p: Omit<PaneProbe, 'tookMs'>): PaneProbe => ({
    ...p,
    tookMs: Math.round((performance.now() - started) * 1000) / 1000,
  });

  // A fresh marker per probe: the screen cannot contain it by accident.
  const marker = `__paneward_${randomBytes(12).toString('hex')}__`;
  const args = [
    'display-message',
    '-p',
    '-t',
    target,
    PANE_FORMAT,
    ';',
    'display-message',
    '-p',
    marker,
    ';',
    'capture-pane',
    '-p',
    '-t',
    target,
  ];
  if (options.includeAnsi) {
    args.push(';', 'display-message', '-p', marker, ';', 'capture-pane', '-p', '-e', '-t', target);
  }

  let stdout: string;
  try {
    stdout = await transport.run(args, { signal: options.signal, timeoutMs: options.timeoutMs });
  } catch (error) {
    const missing = isPanewardError(error) && error.code === 'tmux_missing';
    return done({
      transport: missing ? 'tmux_missing' : 'probe_error',
      process: 'unknown',
      capture: null,
      pane: null,
      pids: [],
      error: errorInfo(error),
    });
  }

  const sections = splitSections(stdout, marker);
  const pane =
    sections.length === (options.includeAnsi ? 3 : 2) ? parsePaneInfo(sections[0] ?? '') : null;
  if (pane === null) {
    return done({
      transport: 'probe_error',
      process: 'unknown',
      capture: null,
      pane: null,
      pids: [],
      error: { kind: 'parse', message: 'unexpected tmux output' },
    });
  }
  const capture: { text: string; ansi?: string } = { text: sections[1] ?? '' };
  if (options.includeAnsi) capture.ansi = sections[2] ?? '';

  if (options.processNames.length === 0) {
    return done({
      transport: 'tmux_up',
      process: 'unsupported_tool',
      capture,
      pane,
      pids: [],
      error: null,
    });
  }
  if (pane.dead) {
    return done({
      transport: 'tmux_up',
      process: 'tui_down',
      capture,
      pane,
      pids: [],
      error: null,
    });
  }
  try {
    const match = await withDeadline(
      findProcesses(pane.pid, options.processNames, { maxAgeMs: PROCESS_TABLE_MAX_AGE_MS }),
      options.inspectTimeoutMs ?? 1000,
      'process inspection',
      options.signal,
    );
    const process: ProcessOutcome = match.pids.length > 0 ? 'tui_up' : 'tui_down';
    return done({ transport: 'tmux_up', process, capture, pane, pids: match.pids, error: null });
  } catch (error) {
    return done({
      transport: 'tmux_up',
      process: 'probe_error',
      capture,
      pane,
      pids: [],
      error: { kind: 'process_inspection', message: messageOf(error) },
    });
  }
}

/** Splits chained output on marker lines; each section loses exactly one final newline. */
function splitSections(stdout: string, marker: string): string[] {
  const sections: string[] = [];
  let rest = stdout;
  const sep = `${marker}\n`;
  for (;;) {
    const at = rest.startsWith(sep) ? 0 : rest.indexOf(`\n${sep}`);
    if (at < 0) break;
    sections.push(rest.slice(0, at));
    rest = rest.slice(at === 0 ? sep.length : at + 1 + sep.length);
  }
  sections.push(rest.endsWith('\n') ? rest.slice(0, -1) : rest);
  return sections;
}

function parsePaneInfo(line: string): PaneInfo | null {
  const [id, pid, dead, width, height, ...command] = line.split('\t');
  const info = {
    id: id ?? '',
    pid: Number(pid),
    dead: dead === '1',
    currentCommand: command.join('\t'),
    width: Number(width),
    height: Number(height),
  };
  if (!info.id.startsWith('%') || !Number.isInteger(info.width) || !Number.isInteger(info.height)) {
    return null;
  }
  return Number.isInteger(info.pid) ? info : null;
}

function errorInfo(error: unknown): ProbeErrorInfo {
  return { kind: isPanewardError(error) ? error.code : 'internal', message: messageOf(error) };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
