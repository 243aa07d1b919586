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
  processTree,
  readSmallFile,
  sessionsSince,
  type StartedSession,
} from '../record-files.js';

/**
 * Qwen Code's chat record: `<runtime>/projects/<folder>/chats/<session id>.jsonl`, where
 * `<runtime>` is `QWEN_RUNTIME_DIR`, else `QWEN_HOME`, else `~/.qwen`, and `<folder>` is the
 * working folder with every character other than a letter or digit replaced by `-`. The file is
 * created with the session's first prompt and appended to; each line has a `type` (`user`,
 * `assistant`, `tool_result`, `system` with a `subtype`). The session id is known from the CLI's
 * start: it writes `<runtime>/debug/<session id>.txt` then, each line starting with a time stamp.
 *
 * What the record decides: a turn starts with a `user` line carrying the prompt's text; it ends
 * `success` with an `assistant` line that asks for no tool and carries the reply's usage (written
 * once the stream has ended), and as a `known_failure` with the `ui_telemetry` event
 * `qwen-code.api_error` of a status the CLI does not retry. A turn cancelled with Escape leaves
 * the partial reply as an `assistant` line without usage and no mark of the cancel, and an error
 * the CLI retries (429, 5xx) is recorded once per attempt with no mark of the last: both are left
 * to the screen. Verified on Qwen Code 0.24.4 and 0.15.10 (docs/session-records.md); 0.24
 * also names each running session by its pid in `<runtime>/sessions/<pid>.json`.
 */

/** `system` subtypes that say nothing about a turn's start or end. */
const QUIET_SUBTYPES = new Set([
  'attribution_snapshot',
  'file_history_snapshot',
  'slash_command',
  'at_command',
  'chat_compression',
  'custom_title',
]);

/** Statuses the CLI retries: an error with one of them is not yet the turn's end. */
const retried = (status: number) => status === 408 || status === 429 || status >= 500;

const runtimeOf = (context: SessionContext) =>
  envFolder(context, 'QWEN_RUNTIME_DIR') ??
  envFolder(context, 'QWEN_HOME') ??
  join(homeOf(context), '.qwen');

/** The folder name Qwen Code gives a working folder under `projects/`. */
export const qwenProjectFolder = (cwd: string) => cwd.replace(/[^a-zA-Z0-9]/g, '-');

/** When a session started, from the time stamp its debug log begins with. */
async function debugStart(file: string): Promise<number | undefined> {
  const line = await firstLine(file, 64 * 1024);
  return isoMs(line?.match(/^(\S+)\s/)?.[1]);
}

/**
 * 0.24 announces each running session in `<runtime>/sessions/<pid>.json`, named by the pid of
 * the CLI's process, with its `sessionId` and `cwd`: the record of this pane's process, whoever
 * prompted first (null until its first prompt writes it). Undefined where no process under the
 * pane announced one (releases before 0.24).
 */
async function announced(
  context: SessionContext,
  chats: string,
): Promise<string | null | undefined> {
  const sessions = join(runtimeOf(context), 'sessions');
  const names = new Set(await namesIn(sessions));
  if (names.size === 0) return undefined;
  for (const pid of await processTree(context.pid)) {
    if (!names.has(`${pid}.json`)) continue;
    const text = await readSmallFile(join(sessions, `${pid}.json`), 64 * 1024);
    const entry = text === null ? null : jsonObject(text);
    const id = entry?.sessionId;
    if (entry?.pid !== pid || typeof id !== 'string' || !/^[\w-]{1,128}$/.test(id)) continue;
    const file = join(chats, `${id}.jsonl`);
    if (context.claimed.has(file)) continue;
    // The record appears with the session's first prompt.
    return (await modifiedAt(file)) !== null ? file : null;
  }
  return undefined;
}

