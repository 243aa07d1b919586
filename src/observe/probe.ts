import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { isPanewardError } from '../errors.js';
import type { ProbeErrorInfo } from '../schemas/probe.js';
import type { Target } from '../schemas/target.js';
import { withDeadline } from './internal/deadline.js';
import { decideProcess } from './probe-outcome.js';
import { findProcesses } from './process.js';
import { THEN, type TmuxArg } from './tmux-argv.js';
import type { TmuxTransport } from './transport.js';
import { unexpectedOutput } from './tmux-locale.js';
import type { PaneInfo, PaneProbe } from './types.js';

export type { PaneInfo, PaneProbe, SampleCause } from './types.js';

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
  const args: TmuxArg[] = [
    'display-message',
    '-p',
    '-t',
    target,
    PANE_FORMAT,
    THEN,
    'display-message',
    '-p',
    marker,
    THEN,
    'capture-pane',
    '-p',
    '-t',
    target,
  ];
  if (options.includeAnsi) {
    args.push(
      THEN,
      'display-message',
      '-p',
      marker,
      THEN,
      'capture-pane',
      '-p',
      '-e',
      '-t',
      target,
    );
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
      error: { kind: 'parse', message: unexpectedOutput(sections[0] ?? '') },
    });
  }
  const capture: { text: string; ansi?: string } = { text: sections[1] ?? '' };
  if (options.includeAnsi) capture.ansi = sections[2] ?? '';

  const verdict = await decideProcess(pane, options.processNames, (pid, names) =>
    withDeadline(
      findProcesses(pid, names, { maxAgeMs: PROCESS_TABLE_MAX_AGE_MS }),
      options.inspectTimeoutMs ?? 1000,
      'process inspection',
      options.signal,
    ),
  );
  return done({
    transport: 'tmux_up',
    process: verdict.process,
    capture,
    pane,
    pids: verdict.pids,
    error: verdict.error,
  });
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
