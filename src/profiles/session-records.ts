import { SHIPPED } from './index.js';
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
export const SESSION_RECORDS: Readonly<Record<string, SessionRecordReader>> = Object.fromEntries(
  SHIPPED.flatMap((f) => (f.cli.sessionRecord ? [[f.cli.id, f.cli.sessionRecord]] : [])),
);

/** The session-record reader for a tool id, if it has one. */
export function sessionRecordReader(tool: string): SessionRecordReader | undefined {
  return Object.hasOwn(SESSION_RECORDS, tool) ? SESSION_RECORDS[tool] : undefined;
}
