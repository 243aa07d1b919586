/**
 * What the environment asks of a live suite run, beyond the CLI's own set-up: `npm run drift`
 * runs the suites against a newer release and reads the journal they leave.
 *
 * - `PANEWARD_AGENT_BIN_<TOOL>` (see `agentBinVariable`): the executable to run instead of the
 *   pinned install. Its version is then read like any newer release would be: with the newest
 *   vocabulary (`readUnverifiedVersions`), not refused.
 * - `PANEWARD_LIVE_DATA_DIR`: the supervisor keeps its journal under `<dir>/<source>/` (kept
 *   after the run) instead of keeping none; its `unrecognised_screen` anomalies count the frames
 *   paneward could not read.
 */
import { join, resolve } from 'node:path';
import { agentBinOverride, agentBinVariable } from '../../../src/tooling/agents/chat-agent.js';

export interface LiveRunOptions {
  /** The executable the environment asks for, or undefined for the pinned install. */
  override: string | undefined;
  /** Where the supervisor keeps its journal (null: no journal, unless `fallback`). */
  dataDir: string | null;
  readUnverifiedVersions: boolean;
}

/** The run options of `tool`'s live suite observed through `source`. */
export function liveRunOptions(
  tool: string,
  source: string,
  fallbackDataDir: string | null = null,
  env: NodeJS.ProcessEnv = process.env,
): LiveRunOptions {
  const override = agentBinOverride(tool, env);
  const dir = env.PANEWARD_LIVE_DATA_DIR;
  return {
    override,
    dataDir: dir ? join(resolve(dir), source) : fallbackDataDir,
    readUnverifiedVersions: override !== undefined,
  };
}

/** Why a suite cannot honour the override: its set-up starts another executable. */
export function overrideIgnored(tool: string, bin: string): string | null {
  const override = agentBinOverride(tool);
  if (override === undefined || override === bin) return null;
  return `${agentBinVariable(tool)} is set, but the set-up of ${tool} starts ${bin}: it does not take the variable`;
}
