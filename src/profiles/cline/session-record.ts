import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isRegularFile, readSmallFile } from '../record-files.js';
import {
  named,
  type RecordEvent,
  type RecordPosition,
  type RecordReading,
  type RecordReply,
  type SessionContext,
  type SessionRecordReader,
  type SideContext,
  type SideRecordReader,
} from '../session-record.js';

/**
 * Cline CLI's session record (docs/session-records.md): `~/.cline/data/sessions/<id>/` holds
 * `<id>.json` (who runs the session: `pid`, `cwd`, `status`, `exit_code`) and
 * `<id>.messages.json`, one JSON document of the conversation the CLI rewrites as it goes.
 *
 * What the document can tell: a prompt typed by the user (a user message whose text is a
 * `<user_input …>` element), the reply that ends a run (an assistant message asking for no tool)
 * and a failure (an assistant message shown as an error). What it cannot: an interrupted reply is
 * not written at all (the prompt stays without an answer). That is told by Cline's own log
 * (`~/.cline/data/logs/cline.log`, one pino JSON line each, tagged with the writing `pid`):
 * `agent.run-finished` with `status` `aborted` (`completed` for a finished run). It also says
 * when each run started (`agent.run-started`), which the messages tell only as the run ends. The
 * log is one file for every Cline process of the home, so it is a side record: never claimed,
 * and only the lines of the pid that runs the pane's session count.
 */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Content part types of 3.0.65's messages. */
const PART_TYPES = new Set(['text', 'tool_use', 'tool_result']);

function readMessage(m: unknown, index: number, file: string): RecordEvent | 'none' | string {
  if (!isObject(m)) return `message ${index}: not an object`;
  const { role, content, ts } = m;
  if (typeof ts !== 'number') return `message ${index}: no \`ts\``;
  if (!Array.isArray(content)) return `message ${index}: no \`content\` list`;
  const types = new Set<string>();
  for (const part of content) {
    if (!isObject(part) || typeof part.type !== 'string') return `message ${index}: a bad part`;
    if (!PART_TYPES.has(part.type)) return `message ${index}: part type ${named(part.type)}`;
    types.add(part.type);
  }
  const position: RecordPosition = { file, offset: index };
  if (role === 'user') {
    if (types.has('tool_result')) return 'none';
    const typed = content.some(
      (p) =>
        isObject(p) &&
        p.type === 'text' &&
        typeof p.text === 'string' &&
        /^<user_input[\s>]/.test(p.text),
    );
    // Other user text (a note the CLI adds) decides nothing.
    return typed ? { type: 'turn_started', event: 'user_input', position, atMs: ts } : 'none';
  }
  if (role === 'assistant') {
    const metadata = m.metadata;
    if (metadata !== undefined && !isObject(metadata)) return `message ${index}: bad \`metadata\``;
    if (metadata?.displayRole === 'error') {
      return {
        type: 'turn_ended',
        ending: { reason: 'known_failure', kind: 'api_error' },
        event: 'error',
        position,
        atMs: ts,
      };
    }
    if (metadata?.displayOnly !== undefined || metadata?.displayRole !== undefined) {
      return `message ${index}: display-only ${named(metadata?.displayRole)}`;
    }
    if (types.has('tool_use')) return 'none';
    return {
      type: 'turn_ended',
      ending: { reason: 'success' },
      event: 'assistant',
      position,
      atMs: ts,
    };
  }
  return `message ${index}: role ${named(role)}`;
}

/** Reads the whole `<id>.messages.json` document: the events of every message so far. */
export function readClineRecord(piece: string, position: RecordPosition): RecordReading {
  let doc: unknown;
  try {
    doc = JSON.parse(piece);
  } catch {
    // The CLI rewrites the file in place: a read may catch it half written.
    return { unknown: 'not a JSON document' };
  }
  if (!isObject(doc)) return { unknown: 'not a JSON object' };
  if (doc.version !== 1) return { unknown: `version ${named(doc.version)}` };
  if (!Array.isArray(doc.messages)) return { unknown: 'no `messages` list' };
  const events: RecordEvent[] = [];
  for (const [i, m] of doc.messages.entries()) {
    const r = readMessage(m, i, position.file);
    if (typeof r === 'string') {
      if (r === 'none') continue;
      return { unknown: r };
    }
    events.push(r);
  }
  return { events };
}

/**
 * The reply of the document's last message, when that is one: an assistant message that asks for
 * no tool and is not an error, its text parts joined. Its offset is the message's index.
 */
export function clineReply(piece: string): RecordReply | null {
  let doc: unknown;
  try {
    doc = JSON.parse(piece);
  } catch {
    return null;
  }
  if (!isObject(doc) || doc.version !== 1 || !Array.isArray(doc.messages)) return null;
  const index = doc.messages.length - 1;
  const m: unknown = doc.messages[index];
  if (!isObject(m) || m.role !== 'assistant' || !Array.isArray(m.content)) return null;
  const meta = m.metadata;
  // An error shown as a message, or a note for display only, is no reply.
  if (meta !== undefined && (!isObject(meta) || meta.displayRole !== undefined)) return null;
  if (isObject(meta) && meta.displayOnly !== undefined) return null;
  const parts = m.content.filter(isObject);
  if (parts.some((p) => p.type === 'tool_use')) return null;
  const texts = parts.flatMap((p) =>
    p.type === 'text' && typeof p.text === 'string' ? [p.text] : [],
  );
  const text = texts.join('\n\n').trim();
  if (text === '') return null;
  return { text, offset: index, ...(typeof m.ts === 'number' ? { messageId: String(m.ts) } : {}) };
}

