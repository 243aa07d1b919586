import { pickVersioned, type Versioned } from '../internal/version.js';
import type { ProfileFactory, ToolProfile } from '../types.js';
import { parseCodexScreen } from './parse.js';
import { CODEX_0_169, type CodexStrings } from './screen.js';

interface CodexParser extends Versioned {
  /** Version label used in evidence. */
  label: string;
  strings: CodexStrings;
}

/** Newest first; the first parser that covers the version wins, the newest when unknown. */
const PARSERS: readonly CodexParser[] = [
  { label: '0.169', covers: (major, minor) => major > 0 || minor >= 169, strings: CODEX_0_169 },
];

/**
 * The Codex CLI profile: reads the composer (`›`), the status line above it, the footer, the
 * start-up folder trust question, any approval dialog, and the latest turn of the transcript.
 * Verified against Codex CLI 0.169.0.
 */
export const createCodexProfile: ProfileFactory = (toolVersion?: string): ToolProfile => {
  const parser = pickVersioned(PARSERS, toolVersion);
  return {
    id: 'codex',
    verifiedVersions: '0.169.0',
    processNames: ['codex'],
    interruptKeys: ['Escape'],
    submitKeys: ['Enter'],
    parse: (screen) => parseCodexScreen(screen, parser.strings, parser.label),
  };
};
