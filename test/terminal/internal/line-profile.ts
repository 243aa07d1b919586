import { VirtualClock } from '../../../src/kernel/virtual-time.js';
import type { ToolProfile } from '../../../src/profiles/types.js';
import type { JournalRecord } from '../../../src/schemas/record.js';
import { NO_SIGNALS, type ProfileResult, type TurnSignals } from '../../../src/schemas/signals.js';
import { TerminalPipeline, type PipelineOptions } from '../../../src/terminal/pipeline.js';

/**
 * A test profile that reads no agent CLI: a screen is a transcript (every line but the last)
 * and a keyword on its last line that names the surface. The keywords:
 *
 * - `ready`: an idle prompt (submit-ready, ready posture);
 * - `draft`: the prompt holding a draft the user types;
 * - `working`: the agent works (one active reason);
 * - `replied`: an idle prompt under a finished reply (a success candidate);
 * - `interrupted`: an idle prompt under an interrupt marker;
 * - `failed`: an idle prompt under a rate-limit error;
 * - `permission`: a tool-permission dialog;
 * - `unrecognised`: a screen of no known shape (`recognised: false`);
 * - `throw`: the parser throws `cannot read this`; `throw-string` throws a bare string.
 */
export function lineProfile(over: Partial<ToolProfile> = {}): ToolProfile {
  return {
    id: 'lines',
    verifiedVersions: '1.0.0',
    verified: ['1.0.0'],
    processNames: ['lines'],
    interruptKeys: ['C-c'],
    submitKeys: ['Enter'],
    parse: (screen) => readLines(screen.text),
    ...over,
  };
}

const IDLE: Partial<TurnSignals> = {
  acceptingInput: 'yes',
  editingInput: 'no',
  readyPosture: 'yes',
  chatContext: 'current',
};

function readLines(text: string): ProfileResult {
  const lines = text.split('\n');
  const keyword = lines.at(-1) ?? '';
  const projectionText = lines.slice(0, -1).join('\n');
  const result = (
    surface: Omit<ProfileResult['surface'], 'projectionText'>,
    signals: Partial<TurnSignals>,
    recognised = true,
  ): ProfileResult => ({
    surface: { ...surface, projectionText },
    signals: { ...NO_SIGNALS, activeReasons: [], ...signals },
    evidence: { detector: 'lines@1', rule: keyword },
    recognised,
  });
  const prompt = {
    availability: 'supported',
    businessState: 'idle',
    inputMode: 'freeform',
    uiContext: 'normal_prompt',
  } as const;
  switch (keyword) {
    case 'ready':
      return result(prompt, IDLE);
    case 'draft':
      return result(prompt, { ...IDLE, editingInput: 'yes', readyPosture: 'no' });
    case 'working':
      return result(
        {
          availability: 'supported',
          businessState: 'working',
          inputMode: 'closed',
          uiContext: 'normal_prompt',
        },
        {
          acceptingInput: 'no',
          editingInput: 'no',
          readyPosture: 'no',
          activeReasons: ['spinner'],
        },
      );
    case 'replied':
      return result(prompt, { ...IDLE, successCandidate: true });
    case 'interrupted':
      return result(prompt, { ...IDLE, interrupted: true });
    case 'failed':
      return result(
        { ...prompt, uiContext: 'error' },
        { ...IDLE, knownFailure: { kind: 'rate_limited', message: 'rate limited', status: 429 } },
      );
    case 'permission':
      return result(
        {
          availability: 'supported',
          businessState: 'awaiting_operator',
          inputMode: 'modal',
          uiContext: 'permission_prompt',
        },
        {
          acceptingInput: 'no',
          editingInput: 'no',
          readyPosture: 'no',
          blockedPrompt: 'tool_permission',
          chatContext: 'current',
        },
      );
    case 'throw':
      throw new Error('cannot read this');
    case 'throw-string':
      throw 'cannot read this either';
    default:
      return result(
        {
          availability: 'supported',
          businessState: 'unknown',
          inputMode: 'unknown',
          uiContext: 'unrecognised',
        },
        {},
        false,
      );
  }
}

/** The probe of a pane whose agent runs. */
export const UP = { transport: 'tmux_up', process: 'tui_up' } as const;

/**
 * A pipeline reading {@link lineProfile} on virtual time (observation time = virtual seconds),
 * with the records its journal acknowledged.
 */
export function linePipeline(options: Partial<PipelineOptions> = {}) {
  const clock = new VirtualClock();
  const p = new TerminalPipeline({
    terminalId: 't1',
    profile: lineProfile(),
    toolVersion: '1.0.0',
    scheduler: clock.scheduler,
    ...options,
  });
  /** Moves time to `t` seconds, firing due timers. */
  const at = (t: number) => {
    clock.advanceTo(t);
    p.advance(t);
  };
  const frame = (t: number, text: string, probe: Parameters<TerminalPipeline['frame']>[2] = UP) => {
    clock.advanceTo(t);
    p.frame(t, { text }, probe);
  };
  const records = async (): Promise<JournalRecord[]> => {
    await p.journal.flush();
    return p.journal.read();
  };
  const ofKind = async <K extends JournalRecord['kind']>(kind: K) =>
    (await records()).filter((r): r is Extract<JournalRecord, { kind: K }> => r.kind === kind);
  return { p, clock, at, frame, records, ofKind };
}