/** Where Cline keeps its data for a process with this environment. */
export function clineDataDir(env: Readonly<Record<string, string>>): string | null {
  return env.HOME ? join(env.HOME, '.cline', 'data') : null;
}

/**
 * The messages document of the session this process runs itself (`pid` in `<id>.json` is its
 * own, the session has not ended); null otherwise. A session run for it by Cline's hub daemon
 * names the daemon's pid, which several panes share: it is never guessed at. The daemon is a
 * child of the first pane's CLI, so only the pid itself counts, never its children's.
 */
export async function locateClineRecord(context: SessionContext): Promise<string | null> {
  const data = clineDataDir(context.env);
  if (!data) return null;
  const sessions = join(data, 'sessions');
  let ids: string[];
  try {
    ids = await readdir(sessions);
  } catch {
    return null;
  }
  const found: Array<{ file: string; startedAtMs: number }> = [];
  for (const id of ids) {
    // Read only if a regular file (never a FIFO or a device), and small.
    const text = await readSmallFile(join(sessions, id, `${id}.json`));
    let meta: unknown;
    try {
      meta = text === null ? null : JSON.parse(text);
    } catch {
      continue;
    }
    if (!isObject(meta) || typeof meta.pid !== 'number' || meta.pid !== context.pid) continue;
    if (meta.exit_code !== null && meta.exit_code !== undefined) continue;
    const startedAtMs = typeof meta.started_at === 'string' ? Date.parse(meta.started_at) : NaN;
    // A session older than the process belongs to an earlier holder of the pid.
    if (!(startedAtMs >= context.startedAtMs - 1000)) continue;
    const file = join(sessions, id, `${id}.messages.json`);
    if (context.claimed.has(file)) continue;
    if (await isRegularFile(file)) found.push({ file, startedAtMs });
  }
  found.sort((a, b) => b.startedAtMs - a.startedAtMs);
  return found[0]?.file ?? null;
}

/** `status` of 3.0.65's `agent.run-finished`: what each says of the turn. */
const RUN_FINISHED: Readonly<Record<string, RecordEvent['type'] | 'nothing'>> = {
  // A finished run: the messages record already tells its success (or its error).
  completed: 'nothing',
  aborted: 'turn_ended',
};

/**
 * Reads one line of Cline's log for the process in `context`. A line of another process is no
 * event, whatever it is; a line that is not a pino JSON line with a `pid` cannot be told to be
 * another's, so it is unknown. Of the process's own lines only `agent.run-started` and
 * `agent.run-finished` tell anything; lines written before the process started are an earlier holder's of the pid.
 */
export function readClineLogLine(
  line: string,
  position: RecordPosition,
  context: SideContext,
): RecordReading {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { unknown: 'log: not a JSON line' };
  }
  if (!isObject(value) || typeof value.pid !== 'number') return { unknown: 'log: no `pid`' };
  if (value.pid !== context.pid) return { events: [] };
  const atMs = typeof value.time === 'string' ? Date.parse(value.time) : NaN;
  if (typeof value.level !== 'number' || Number.isNaN(atMs) || typeof value.msg !== 'string') {
    return { unknown: 'log: not a pino line (`level`, `time`, `msg`)' };
  }
  if (atMs < context.startedAtMs - 1000) return { events: [] };
  if (value.msg !== 'telemetry.event') return { events: [] };
  const event = 'agent.run-started';
  // A run starts: written as the prompt is taken, where the messages get it only as the run
  // ends. Without it the record's latest turn would be the previous one until then, and its
  // success could be taken for this turn's.
  if (value.event === event) return { events: [{ type: 'turn_started', event, position, atMs }] };
  if (value.event !== 'agent.run-finished') return { events: [] };
  const properties = value.properties;
  const status = isObject(properties) ? properties.status : undefined;
  const means = typeof status === 'string' ? RUN_FINISHED[status] : undefined;
  if (means === undefined) return { unknown: `log: agent.run-finished status ${named(status)}` };
  if (means !== 'turn_ended') return { events: [] };
  return {
    events: [
      {
        type: 'turn_ended',
        ending: { reason: 'interrupted' },
        event: 'agent.run-finished',
        position,
        atMs,
      },
    ],
  };
}

/** Cline's log, beside the session's messages: `~/.cline/data/logs/cline.log`. */
export const clineLog: SideRecordReader = {
  locate: async (context) => {
    const data = clineDataDir(context.env);
    if (!data) return null;
    const file = join(data, 'logs', 'cline.log');
    return (await isRegularFile(file)) ? file : null;
  },
  read: readClineLogLine,
};

/** Cline CLI 3.0.65's session record. */
export const clineSessionRecord: SessionRecordReader = {
  tool: 'cline',
  kind: 'document',
  verifiedVersions: ['3.0.65'],
  endings: ['success', 'interrupted', 'known_failure'],
  locate: locateClineRecord,
  read: readClineRecord,
  reply: clineReply,
  side: clineLog,
};
