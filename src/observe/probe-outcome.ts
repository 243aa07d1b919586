import type { ProbeErrorInfo, ProcessOutcome } from '../schemas/probe.js';
import type { PaneInfo } from './types.js';

/** What an inspection of the processes under a pane found. */
export interface ProcessMatch {
  /** Pids whose name matched. */
  pids: number[];
  /** Every pid of the pane's process tree, when the inspection knows it. */
  tree?: number[];
}

/** The process outcome of one sample, with its evidence. */
export interface ProcessVerdict {
  process: ProcessOutcome;
  /** Pids that matched (empty unless `process` is `tui_up`). */
  pids: number[];
  error: ProbeErrorInfo | null;
  /**
   * The pane's process tree as this sample knows it: `[]` for a dead pane, the inspection's tree
   * when it ran and told one; absent when the sample says nothing about it (keep the last one).
   */
  tree?: number[];
}

/**
 * The one decision of whether a pane's agent process runs, shared by the polling probe and the
 * control-mode source; each passes its own way of inspecting /proc. No process names: the tool
 * is not supported. A dead pane (its first process exited, the pane kept): `tui_down` without
 * looking further, since after SIGKILL the screen still shows the dead TUI. Otherwise the
 * inspection decides: a matching process is `tui_up`, none is `tui_down`, and an inspection that
 * failed is `probe_error`, never a guess.
 */
export async function decideProcess(
  pane: PaneInfo,
  processNames: readonly string[],
  inspect: (pid: number, processNames: readonly string[]) => Promise<ProcessMatch>,
): Promise<ProcessVerdict> {
  if (processNames.length === 0) return { process: 'unsupported_tool', pids: [], error: null };
  if (pane.dead) return { process: 'tui_down', pids: [], error: null, tree: [] };
  let match: ProcessMatch;
  try {
    match = await inspect(pane.pid, processNames);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { process: 'probe_error', pids: [], error: { kind: 'process_inspection', message } };
  }
  const verdict: ProcessVerdict = {
    process: match.pids.length > 0 ? 'tui_up' : 'tui_down',
    pids: match.pids,
    error: null,
  };
  if (match.tree) verdict.tree = match.tree;
  return verdict;
}
