import { createHash } from 'node:crypto';
import type { SurfaceObservation } from '../../machines/surface.js';
import type { Screen, ToolProfile } from '../profiles/types.js';
import type {
  ParseOutcome,
  ProbeOutcome,
  ProcessOutcome,
  TransportOutcome,
} from '../schemas/probe.js';
import type { RecordEvidence } from '../schemas/record.js';
import type { ProfileResult } from '../schemas/signals.js';

/** A poll's probe facts; `parse` is decided here. */
export interface ProbeFacts {
  transport: TransportOutcome;
  process: ProcessOutcome;
  error?: { kind: string; message: string } | null;
}

/** One capture as read: the probe's outcome, the profile's result, and the evidence for records. */
export interface FrameReading {
  outcome: ProbeOutcome;
  /** The profile's result (null when the screen was not read, or the parser threw). */
  result: ProfileResult | null;
  evidence: RecordEvidence;
  /** The profile read the screen and found no shape it knows. */
  unrecognised: boolean;
}

/**
 * Reads one capture with `profile`: a screen is parsed only when tmux is up and the agent's TUI
 * runs; a pane with no supported tool is parsed for the record only (a parser that throws on it
 * is no error of the terminal).
 */
export function readFrame(
  profile: ToolProfile,
  toolVersion: string | undefined,
  screen: Screen,
  probe: ProbeFacts,
  /** Reads the screen with `profile` (a caller may remember the last reading: parse is pure). */
  read: (screen: Screen) => ProfileResult = (sc) => profile.parse(sc),
): FrameReading {
  let result: ProfileResult | null = null;
  let parse: ParseOutcome;
  let error = probe.error ?? null;
  if (probe.transport !== 'tmux_up') parse = 'transport_unavailable';
  else if (probe.process === 'tui_down') parse = 'skipped_tui_down';
  else if (probe.process === 'unsupported_tool' || profile.processNames.length === 0) {
    parse = 'unsupported_tool';
    try {
      result = read(screen);
    } catch {
      // No result: the evidence names the parse outcome instead.
    }
  } else {
    try {
      result = read(screen);
      parse = 'parsed';
    } catch (err) {
      parse = 'parse_error';
      error = { kind: 'parse_error', message: err instanceof Error ? err.message : String(err) };
    }
  }
  return {
    outcome: { transport: probe.transport, process: probe.process, parse, error },
    result,
    evidence: new FrameEvidence(
      profile.id,
      toolVersion ?? null,
      result?.evidence.detector ?? profile.id,
      result?.evidence.rule ?? parse,
      screen.text,
    ),
    unrecognised: result?.recognised === false && parse === 'parsed',
  };
}

/**
 * The evidence of a frame. Its screen's hash is taken when something reads it (a record of
 * this frame, an unrecognised screen): most frames change nothing and are never recorded. The
 * text is let go once hashed. A class, not a literal with a getter: such a literal is kept in
 * dictionary mode, about 600 bytes per terminal more. `evidenceOf` copies it to a plain record.
 */
class FrameEvidence implements RecordEvidence {
  private hash: string | null = null;

  constructor(
    readonly profile: string,
    readonly profileVersion: string | null,
    readonly detector: string,
    readonly rule: string,
    private text: string | null,
  ) {}

  get screenHash(): string {
    if (this.hash === null) {
      this.hash = hashScreen(this.text!);
      this.text = null;
    }
    return this.hash;
  }
}

/** A plain copy of `e` for a record (a frame's screen hash is taken now). */
export function evidenceOf(e: RecordEvidence): RecordEvidence {
  return {
    profile: e.profile,
    profileVersion: e.profileVersion,
    detector: e.detector,
    rule: e.rule,
    screenHash: e.screenHash,
  };
}

/** The last screen hashed: a pane at rest is recorded with the same screen many times. */
const lastHashed = { text: '', hash: '' };

function hashScreen(text: string): string {
  if (text !== lastHashed.text || lastHashed.hash === '') {
    lastHashed.hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
    lastHashed.text = text;
  }
  return lastHashed.hash;
}

/** One poll that produced no capture: its outcome and evidence. */
export function readProbe(
  profile: ToolProfile,
  toolVersion: string | undefined,
  probe: ProbeFacts & { parse?: ParseOutcome },
): { outcome: ProbeOutcome; evidence: RecordEvidence } {
  const parse =
    probe.parse ?? (probe.transport === 'tmux_up' ? 'probe_error' : 'transport_unavailable');
  return {
    outcome: {
      transport: probe.transport,
      process: probe.process,
      parse,
      error: probe.error ?? null,
    },
    evidence: {
      profile: profile.id,
      profileVersion: toolVersion ?? null,
      detector: 'probe',
      rule: `${probe.transport}/${probe.process}`,
      screenHash: null,
    },
  };
}

/** The evidence of a state a command (submit, resume) caused. */
export function commandEvidence(
  profile: ToolProfile,
  toolVersion: string | undefined,
  name: string,
): RecordEvidence {
  return {
    profile: profile.id,
    profileVersion: toolVersion ?? null,
    detector: `command:${name}`,
    rule: name,
    screenHash: null,
  };
}

/**
 * What the kernel sees: the profile's surface when diagnostics are available, else why not.
 * `projectionText` is the last readable transcript (a poll with no readable screen says
 * nothing of it).
 */
export function observationOf(
  diagnostics: string,
  parse: ParseOutcome | null,
  result: ProfileResult | null,
  projectionText: string,
): SurfaceObservation {
  const blank = {
    businessState: 'unknown',
    inputMode: 'unknown',
    projectionText,
    baselineInvalidated: false,
  } as const;
  if (diagnostics === 'available' && result)
    return { ...result.surface, baselineInvalidated: false };
  // The uiContext of these says why the surface is unknown: no chart reads it, a completion
  // observer asked about a turn in progress does.
  switch (diagnostics) {
    case 'tui_down':
    case 'unavailable':
      return { ...blank, availability: 'disconnected', uiContext: diagnostics };
    case 'error':
      return { ...blank, availability: 'unknown', uiContext: 'probe_error' };
    default:
      return parse === 'unsupported_tool'
        ? {
            ...blank,
            availability: 'unsupported',
            // Stryker disable next-line StringLiteral: an unsupported surface fails the turn on this observation, before an observer could be asked, and no chart reads uiContext
            uiContext: 'unsupported_tool',
          }
        : { ...blank, availability: 'unknown', uiContext: 'unknown' };
  }
}
