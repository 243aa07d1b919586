import { readdir, stat } from 'node:fs/promises';
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

/**
 * Claude Code's session record: `<config>/projects/<folder>/<session id>.jsonl`, where
 * `<config>` is `$CLAUDE_CONFIG_DIR` or `~/.claude` and `<folder>` the working folder with every
 * character other than a letter or digit replaced by `-`. One JSON object per line, `type` first.
 *
 * Verified on 2.1.330 and 2.1.332 offline (test/fixtures/session-records/claude_code/ and its
 * `2.1.332/`: the same line types on both):
 * - a prompt is a `user` line whose content is the prompt (a string, or text blocks);
 * - the model's end of turn is an `assistant` line with `stop_reason: "end_turn"` (a tool call
 *   ends its message with `tool_use`, and the turn goes on with a `user` tool result);
 * - an interruption is a `user` line whose only text is `[Request interrupted by user]` (or
 *   `... for tool use]`), with no end of turn before it;
 * - an API error is an `assistant` line with `isApiErrorMessage: true` and an `error` kind
 *   (`server_error` for both a 500 and a 529), `stop_reason: "stop_sequence"`.
 * Lines of subagents (`isSidechain: true`) are not the pane's turns. Every other line type seen
 * on that version is bookkeeping with no bearing on turns; a line type not seen there is unknown.
 */
const BOOKKEEPING = new Set([
  'mode',
  'permission-mode',
  'atis-latch',
  'file-history-snapshot',
  'attachment',
  'api-request-shape',
  'api-request-blob',
  'api-request',
  'last-prompt',
  'tools-used',
  'cost-state',
  'system',
  'summary',
]);

const INTERRUPTED = /^\[Request interrupted by user( for tool use)?\]$/;

