import { PanewardError } from '../errors.js';
import { parseJsonLine, readJsonLines } from '../internal/jsonl.js';
import { VirtualClock } from '../kernel/virtual-time.js';
import { getProfile } from '../profiles/index.js';
import type { KernelConfigInput } from '../schemas/kernel.js';
import { RecordingHeader, RecordingLine } from '../schemas/recording.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import { TerminalPipeline } from './pipeline.js';

export interface ReplayOptions {
  config?: KernelConfigInput & { sessionWallClockSeconds?: number };
  terminalId?: string;
}

const KNOWN_TYPES = new Set(['header', 'frame', 'input', 'probe']);

/**
 * Replays a terminal recording (contracts.md §2) through the same pipeline live supervision
 * uses, on virtual time, handing each public-state change to `print`. Deterministic.
 */
export function replayRecording(
  lines: Array<[number, string]>,
  print: (state: TerminalState) => void,
  options: ReplayOptions = {},
): TerminalState | null {
  const first = lines[0];
  if (!first) throw new PanewardError('invalid_recording', 'the recording is empty');
  const header = parseJsonLine(RecordingHeader, first[0], first[1], 'invalid_recording');
  const clock = new VirtualClock();
  const pipeline = new TerminalPipeline({
    terminalId: options.terminalId ?? 'replay',
    profile: getProfile(header.tool, header.toolVersion),
    toolVersion: header.toolVersion,
    config: options.config,
    scheduler: clock.scheduler,
  });
  let started = false;
  const sub = pipeline.state$.subscribe({ next: (s) => started && print(s) });
  let lastT = 0;
  try {
    for (const [lineNumber, text] of lines.slice(1)) {
      const type = peekType(text);
      if (type !== undefined && !KNOWN_TYPES.has(type)) continue;
      const line = parseJsonLine(RecordingLine, lineNumber, text, 'invalid_recording');
      if (line.type === 'header') {
        throw new PanewardError(
          'invalid_recording',
          `line ${lineNumber}: field \`type\`: a second header`,
        );
      }
      if (line.t < lastT) {
        throw new PanewardError(
          'invalid_recording',
          `line ${lineNumber}: field \`t\`: time went backwards (${line.t} < ${lastT})`,
        );
      }
      lastT = line.t;
      if (!started) {
        // The session starts with the first poll; its state is printed with that poll's.
        pipeline.startSession(line.t);
        started = true;
      }
      clock.advanceTo(line.t);
      if (line.type === 'frame') {
        pipeline.frame(line.t, { text: line.text, ansi: line.ansi }, line);
      } else if (line.type === 'probe') {
        pipeline.probe(line.t, line);
      } else {
        pipeline.submit(line.t);
      }
    }
    // Let timers due after the last line (stability, settle) play out, as live supervision would.
    const tail =
      lastT + pipeline.kernel.config.stabilitySeconds + pipeline.kernel.config.settleSeconds;
    clock.advanceTo(tail);
    pipeline.advance(tail);
    return pipeline.state;
  } finally {
    sub.unsubscribe();
    pipeline.dispose();
  }
}

function peekType(text: string): string | undefined {
  try {
    const v = JSON.parse(text) as { type?: unknown };
    return typeof v.type === 'string' ? v.type : undefined;
  } catch {
    return undefined;
  }
}

export { readJsonLines };
