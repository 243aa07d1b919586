import { createHash } from 'node:crypto';
import { join } from 'node:path';
import {
  named,
  type RecordEvent,
  type RecordPosition,
  type RecordReading,
  type RecordReply,
  type SessionContext,
  type SessionRecordReader,
} from '../session-record.js';
import {
  envFolder,
  firstLine,
  homeOf,
  isoMs,
  jsonObject,
  modifiedAt,
  namesIn,
  pickSession,
  processStarts,
  sessionsSince,
  type StartedSession,
} from '../record-files.js';

/**
 * Gemini CLI's chat record: `~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl` (the home is
 * `GEMINI_CLI_HOME` when set), created when the CLI starts. The first line is the session's
 * header (`sessionId`, `projectHash` = SHA-256 of the working folder, `startTime`); after it each
 * line is either a message (`user`, `gemini`, `info`, `error`, `warning`) or an update of the
 * header (`{"$set": ...}`, `{"$rewindTo": ...}`).
 *
 * What the record decides: a turn starts with a `user` message carrying the prompt's text; it
 * ends `interrupted` with the `info` message `Request cancelled.` and as a `known_failure` with an
 * `error` message. A `gemini` message is written when the model's reply has streamed, before its
 * tool calls are even recorded, so it does not tell a finished reply from one waiting for a tool
 * or for the user's approval: success is left to the screen. Verified on Gemini CLI 0.61.0
 * (docs/session-records.md).
 */

/** The message the CLI records when the user cancels a turn (Escape). */
const CANCELLED = 'Request cancelled.';

/** Message types that say nothing about a turn's start or end. */
const QUIET_MESSAGES = new Set(['gemini', 'warning']);

/** Header updates: the last update time, a summary, the message list rewritten or rewound. */
const HEADER_UPDATES = new Set(['$set', '$rewindTo']);

const tmpOf = (context: SessionContext) =>
  join(envFolder(context, 'GEMINI_CLI_HOME') ?? homeOf(context), '.gemini', 'tmp');

const projectHash = (cwd: string) => createHash('sha256').update(cwd).digest('hex');

async function locate(context: SessionContext): Promise<string | null> {
  const starts = await processStarts(context);
  const since = sessionsSince(context, starts);
  const hash = projectHash(context.cwd);
  const tmp = tmpOf(context);
  const sessions: StartedSession[] = [];
  for (const project of await namesIn(tmp)) {
    const chats = join(tmp, project, 'chats');
    for (const name of await namesIn(chats)) {
      if (!/^session-.*\.jsonl$/.test(name)) continue;
      const file = join(chats, name);
      const written = await modifiedAt(file);
      if (written === null || written < since) continue;
      const line = await firstLine(file);
      const header = line === null ? null : jsonObject(line);
      const startedAtMs = isoMs(header?.startTime);
      if (header?.projectHash !== hash || startedAtMs === undefined) continue;
      if (header.kind !== undefined && header.kind !== 'main') continue;
      sessions.push({ file, startedAtMs });
    }
  }
  return pickSession(sessions, context, starts)?.file ?? null;
}

/** A `user` message typed by the user (text), not a tool's result handed back to the model. */
function isPrompt(content: unknown): boolean {
  if (typeof content === 'string') return true;
  if (!Array.isArray(content)) return false;
  const parts = content as Array<Record<string, unknown> | null>;
  return (
    parts.some((p) => typeof p?.text === 'string') &&
    !parts.some((p) => p !== null && typeof p === 'object' && 'functionResponse' in p)
  );
}

/** The HTTP status an `[API Error: ...]` message names, as `http_<status>`. */
function failureKind(content: unknown): string {
  const text = typeof content === 'string' ? content : '';
  const status = text.match(/"code"\s*:\s*(\d{3})\b/)?.[1] ?? text.match(/\bstatus (\d{3})\b/)?.[1];
  return status ? `http_${status}` : 'api_error';
}

function read(piece: string, position: RecordPosition): RecordReading {
  const line = jsonObject(piece);
  if (!line) return { unknown: 'not a JSON object' };
  const updates = Object.keys(line).filter((k) => k.startsWith('$'));
  if (updates.length > 0) {
    const odd = updates.filter((k) => !HEADER_UPDATES.has(k));
    return odd.length === 0 ? { events: [] } : { unknown: `header update ${named(odd[0])}` };
  }
  if (line.type === undefined && typeof line.sessionId === 'string') return { events: [] };
  if (typeof line.type !== 'string') return { unknown: 'a line without a type' };
  const event = line.type;
  const atMs = isoMs(line.timestamp);
  const at = atMs === undefined ? {} : { atMs };
  const one = (e: RecordEvent): RecordReading => ({ events: [e] });
  switch (event) {
    case 'user':
      return isPrompt(line.content)
        ? one({ type: 'turn_started', event, position, ...at })
        : { events: [] };
    case 'info':
      return line.content === CANCELLED
        ? one({ type: 'turn_ended', ending: { reason: 'interrupted' }, event, position, ...at })
        : { events: [] };
    case 'error':
      return one({
        type: 'turn_ended',
        ending: { reason: 'known_failure', kind: failureKind(line.content) },
        event,
        position,
        ...at,
      });
    default:
      return QUIET_MESSAGES.has(event)
        ? { events: [] }
        : { unknown: `message type ${named(event)}` };
  }
}

/** A `gemini` message's text (written again with the same id once its tools ran: it replaces). */
function reply(piece: string): RecordReply | null {
  const line = jsonObject(piece);
  if (line?.type !== 'gemini' || typeof line.content !== 'string' || line.content === '') {
    return null;
  }
  return { text: line.content, ...(typeof line.id === 'string' ? { messageId: line.id } : {}) };
}

/** Reads Gemini CLI's chat record. */
export const geminiCliSessionRecord: SessionRecordReader = {
  tool: 'gemini_cli',
  kind: 'jsonl',
  verifiedVersions: ['0.61.0'],
  endings: ['interrupted', 'known_failure'],
  locate,
  read,
  reply,
};
