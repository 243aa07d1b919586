import { claudeCodeSessionRecord } from './claude_code/session-record.js';
import { clineSessionRecord } from './cline/session-record.js';
import { codexSessionRecord } from './codex/session-record.js';
import { copilotSessionRecord } from './copilot/session-record.js';
import { geminiCliSessionRecord } from './gemini_cli/session-record.js';
import { qwenCodeSessionRecord } from './qwen_code/session-record.js';
import type { SessionRecordReader } from './session-record.js';

export type {
  RecordedEnding,
  RecordEvent,
  RecordPosition,
  RecordReading,
  RecordReply,
  SessionContext,
  SessionRecordReader,
} from './session-record.js';

/**
 * The session-record reader of each CLI that writes a record paneward can read, by profile id
 * (docs/profiles.md). A CLI without one is witnessed by its screen alone.
 */
export const SESSION_RECORDS: Readonly<Record<string, SessionRecordReader>> = {
  claude_code: claudeCodeSessionRecord,
  cline: clineSessionRecord,
  codex: codexSessionRecord,
  copilot: copilotSessionRecord,
  gemini_cli: geminiCliSessionRecord,
  qwen_code: qwenCodeSessionRecord,
};

/** The session-record reader for a tool id, if it has one. */
export function sessionRecordReader(tool: string): SessionRecordReader | undefined {
  return SESSION_RECORDS[tool];
}
