import { isPanewardError } from '../errors.js';
import type { TmuxRunOptions, TmuxTransport } from './transport.js';
import { findProcessesInTree, readProcessTable } from './process.js';

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
  /** The id of the first profile whose process runs under the pane. */
  tool: string;
  /** The pids that matched that profile's process names. */
  pids: number[];
}

/** One row of `list-panes -a`. */
export interface PaneRow {
  paneId: string;
  target: string;
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
    const [paneId, session, window, pane, pid, dead, ...command] = line.split('\t');
    if (!paneId?.startsWith('%') || pid === undefined) continue;
    rows.push({
      paneId,
      target: `${session}:${window}.${pane}`,
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
 * with the transport's other errors (`tmux_timeout`, `tmux_failed`, `aborted`).
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
    for (const profile of profiles) {
      const match = await findProcessesInTree(table, pane.pid, profile.processNames);
      if (match.pids.length > 0) {
        found.push({
          paneId: pane.paneId,
          target: pane.target,
          tool: profile.id,
          pids: match.pids,
        });
        break;
      }
    }
  }
  return found;
}
