/** A tool paneward can recognise by its process. */
export interface KnownTool {
  /** Profile id. */
  id: string;
  /** Process names that mean the tool runs (see `matchesProcessName`). */
  processNames: readonly string[];
}

/** The agent CLIs recognised by process name, in detection order. */
export const KNOWN_TOOLS: readonly KnownTool[] = [
  { id: 'claude_code', processNames: ['claude'] },
  { id: 'codex', processNames: ['codex'] },
  { id: 'gemini_cli', processNames: ['gemini'] },
];

/** The profile id used when no known tool runs in a pane. */
export const UNSUPPORTED_TOOL = 'unsupported';

/** Process names for a tool id; empty for unknown ids (the tool is then unsupported). */
export function processNamesFor(toolId: string): readonly string[] {
  return KNOWN_TOOLS.find((t) => t.id === toolId)?.processNames ?? [];
}
