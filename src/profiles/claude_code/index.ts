import type { ProfileResult } from '../../schemas/signals.js';
import { pickVersioned, type Versioned } from '../internal/version.js';
import type { ProfileFactory, Screen, ToolProfile } from '../types.js';
import { parseClaudeCodeV2 } from './parse-v2.js';

interface ClaudeParser extends Versioned {
  /** Version label used in evidence. */
  label: string;
  parse(screen: Screen, label: string): ProfileResult;
}

/** Newest first; the first parser that covers the version wins, the newest when unknown. */
const PARSERS: readonly ClaudeParser[] = [
  { label: '2.1', covers: (major) => major >= 2, parse: parseClaudeCodeV2 },
];

/**
 * The Claude Code profile: reads the prompt box, the spinner status line above it, the footer
 * hints and the latest turn of the transcript. Verified against Claude Code 2.1.330.
 */
export const createClaudeCodeProfile: ProfileFactory = (toolVersion?: string): ToolProfile => {
  const parser = pickVersioned(PARSERS, toolVersion);
  return {
    id: 'claude_code',
    verifiedVersions: '2.1.330',
    processNames: ['claude'],
    interruptKeys: ['Escape'],
    submitKeys: ['Enter'],
    parse: (screen) => parser.parse(screen, parser.label),
  };
};