async function locate(context: SessionContext): Promise<string | null> {
  const chatsHere = join(runtimeOf(context), 'projects', qwenProjectFolder(context.cwd), 'chats');
  const byPid = await announced(context, chatsHere);
  if (byPid !== undefined) return byPid;
  const starts = await processStarts(context);
  const since = sessionsSince(context, starts);
  const runtime = runtimeOf(context);
  const projects = join(runtime, 'projects');
  const chats = join(projects, qwenProjectFolder(context.cwd), 'chats');
  const debug = join(runtime, 'debug');
  const debugNames = (await namesIn(debug)).filter((n) => /^[\w-]+\.txt$/.test(n));
  if (debugNames.length > 0) {
    // Sessions of every folder log here; one whose record is in another folder is not this one.
    const elsewhere = new Set<string>();
    for (const project of await namesIn(projects)) {
      if (project === qwenProjectFolder(context.cwd)) continue;
      for (const n of await namesIn(join(projects, project, 'chats'))) elsewhere.add(n);
    }
    const sessions: StartedSession[] = [];
    for (const name of debugNames) {
      const id = name.slice(0, -'.txt'.length);
      if (elsewhere.has(`${id}.jsonl`)) continue;
      const startedAtMs = await debugStart(join(debug, name));
      if (startedAtMs === undefined || startedAtMs < since) continue;
      sessions.push({ file: join(chats, `${id}.jsonl`), startedAtMs });
    }
    const file = pickSession(sessions, context, starts)?.file ?? null;
    // The record appears with the session's first prompt.
    return file !== null && (await modifiedAt(file)) !== null ? file : null;
  }
  // No debug logs: the records of this folder, by their first line's time.
  const sessions: StartedSession[] = [];
  for (const name of await namesIn(chats)) {
    if (!name.endsWith('.jsonl')) continue;
    const file = join(chats, name);
    const written = await modifiedAt(file);
    if (written === null || written < since) continue;
    const line = await firstLine(file);
    const startedAtMs = isoMs(line === null ? undefined : jsonObject(line)?.timestamp);
    if (startedAtMs !== undefined) sessions.push({ file, startedAtMs });
  }
  return pickSession(sessions, context, starts)?.file ?? null;
}

type Parts = Array<Record<string, unknown> | null> | undefined;

const partsOf = (line: Record<string, unknown>): Parts => {
  const message = line.message as Record<string, unknown> | null | undefined;
  return Array.isArray(message?.parts) ? (message.parts as Parts) : undefined;
};

const has = (parts: Parts, key: string) =>
  parts?.some((p) => p !== null && typeof p === 'object' && key in p) ?? false;

function read(piece: string, position: RecordPosition): RecordReading {
  const line = jsonObject(piece);
  if (!line || typeof line.type !== 'string') return { unknown: 'not a chat record line' };
  const event = line.type;
  const atMs = isoMs(line.timestamp);
  const at = atMs === undefined ? {} : { atMs };
  const one = (e: RecordEvent): RecordReading => ({ events: [e] });
  switch (event) {
    case 'user': {
      const parts = partsOf(line);
      if (!parts) return { unknown: 'user line without message parts' };
      return has(parts, 'text') && !has(parts, 'functionResponse')
        ? one({ type: 'turn_started', event, position, ...at })
        : { events: [] };
    }
    case 'assistant': {
      const parts = partsOf(line);
      if (!parts) return { unknown: 'assistant line without message parts' };
      if (has(parts, 'functionCall') || line.usageMetadata === undefined) return { events: [] };
      return one({ type: 'turn_ended', ending: { reason: 'success' }, event, position, ...at });
    }
    case 'tool_result':
      return { events: [] };
    case 'system': {
      const subtype = line.subtype;
      if (typeof subtype !== 'string') return { unknown: 'system line without a subtype' };
      if (QUIET_SUBTYPES.has(subtype)) return { events: [] };
      if (subtype !== 'ui_telemetry') return { unknown: `system ${named(subtype)}` };
      const payload = line.systemPayload as Record<string, unknown> | null | undefined;
      const ui = payload?.uiEvent as Record<string, unknown> | null | undefined;
      const name = ui?.['event.name'];
      if (typeof name !== 'string') return { unknown: 'ui_telemetry without an event name' };
      if (name !== 'qwen-code.api_error') return { events: [] };
      // Without a status (the connection failed) the CLI may retry too.
      const status = ui?.status_code;
      if (typeof status !== 'number' || retried(status)) return { events: [] };
      return one({
        type: 'turn_ended',
        ending: { reason: 'known_failure', kind: `http_${status}` },
        event: name,
        position,
        ...at,
      });
    }
    default:
      return { unknown: `line type ${named(event)}` };
  }
}

/** An `assistant` line's text parts (a line asking for a tool may carry text before it). */
function reply(piece: string): RecordReply | null {
  const line = jsonObject(piece);
  if (line?.type !== 'assistant') return null;
  const text = (partsOf(line) ?? [])
    .map((p) =>
      p !== null && typeof p === 'object' && typeof p.text === 'string' && p.thought !== true
        ? p.text
        : '',
    )
    .join('');
  return text === '' ? null : { text };
}

/** Reads Qwen Code's chat record. */
export const qwenCodeSessionRecord: SessionRecordReader = {
  tool: 'qwen_code',
  kind: 'jsonl',
  verifiedVersions: ['0.24.4', '0.15.10'],
  endings: ['success', 'known_failure'],
  locate,
  read,
  reply,
};
