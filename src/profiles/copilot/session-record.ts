import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { walkSubtree } from '../../observe/internal/procfs.js';
import {
  kindName,
  named,
  type RecordedEnding,
  type RecordEvent,
  type RecordPosition,
  type RecordReading,
  type RecordReply,
  type SessionContext,
  type SessionRecordReader,
} from '../session-record.js';

/**
 * GitHub Copilot CLI's session record (docs/session-records.md): every session has a folder
 * `$COPILOT_HOME/session-state/<session id>/` (`~/.copilot` without `COPILOT_HOME`) with an
 * `events.jsonl` the CLI appends one event to per line, from the first prompt on. While a process
 * has the session open it keeps `inuse.<pid>.lock` (and an open `inuse.<pid>.hold`) in that
 * folder, named after its own pid: that is how the record of a pane's process is told from every
 * other one, also in the same folder.
 *
 * Lines written by a sub-agent (`agentId`, `parentToolCallId`) never decide the pane's turn.
 */

/** Event types that decide nothing about a turn: read as no events. */
const IRRELEVANT = new Set([
  // Seen in the records of 1.0.102.
  'session.start',
  'session.model_change',
  'session.usage_record',
  'session.shutdown',
  'system.message',
  'assistant.turn_start',
  'assistant.turn_end',
  'tool.execution_start',
  'tool.execution_complete',
  'permission.requested',
  'permission.completed',
  // Persisted events of 1.0.102's own event schema (copilot-sdk session-events) that say
  // nothing about the end of a run.
  'session.resume',
  'session.info',
  'session.warning',
  'session.mode_changed',
  'session.mode_notice_delivered',
  'session.plan_changed',
  'session.workspace_file_changed',
  'session.context_changed',
  'session.context_cleared',
  'session.compaction_start',
  'session.compaction_complete',
  'session.truncation',
  'session.handoff',
  'session.model_deselected',
  'session.permissions_changed',
  'session.usage_checkpoint',
  'session.title_changed',
  'session.todos_changed',
  'session.remote_steerable_changed',
  'session.session_limits_changed',
  'assistant.reasoning',
  'assistant.intent',
  'hook.start',
  'hook.end',
  'skill.invoked',
  'subagent.started',
  'subagent.completed',
  'subagent.failed',
  'subagent.selected',
  'subagent.deselected',
  'subagent.configured',
  'system.notification',
  'tool.user_requested',
  'external_tool.requested',
  'external_tool.completed',
  'instruction_discovered',
]);

/** `abort` reasons (1.0.102's schema; `user_abort` is what Escape Escape writes). */
const ABORT_ENDINGS: Readonly<Record<string, RecordedEnding>> = {
  user_abort: { reason: 'interrupted' },
  user_initiated: { reason: 'interrupted' },
  remote_command: { reason: 'interrupted' },
  autopilot_credit_limit: { reason: 'known_failure', kind: 'credit_limit' },
};

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads one line of `events.jsonl`. */
export function readCopilotRecordLine(piece: string, position: RecordPosition): RecordReading {
  let line: unknown;
  try {
    line = JSON.parse(piece);
  } catch {
    return { unknown: 'not a JSON line' };
  }
  if (!isObject(line)) return { unknown: 'not a JSON object' };
  const { type, data, timestamp } = line;
  if (typeof type !== 'string') return { unknown: 'no `type`' };
  if (!isObject(data)) return { unknown: `${named(type)}: no \`data\` object` };
  if (typeof timestamp !== 'string' || Number.isNaN(Date.parse(timestamp))) {
    return { unknown: `${named(type)}: no \`timestamp\`` };
  }
  if (IRRELEVANT.has(type)) return { events: [] };
  const atMs = Date.parse(timestamp);
  const root = line.agentId === undefined && data.parentToolCallId === undefined;
  const ended = (ending: RecordedEnding): RecordReading => ({
    events: root ? [{ type: 'turn_ended', ending, event: type, position, atMs }] : [],
  });
  switch (type) {
    case 'user.message': {
      // `steering` joins the run in flight; `queued` waits for it (its run's start is not
      // written): only a message delivered to an idle loop starts a turn.
      const delivery = data.delivery;
      if (delivery !== undefined && typeof delivery !== 'string') {
        return { unknown: 'user.message: `delivery` is not a string' };
      }
      if (delivery === 'steering' || delivery === 'queued') return { events: [] };
      if (delivery !== undefined && delivery !== 'idle') {
        return { unknown: `user.message: delivery ${named(delivery)}` };
      }
      const started: RecordEvent = { type: 'turn_started', event: type, position, atMs };
      return { events: root ? [started] : [] };
    }
    case 'assistant.message': {
      // One model round's reply. Asking for tools, the run goes on; without, the run is over.
      const tools = data.toolRequests;
      if (tools !== undefined && !Array.isArray(tools)) {
        return { unknown: 'assistant.message: `toolRequests` is not a list' };
      }
      // Phased-output models write a thinking phase before the answer: not verified here.
      if (data.phase !== undefined) return { events: [] };
      if (tools !== undefined && tools.length > 0) return { events: [] };
      return ended({ reason: 'success' });
    }
    case 'abort': {
      const reason = data.reason;
      const ending = typeof reason === 'string' ? ABORT_ENDINGS[reason] : undefined;
      if (!ending) return { unknown: `abort: reason ${named(reason)}` };
      return ended(ending);
    }
    case 'session.error': {
      const status = data.statusCode;
      const errorType = data.errorType;
      if (typeof errorType !== 'string') return { unknown: 'session.error: no `errorType`' };
      if (status !== undefined && typeof status !== 'number') {
        return { unknown: 'session.error: `statusCode` is not a number' };
      }
      // An error that names no prompt is the session's, not a turn's.
      if (typeof data.originatingMessageId !== 'string') return { events: [] };
      return ended({
        reason: 'known_failure',
        kind: typeof status === 'number' ? `http_${status}` : kindName(errorType, 'error'),
      });
    }
    default:
      return { unknown: `event type ${named(type)}` };
  }
}

