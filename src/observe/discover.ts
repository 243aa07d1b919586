import { isPanewardError, PanewardError } from '../errors.js';
import type { PanewardErrorCode } from '../errors.js';
import type { Target } from '../schemas/target.js';
import { probePane } from './probe.js';
import type { PaneInfo, PaneProbe } from './probe.js';
import { matchTree, readProcessTable, readProcessTree, treeFromTable } from './process.js';
import type { TreeProcess } from './process.js';
import type { TmuxRunOptions, TmuxTransport } from './transport.js';
import { withoutSeparators } from './tmux-locale.js';

/** A profile as discovery needs it. */
export interface DiscoverProfile {
  id: string;
  processNames: readonly string[];
}

/** A pane running a known tool. */
export interface DiscoveredPane {
  /** Pane id, `%N`. */
  paneId: string;
  /** `session:window.pane` by indexes. */
  target: string;
  /** The pane's session and window names (a discovered terminal is named after them). */
  session: string;
  windowName: string;
  /** The id of the first profile whose process runs under the pane. */
  tool: string;
  /** The pids that matched that profile's process names. */
  pids: number[];
}

/** One row of `list-panes -a`. */
export interface PaneRow {
  paneId: string;
  target: string;
  session: string;
  windowName: string;
  pid: number;
  dead: boolean;
  currentCommand: string;
}

const FIELDS = [
  '#{pane_id}',
  '#{session_name}',
  '#{window_index}',
  '#{pane_index}',
  '#{pane_pid}',
  '#{pane_dead}',
  '#{window_name}',
  '#{pane_current_command}',
].join('\t');

/** Lists every pane of the server (one tmux call). */
export async function listPanes(
  transport: TmuxTransport,
  opts: TmuxRunOptions = {},
): Promise<PaneRow[]> {
  const stdout = await transport.run(['list-panes', '-a', '-F', FIELDS], opts);
  const rows: PaneRow[] = [];
  for (const line of stdout.split('\n')) {
    if (line === '') continue;
    // Fields and names that came through as `_` would otherwise read as no panes at all.
    if (!line.includes('\t')) {
      throw new PanewardError('tmux_failed', withoutSeparators('list-panes', line));
    }
    const [paneId, session, window, pane, pid, dead, windowName, ...command] = line.split('\t');
    if (!paneId?.startsWith('%') || pid === undefined) continue;
    rows.push({
      paneId,
      target: `${session}:${window}.${pane}`,
      session: session ?? '',
      windowName: windowName ?? '',
      pid: Number(pid),
      dead: dead === '1',
      currentCommand: command.join('\t'),
    });
  }
  return rows;
}

/**
 * Lists the server's panes and, for each live pane, names the first profile whose process runs
 * under it. Panes running none of them are left out; no server running means no panes. Rejects
 * with the transport's other errors (`tmux_timeout`, `tmux_failed`, `aborted`), and with
 * `internal` when /proc cannot be read.
 */
export async function discoverPanes(
  transport: TmuxTransport,
  profiles: readonly DiscoverProfile[],
  opts: TmuxRunOptions = {},
): Promise<DiscoveredPane[]> {
  let panes: PaneRow[];
  try {
    panes = await listPanes(transport, opts);
  } catch (error) {
    if (isPanewardError(error) && error.code === 'tmux_missing') return [];
    throw error;
  }
  const table = await readProcessTable();
  const found: DiscoveredPane[] = [];
  for (const pane of panes) {
    if (pane.dead) continue;
    // Each pane's tree (and every argv in it) is read once, whatever the number of profiles.
    const match = firstMatch(await treeFromTable(table, pane.pid), profiles);
    if (match) {
      const { paneId, target, session, windowName } = pane;
      found.push({ paneId, target, session, windowName, ...match });
    }
  }
  return found;
}

/** One pane and the tool running in it. */
export interface PaneTool {
  /** The pane as tmux reported it. */
  pane: PaneInfo;
  /** The id of the first profile whose process runs under the pane; null when none does. */
  tool: string | null;
  /** The pids that matched that profile's process names (empty when `tool` is null). */
  pids: number[];
}

/**
 * Names the tool running in one pane: one tmux call for the pane's pid, then one look at the
 * processes under that pane only (none with no profiles: that only checks the pane exists). A
 * dead pane runs no tool. Rejects with `tmux_missing` when the pane or the server does not
 * exist, `tmux_timeout`, `tmux_failed` or `aborted` when tmux could not be asked, and
 * `internal` when /proc cannot be read.
 */
export async function detectPaneTool(
  transport: TmuxTransport,
  target: Target,
  profiles: readonly DiscoverProfile[],
  opts: TmuxRunOptions = {},
): Promise<PaneTool> {
  const probe = await probePane(transport, target, {
    processNames: [],
    signal: opts.signal,
    timeoutMs: opts.timeoutMs,
  });
  const pane = probe.pane;
  if (!pane) throw paneError(target, probe);
  if (pane.dead || profiles.length === 0) return { pane, tool: null, pids: [] };
  const tree = await readProcessTree(pane.pid);
  if (opts.signal?.aborted) {
    throw new PanewardError('aborted', 'tool detection aborted', { cause: opts.signal.reason });
  }
  return { pane, ...(firstMatch(tree, profiles) ?? { tool: null, pids: [] }) };
}

function firstMatch(
  tree: readonly TreeProcess[],
  profiles: readonly DiscoverProfile[],
): { tool: string; pids: number[] } | null {
  for (const profile of profiles) {
    const pids = matchTree(tree, profile.processNames);
    if (pids.length > 0) return { tool: profile.id, pids };
  }
  return null;
}

const PASSED_ON: ReadonlySet<string> = new Set(['tmux_timeout', 'tmux_failed', 'aborted']);

function paneError(target: string, probe: PaneProbe): PanewardError {
  const kind = probe.error?.kind ?? '';
  const code: PanewardErrorCode =
    probe.transport === 'tmux_missing'
      ? 'tmux_missing'
      : PASSED_ON.has(kind)
        ? (kind as PanewardErrorCode)
        : 'tmux_failed';
  const why = probe.error?.message ?? 'unknown failure';
  return new PanewardError(code, `cannot read tmux pane ${target}: ${why}`, {
    details: probe.error,
  });
}
