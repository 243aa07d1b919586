import { createClaudeCodeProfile } from './claude_code/index.js';
import { createClineProfile } from './cline/index.js';
import { createCodexProfile } from './codex/index.js';
import { createCopilotProfile } from './copilot/index.js';
import { createGeminiCliProfile } from './gemini_cli/index.js';
import { createGrokCliProfile } from './grok_cli/index.js';
import {
  isNewerThanVerified,
  isVerified,
  type CliParts,
  type ShippedProfile,
} from './internal/define.js';
import { createKiloProfile } from './kilo/index.js';
import { createOpencodeProfile } from './opencode/index.js';
import { createPiProfile } from './pi/index.js';
import { createQwenCodeProfile } from './qwen_code/index.js';
import type { ProfileFactory, ProfileOptions, ToolProfile } from './types.js';
import { createUnsupportedProfile } from './unsupported/index.js';

export type {
  HookMechanism,
  ProfileFactory,
  ProfileOptions,
  Screen,
  ToolProfile,
} from './types.js';
export type { CliParts, ShippedProfile } from './internal/define.js';
export { compareVersions } from './internal/define.js';

/**
 * Every CLI paneward ships. Adding one is its folder (screen reader, vocabulary, questions,
 * launch recipe, session record reader, hook mechanism, all named by its `defineProfile`) and
 * one line here: the launch recipes, the session record readers and the hooks are read from it.
 */
export const SHIPPED: readonly ShippedProfile[] = [
  createClaudeCodeProfile,
  createCodexProfile,
  createGeminiCliProfile,
  createOpencodeProfile,
  createKiloProfile,
  createQwenCodeProfile,
  createCopilotProfile,
  createPiProfile,
  createGrokCliProfile,
  createClineProfile,
];

/** Every profile paneward ships, by id, and the generic one for a pane of no known CLI. */
export const PROFILES: Readonly<Record<string, ProfileFactory>> = {
  ...Object.fromEntries(SHIPPED.map((f) => [f.cli.id, f])),
  unsupported: createUnsupportedProfile,
};

/** The parts of a shipped CLI beside its screens; null for an id paneward does not ship. */
export function cliParts(tool: string): CliParts | null {
  return SHIPPED.find((f) => f.cli.id === tool)?.cli ?? null;
}

/** The profile for a tool id and version; unknown ids fall back to the generic profile. */
export function getProfile(
  tool: string,
  toolVersion?: string,
  options?: ProfileOptions,
): ToolProfile {
  const key = `${tool}\0${toolVersion ?? ''}\0${options?.verifiedOnly === true ? 1 : 0}`;
  let profile = made.get(key);
  if (!profile) {
    // Versions come from attach requests and panes: a bounded number of them is kept.
    if (made.size >= MADE_MAX) made.clear();
    profile = (PROFILES[tool] ?? createUnsupportedProfile)(toolVersion, options);
    made.set(key, profile);
  }
  return profile;
}

/**
 * Profiles made, by tool, version and options. A profile is pure (its parse reads only the
 * screen), so the terminals of one tool and version share one: a profile object with its
 * parse closure took about 700 bytes per terminal.
 */
const made = new Map<string, ToolProfile>();
const MADE_MAX = 256;

/** Process names per known tool, for discovering panes that run an agent. */
export function knownTools(): Array<{ id: string; processNames: readonly string[] }> {
  return Object.entries(PROFILES)
    .map(([id, factory]) => ({ id, processNames: factory().processNames }))
    .filter((t) => t.processNames.length > 0);
}

/** The exact versions of a tool whose screens were recorded and verified (empty: none). */
export function verifiedVersionsOf(tool: string): readonly string[] {
  let versions = verifiedByTool.get(tool);
  if (!versions) {
    const factory = PROFILES[tool];
    versions = factory ? (factory().verified ?? []) : [];
    verifiedByTool.set(tool, versions);
  }
  return versions;
}

/** The verified versions of each shipped tool, read once (the public state asks per publish). */
const verifiedByTool = new Map<string, readonly string[]>();

/**
 * The public state's `toolVersionVerified`: whether the version is one the tool's profile was
 * verified against; null while the version is not known, and for a tool paneward verified no
 * release of (a profile of the caller's, `unsupported`): no claim either way.
 */
export function toolVersionVerified(tool: string, toolVersion: string | null): boolean | null {
  const verified = verifiedVersionsOf(tool);
  return toolVersion === null || verified.length === 0 ? null : isVerified(verified, toolVersion);
}

/**
 * Whether `toolVersion` is one the tool's profile was verified against. A newer (or older)
 * version is read with the nearest vocabulary but is not verified: its screens may have changed.
 */
export function isVerifiedVersion(tool: string, toolVersion: string | undefined): boolean {
  return isVerified(verifiedVersionsOf(tool), toolVersion);
}

/**
 * Whether `toolVersion` is newer than every version the tool's profile was verified against:
 * its screens are then read with the newest vocabulary, unverified (or not at all under the
 * strict gate, `verifiedOnly`).
 */
export function isNewerThanVerifiedVersion(tool: string, toolVersion: string | undefined): boolean {
  return isNewerThanVerified(verifiedVersionsOf(tool), toolVersion);
}
