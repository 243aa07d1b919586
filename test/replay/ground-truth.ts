import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getProfile } from '../../src/profiles/index.js';
import type { ProfileResult } from '../../src/schemas/signals.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { readJsonLines, replayRecording } from '../../src/replay/replay.js';

/**
 * Folder of the real recordings: `<tool>/<scenario>.jsonl` and `<tool>/<scenario>.server.jsonl`;
 * another release of the tool in `<tool>/<version>/`, its scenarios named `<version>/<scenario>`.
 */
export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** One request the fake model server logged, its times moved onto the recording's clock (s). */
export interface ServerRequest {
  seq: number;
  streaming: boolean;
  outcome: 'completed' | 'error' | 'hung' | 'aborted';
  status: number;
  receivedAt: number;
  firstByteAt: number | null;
  endedAt: number;
}

/** One explicit turn: an `input` line and the streaming model requests it caused. */
export interface GroundTruthTurn {
  id: string;
  inputAt: number;
  /** Streaming requests received from this input up to the next one (side requests left out). */
  requests: ServerRequest[];
  /** When the turn's last streaming request truly ended, or null if it made none. */
  trueEnd: number | null;
}

export interface RecordedFrame {
  t: number;
  text: string;
  /** What the tool's profile reads from this frame (null when no TUI was there to parse). */
  parsed: ProfileResult | null;
}

/** A recording, what the fake server saw while it was made, and the replayed public states. */
export interface Replayed {
  tool: string;
  scenario: string;
  file: string;
  pollSeconds: number;
  turns: GroundTruthTurn[];
  frames: RecordedFrame[];
  states: TerminalState[];
}

interface RawServerLine {
  seq: number;
  streaming?: boolean;
  outcome: ServerRequest['outcome'];
  status: number;
  receivedAt: number;
  firstByteAt?: number | null;
  endedAt: number;
}

interface RawLine {
  type: string;
  t?: number;
  text?: string;
  ansi?: string;
  transport?: string;
  process?: string;
  startedAtEpochMs?: number;
  intervalMs?: number;
  tool?: string;
  toolVersion?: string;
}

/** A folder of recordings of one newer CLI version, beside the older ones: `<tool>/<version>/`. */
const VERSION_FOLDER = /^\d+\.\d+\.\d+/;

/**
 * Names of every recording of one tool, as {@link loadReplayed} takes them: `<scenario>` for
 * the first version recorded, `<version>/<scenario>` for each newer one, sorted.
 */
export function recordingNames(tool: string): string[] {
  const inFolder = (sub: string) =>
    readdirSync(`${FIXTURES}${tool}${sub}`)
      .filter((f) => f.endsWith('.jsonl') && !f.endsWith('.server.jsonl'))
      .map((f) => `${sub === '' ? '' : `${sub.slice(1)}/`}${f.slice(0, -'.jsonl'.length)}`);
  const versions = readdirSync(`${FIXTURES}${tool}`, { withFileTypes: true })
    .filter((d) => d.isDirectory() && VERSION_FOLDER.test(d.name))
    .map((d) => d.name);
  return [...inFolder(''), ...versions.flatMap((v) => inFolder(`/${v}`))].sort();
}

/** Path of one recording. */
export function fixturePath(tool: string, scenario: string): string {
  return `${FIXTURES}${tool}/${scenario}.jsonl`;
}

/**
 * Loads a recording with its server log and replays it through the full pipeline; `as` reads it
 * as if its CLI said another version (a release nobody verified yet).
 */
