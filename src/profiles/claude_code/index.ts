import type { ProfileResult } from '../../schemas/signals.js';
import type { ProfileFactory, Screen, ToolProfile } from '../types.js';
import { parseClaudeCodeV2 } from './parse-v2.js';

interface ClaudeParser {
  /** Version label used in evidence and `verifiedVersions`. */
  label: string;
  /** True when this parser reads screens of that CLI version. */
  covers(major: number, minor: number): boolean;
  parse(screen: Screen, label: string): ProfileResult;
}

/** Newest first; the first parser that covers the version wins, the newest when unknown. */
const PARSERS: readonly ClaudeParser[] = [
  { label: '2.1', covers: (major) => major >= 2, parse: parseClaudeCodeV2 },
];

function pickParser(toolVersion?: string): ClaudeParser {
  const m = toolVersion ? /^(\d+)\.(\d+)/.exec(toolVersion) : null;
  if (m) {
    const found = PARSERS.find((p) => p.covers(Number(m[1]), Number(m[2])));
    if (found) return found;
  }
  return PARSERS[0]!;
}

/**
 * The Claude Code profile: reads the prompt box, the spinner status line above it, the footer
 * hints and the latest turn of the transcript. Verified against Claude Code 2.1.330.
 */
export const createClaudeCodeProfile: ProfileFactory = (toolVersion?: string): ToolProfile => {
  const parser = pickParser(toolVersion);
  return {
    id: 'claude_code',
    verifiedVersions: '2.1.330',
    processNames: ['claude'],
    interruptKeys: ['Escape'],
    submitKeys: ['Enter'],
    parse: (screen) => parser.parse(screen, parser.label),
  };
};