/** Where the CLI keeps its state for a process with this environment. */
export function copilotHome(env: Readonly<Record<string, string>>): string | null {
  if (env.COPILOT_HOME) return env.COPILOT_HOME;
  return env.HOME ? join(env.HOME, '.copilot') : null;
}

const LOCK = /^inuse\.(\d+)\.(?:lock|hold)$/;
/** A lock written before the process started belongs to an earlier holder of the pid. */
const START_SLACK_MS = 1000;

/** The pane's process and every process under it (the npm loader runs the CLI as a child). */
async function processTree(pid: number): Promise<number[]> {
  const tree = await walkSubtree('/proc', pid).catch(() => null);
  return tree && tree.length > 0 ? tree.map((p) => p.pid) : [pid];
}

/** The session folders whose `inuse.<pid>` lock names one of `pids`, newest lock first. */
async function lockedSessions(
  stateDir: string,
  pids: ReadonlySet<number>,
  notBeforeMs: number,
): Promise<string[]> {
  let ids: string[];
  try {
    ids = await readdir(stateDir);
  } catch {
    return [];
  }
  const found: Array<{ dir: string; mtimeMs: number }> = [];
  for (const id of ids) {
    const dir = join(stateDir, id);
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const m = LOCK.exec(name);
      if (!m || !pids.has(Number(m[1]))) continue;
      const info = await stat(join(dir, name)).catch(() => null);
      if (info && info.mtimeMs >= notBeforeMs) found.push({ dir, mtimeMs: info.mtimeMs });
    }
  }
  return found.sort((a, b) => b.mtimeMs - a.mtimeMs).map((f) => f.dir);
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isFile() ?? false;
}

/**
 * The `events.jsonl` of the session this process (or a process under it) holds open; null when
 * it holds none or the session has no events yet (the file appears with the first prompt).
 */
export async function locateCopilotRecord(context: SessionContext): Promise<string | null> {
  const home = copilotHome(context.env);
  if (!home) return null;
  const stateDir = join(home, 'session-state');
  const candidates: string[] = [];
  // The hold file the process keeps open names the session folder outright.
  for (const file of context.openFiles) {
    if (LOCK.test(basename(file)) && dirname(dirname(file)) === stateDir) {
      candidates.push(dirname(file));
    }
  }
  const pids = new Set(await processTree(context.pid));
  candidates.push(...(await lockedSessions(stateDir, pids, context.startedAtMs - START_SLACK_MS)));
  for (const dir of candidates) {
    const file = join(dir, 'events.jsonl');
    if (context.claimed.has(file)) continue;
    if (await exists(file)) return file;
  }
  return null;
}

/** An `assistant.message` of the session's own run (no sub-agent): its content. */
function reply(piece: string): RecordReply | null {
  let line: unknown;
  try {
    line = JSON.parse(piece);
  } catch {
    return null;
  }
  if (!isObject(line) || line.type !== 'assistant.message' || !isObject(line.data)) return null;
  const data = line.data;
  if (line.agentId !== undefined || data.parentToolCallId !== undefined) return null;
  if (data.phase !== undefined || typeof data.content !== 'string' || data.content === '') {
    return null;
  }
  const id = data.messageId;
  return { text: data.content, ...(typeof id === 'string' ? { messageId: id } : {}) };
}

/** Copilot CLI 1.0.102's session record. */
export const copilotSessionRecord: SessionRecordReader = {
  tool: 'copilot',
  kind: 'jsonl',
  verifiedVersions: ['1.0.102'],
  locate: locateCopilotRecord,
  read: readCopilotRecordLine,
  reply,
};