export function loadReplayed(
  tool: string,
  scenario: string,
  as: { toolVersion?: string; verifiedOnly?: boolean } = {},
): Replayed {
  const file = fixturePath(tool, scenario);
  const lines = readJsonLines(file);
  const raw = lines.map(([, text]) => JSON.parse(text) as RawLine);
  const header = raw[0]!;
  if (header.type !== 'header' || header.startedAtEpochMs === undefined) {
    throw new Error(`${file}: the header has no startedAtEpochMs`);
  }
  const origin = header.startedAtEpochMs;
  const toRecording = (epochMs: number) => (epochMs - origin) / 1000;

  const serverFile = `${FIXTURES}${tool}/${scenario}.server.jsonl`;
  const requests: ServerRequest[] = existsSync(serverFile)
    ? readFileSync(serverFile, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as RawServerLine)
        .map((r) => ({
          seq: r.seq,
          // Side requests (titles, summaries) say `streaming:false`; they are not turns.
          streaming: r.streaming !== false,
          outcome: r.outcome,
          status: r.status,
          receivedAt: toRecording(r.receivedAt),
          firstByteAt:
            r.firstByteAt === undefined || r.firstByteAt === null
              ? null
              : toRecording(r.firstByteAt),
          endedAt: toRecording(r.endedAt),
        }))
    : [];

  const inputs = raw.filter((l) => l.type === 'input').map((l) => l.t!);
  const turns = inputs.map((inputAt, i): GroundTruthTurn => {
    const next = inputs[i + 1] ?? Infinity;
    const own = requests.filter(
      (r) => r.streaming && r.receivedAt >= inputAt && r.receivedAt < next,
    );
    return {
      id: `turn-${i + 1}`,
      inputAt,
      requests: own,
      trueEnd: own.length === 0 ? null : Math.max(...own.map((r) => r.endedAt)),
    };
  });

  const toolVersion = as.toolVersion ?? header.toolVersion;
  const profile = getProfile(header.tool!, toolVersion, { verifiedOnly: as.verifiedOnly === true });
  const frames = raw
    .filter((l) => l.type === 'frame')
    .map((l): RecordedFrame => {
      const live = (l.transport ?? 'tmux_up') === 'tmux_up' && (l.process ?? 'tui_up') === 'tui_up';
      return {
        t: l.t!,
        text: l.text!,
        parsed: live ? profile.parse({ text: l.text!, ansi: l.ansi }) : null,
      };
    });

  const states: TerminalState[] = [];
  replayRecording(lines, (s) => states.push(s), as);
  return {
    tool,
    scenario,
    file,
    pollSeconds: (header.intervalMs ?? 250) / 1000,
    turns,
    frames,
    states,
  };
}

/** The public state in force right after everything at time `t` was processed (null before any). */
export function stateAt(states: readonly TerminalState[], t: number): TerminalState | null {
  let found: TerminalState | null = null;
  for (const s of states) {
    if (s.t > t) break;
    found = s;
  }
  return found;
}

/** First time the turn's completion was reported `completed`, or null. */
export function completedAt(states: readonly TerminalState[], turnId: string): number | null {
  const s = states.find(
    (x) => x.completion?.turnId === turnId && x.completion.status === 'completed',
  );
  return s ? s.t : null;
}

/** Every last-turn outcome reported for the turn, in order, each with its first time. */
export function outcomesOf(
  states: readonly TerminalState[],
  turnId: string,
): Array<{ result: string; t: number }> {
  const out: Array<{ result: string; t: number }> = [];
  for (const s of states) {
    if (s.lastTurn.turnId !== turnId || s.lastTurn.result === 'none') continue;
    if (out[out.length - 1]?.result !== s.lastTurn.result)
      out.push({ result: s.lastTurn.result, t: s.t });
  }
  return out;
}

/** The profile reads the frame as a live prompt box waiting for a prompt. */
export function isSubmitReady(frame: RecordedFrame): boolean {
  const s = frame.parsed?.surface;
  return (
    s?.availability === 'supported' && s.businessState === 'idle' && s.inputMode === 'freeform'
  );
}

/**
 * When the screen first showed the turn finished after its stream ended: the first frame at or
 * after `trueEnd` the profile reads as submit-ready and free of activity.
 */
export function finishedOnScreenAt(r: Replayed, trueEnd: number): number | null {
  const f = r.frames.find(
    (x) => x.t >= trueEnd && isSubmitReady(x) && x.parsed!.signals.activeReasons.length === 0,
  );
  return f ? f.t : null;
}