/** How Claude Code names a working folder under `projects/`. */
export function claudeProjectFolder(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

interface Line {
  type?: unknown;
  isSidechain?: unknown;
  isMeta?: unknown;
  isApiErrorMessage?: unknown;
  error?: unknown;
  timestamp?: unknown;
  message?: { role?: unknown; content?: unknown; stop_reason?: unknown };
}

function atOf(line: Line): { atMs?: number } {
  const ms = typeof line.timestamp === 'string' ? Date.parse(line.timestamp) : NaN;
  return Number.isFinite(ms) ? { atMs: ms } : {};
}

/** The texts of a message's content, or null when it holds anything but text (a tool result). */
function textsOf(content: unknown): string[] | null {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return null;
  const texts: string[] = [];
  for (const block of content as Array<{ type?: unknown; text?: unknown }>) {
    if (block?.type !== 'text' || typeof block.text !== 'string') return null;
    texts.push(block.text);
  }
  return texts;
}

function readLine(line: Line, position: RecordPosition): RecordReading {
  const at = atOf(line);
  if (line.type === 'user') {
    if (line.isSidechain === true || line.isMeta === true) return { events: [] };
    const texts = textsOf(line.message?.content);
    if (texts === null) return { events: [] }; // a tool result: the turn goes on
    if (texts.length === 1 && INTERRUPTED.test((texts[0] as string).trim())) {
      return {
        events: [
          {
            type: 'turn_ended',
            ending: { reason: 'interrupted' },
            event: 'user.interrupted',
            position,
            ...at,
          },
        ],
      };
    }
    return { events: [{ type: 'turn_started', event: 'user', position, ...at }] };
  }
  if (line.type === 'assistant') {
    if (line.isSidechain === true) return { events: [] };
    if (line.isApiErrorMessage === true) {
      const kind = kindName(line.error, 'api_error');
      const ended: RecordEvent = {
        type: 'turn_ended',
        ending: { reason: 'known_failure', kind },
        event: 'assistant.api_error',
        position,
        ...at,
      };
      return { events: [ended] };
    }
    const stop = line.message?.stop_reason;
    if (stop === 'end_turn' || stop === 'stop_sequence') {
      return {
        events: [
          {
            type: 'turn_ended',
            ending: { reason: 'success' },
            event: `assistant.${stop}`,
            position,
            ...at,
          },
        ],
      };
    }
    if (stop === 'max_tokens' || stop === 'refusal') {
      return {
        events: [
          {
            type: 'turn_ended',
            ending: { reason: 'known_failure', kind: stop },
            event: `assistant.${stop}`,
            position,
            ...at,
          },
        ],
      };
    }
    if (stop === 'tool_use' || stop === null || stop === 'pause_turn') return { events: [] };
    return { unknown: `assistant stop_reason ${named(stop)}` };
  }
  if (typeof line.type === 'string' && BOOKKEEPING.has(line.type)) return { events: [] };
  return { unknown: `line type ${named(line.type)}` };
}

/**
 * The reply text of an `assistant` line of the pane's own session: its text blocks (a line per
 * content block, so the blocks of one message id are joined). API errors and subagents carry none.
 */
function reply(piece: string): RecordReply | null {
  let line: Line & { message?: { id?: unknown } };
  try {
    line = JSON.parse(piece) as typeof line;
  } catch {
    return null;
  }
  if (line?.type !== 'assistant' || line.isSidechain === true || line.isApiErrorMessage === true) {
    return null;
  }
  const content = line.message?.content;
  const blocks = Array.isArray(content)
    ? (content as Array<{ type?: unknown; text?: unknown }>)
    : [];
  const text = blocks
    .filter((b) => b?.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n\n');
  if (text === '') return null;
  const id = line.message?.id;
  return { text, part: true, ...(typeof id === 'string' ? { messageId: id } : {}) };
}

export const claudeCodeSessionRecord: SessionRecordReader = {
  tool: 'claude_code',
  kind: 'jsonl',
  verifiedVersions: ['2.1.332', '2.1.330'],
  async locate(context: SessionContext): Promise<string | null> {
    const config = context.env.CLAUDE_CONFIG_DIR || join(context.env.HOME ?? '', '.claude');
    const folder = join(config, 'projects', claudeProjectFolder(context.cwd));
    const open = context.openFiles.filter(
      (f) => f.startsWith(`${folder}/`) && f.endsWith('.jsonl') && !context.claimed.has(f),
    );
    if (open.length > 0) return open[0] as string;
    // `--session-id <uuid>` / `--resume <uuid>` on the command line names the file.
    const named = context.argv ? sessionIdArgument(context.argv) : null;
    if (named) return join(folder, `${named}.jsonl`);
    const names = await readdir(folder).catch(() => [] as string[]);
    const candidates = await Promise.all(
      names
        .filter((n) => n.endsWith('.jsonl'))
        .map(async (n) => {
          const path = join(folder, n);
          const s = await stat(path).catch(() => null);
          // Only a regular file is a record (a FIFO or a device is never read).
          return s?.isFile() ? { path, born: s.birthtimeMs || s.ctimeMs, mtime: s.mtimeMs } : null;
        }),
    );
    // Newest first among files this process could have written (written to since it started).
    const fresh = candidates
      .filter((c): c is NonNullable<typeof c> => c !== null)
      .filter((c) => !context.claimed.has(c.path) && c.mtime >= context.startedAtMs)
      .sort((a, b) => b.mtime - a.mtime);
    return fresh[0]?.path ?? null;
  },
  read(piece: string, position: RecordPosition): RecordReading {
    let line: unknown;
    try {
      line = JSON.parse(piece);
    } catch {
      return { unknown: 'a line that is not JSON' };
    }
    if (typeof line !== 'object' || line === null || Array.isArray(line)) {
      return { unknown: 'a line that is not a JSON object' };
    }
    return readLine(line as Line, position);
  },
  reply,
};

function sessionIdArgument(argv: readonly string[]): string | null {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  for (let i = 0; i < argv.length - 1; i += 1) {
    const flag = argv[i];
    const value = argv[i + 1] as string;
    if ((flag === '--session-id' || flag === '--resume' || flag === '-r') && uuid.test(value)) {
      return value;
    }
  }
  return null;
}
