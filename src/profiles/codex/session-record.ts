import { join } from 'node:path';
import {
  kindName,
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
 * Codex's rollout file: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`, one
 * JSON object per line (`{timestamp, type, payload}`), appended as the thread runs. The first line
 * (`session_meta`) names the thread's working folder and when the thread started. A turn is
 * `event_msg` `task_started` ... `task_complete` (with an `error` when the model request failed)
 * or `turn_aborted` (`reason: "interrupted"` after Escape). Verified on Codex 0.169.0 and 0.171.0
 * (the same place and format in both; docs/session-records.md).
 */

/** Line types that say nothing about a turn's start or end. */
const QUIET_LINE_TYPES = new Set([
  'session_meta',
  'response_item',
  'turn_context',
  'world_state',
  'token_usage_record',
  'compacted',
]);

/**
 * `event_msg` payload types that say nothing about a turn's start or end: the ones the verified
 * version writes between `task_started` and the turn's end, and the protocol's other progress
 * events.
 */
const QUIET_EVENTS = new Set([
  'thread_settings_applied',
  'item_started',
  'item_completed',
  'token_count',
  'user_message',
  'agent_message',
  'agent_reasoning',
  'agent_reasoning_raw_content',
  'agent_reasoning_section_break',
  'context_compacted',
  'entered_review_mode',
  'exited_review_mode',
  'plan_update',
  'turn_diff',
  'exec_command_begin',
  'exec_command_end',
  'patch_apply_begin',
  'patch_apply_end',
  'mcp_tool_call_begin',
  'mcp_tool_call_end',
  'web_search_begin',
  'web_search_end',
  'view_image_tool_call',
  'background_event',
  'thread_rolled_back',
]);

const folderOf = (context: SessionContext) =>
  envFolder(context, 'CODEX_HOME') ?? join(homeOf(context), '.codex');

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Rollout files in the day folders from the day before the process started on. */
async function rolloutFiles(sessions: string, sinceMs: number): Promise<string[]> {
  const first = day(sinceMs - 86_400_000);
  const files: string[] = [];
  for (const y of await namesIn(sessions)) {
    if (!/^\d{4}$/.test(y) || y < first.slice(0, 4)) continue;
    for (const m of await namesIn(join(sessions, y))) {
      if (!/^\d{2}$/.test(m) || `${y}-${m}` < first.slice(0, 7)) continue;
      for (const d of await namesIn(join(sessions, y, m))) {
        if (!/^\d{2}$/.test(d) || `${y}-${m}-${d}` < first) continue;
        for (const name of await namesIn(join(sessions, y, m, d))) {
          if (/^rollout-.*\.jsonl$/.test(name)) files.push(join(sessions, y, m, d, name));
        }
      }
    }
  }
  return files;
}

/** The thread a rollout file records, from its `session_meta` line. */
async function threadOf(
  file: string,
): Promise<{ id: string; cwd: string; startedAtMs: number } | null> {
  const line = await firstLine(file);
  const meta = line === null ? null : jsonObject(line);
  if (meta?.type !== 'session_meta') return null;
  const payload = meta.payload as Record<string, unknown> | undefined;
  const startedAtMs = isoMs(payload?.timestamp) ?? isoMs(meta.timestamp);
  if (typeof payload?.cwd !== 'string' || startedAtMs === undefined) return null;
  const id = typeof payload.id === 'string' ? payload.id : '';
  return { id, cwd: payload.cwd, startedAtMs };
}

/** When a thread started, from its id (a UUID v7 begins with its creation time in ms). */
export function threadStartMs(id: string): number | undefined {
  const hex = id.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/i.test(hex) || hex[12] !== '7') return undefined;
  return parseInt(hex.slice(0, 12), 16);
}

async function locate(context: SessionContext): Promise<string | null> {
  const starts = await processStarts(context);
  const since = sessionsSince(context, starts);
  const home = folderOf(context);
  const sessions: StartedSession[] = [];
  const recorded = new Set<string>();
  for (const file of await rolloutFiles(join(home, 'sessions'), since)) {
    const written = await modifiedAt(file);
    if (written === null || written < since) continue;
    const thread = await threadOf(file);
    if (!thread) continue;
    recorded.add(thread.id);
    if (thread.cwd === context.cwd) sessions.push({ file, startedAtMs: thread.startedAtMs });
  }
  // The TUI announces each thread it starts here, before its rollout file exists (that waits
  // for the thread's first prompt): a thread not recorded yet may be a pane's in this folder,
  // so it keeps its place when the sessions are handed out to the panes.
  const announced = join(home, 'tui-thread-reference-capabilities');
  for (const id of await namesIn(announced)) {
    const startedAtMs = threadStartMs(id);
    if (startedAtMs === undefined || startedAtMs < since || recorded.has(id)) continue;
    sessions.push({ file: join(announced, id), startedAtMs });
  }
  const mine = pickSession(sessions, context, starts);
  return mine && !mine.file.startsWith(announced) ? mine.file : null;
}

function read(piece: string, position: RecordPosition): RecordReading {
  const line = jsonObject(piece);
  if (!line || typeof line.type !== 'string') return { unknown: 'not a rollout line' };
  if (QUIET_LINE_TYPES.has(line.type)) return { events: [] };
  if (line.type !== 'event_msg') return { unknown: `line type ${named(line.type)}` };
  const payload = line.payload as Record<string, unknown> | null | undefined;
  const event = payload?.type;
  if (typeof event !== 'string') return { unknown: 'event_msg without a payload type' };
  if (QUIET_EVENTS.has(event)) return { events: [] };
  const atMs = isoMs(line.timestamp);
  const at = atMs === undefined ? {} : { atMs };
  const one = (e: RecordEvent): RecordReading => ({ events: [e] });
  switch (event) {
    case 'task_started':
      return one({ type: 'turn_started', event, position, ...at });
    case 'task_complete': {
      const error = payload?.error as Record<string, unknown> | null | undefined;
      if (error === undefined || error === null) {
        return one({ type: 'turn_ended', ending: { reason: 'success' }, event, position, ...at });
      }
      // A unit variant is a string (`other`, `internal_server_error`), one with data an object
      // keyed by the variant's name.
      const info = error.codex_error_info;
      const variant =
        typeof info === 'string'
          ? info
          : info !== null && typeof info === 'object'
            ? Object.keys(info)[0]
            : undefined;
      const kind = kindName(variant, 'error');
      return one({
        type: 'turn_ended',
        ending: { reason: 'known_failure', kind },
        event,
        position,
        ...at,
      });
    }
    case 'turn_aborted':
      if (payload?.reason !== 'interrupted') {
        return { unknown: `turn_aborted with reason ${named(payload?.reason)}` };
      }
      return one({ type: 'turn_ended', ending: { reason: 'interrupted' }, event, position, ...at });
    default:
      return { unknown: `event_msg ${named(event)}` };
  }
}

/** The reply of a finished task: `task_complete` names its last agent message. */
function reply(piece: string): RecordReply | null {
  const line = jsonObject(piece);
  const payload = line?.payload as Record<string, unknown> | null | undefined;
  if (line?.type !== 'event_msg' || payload?.type !== 'task_complete') return null;
  const text = payload.last_agent_message;
  return typeof text === 'string' && text !== '' ? { text } : null;
}

/** Reads Codex's rollout file. */
export const codexSessionRecord: SessionRecordReader = {
  tool: 'codex',
  kind: 'jsonl',
  verifiedVersions: ['0.171.0', '0.169.0'],
  locate,
  read,
  reply,
};
