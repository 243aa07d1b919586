import type {
  OutcomeEvent,
  TurnEvidence,
  TurnFrame,
  TurnPhaseContext,
  TurnPhaseEmitted,
  TurnPhaseEvent,
} from './turnPhase.types.js';

// What the turn-phase chart's guards and actions read of a frame and of the chart's context.

export type Ctx = { context: TurnPhaseContext; event: TurnPhaseEvent };

/** The frame an event is: the guards and actions that read it are bound to `frame` only. */
export const frameOf = (event: TurnPhaseEvent): TurnFrame =>
  event as Extract<TurnPhaseEvent, { type: 'frame' }>;
export const isActive = (f: TurnFrame): boolean => f.signals.activeReasons.length > 0;
export const outcomeShown = (f: TurnFrame): boolean =>
  f.signals.interrupted || f.signals.knownFailure !== null;
/** The interrupt or failure marker a frame shows, as a comparable key; null: none. */
export const markerOf = (f: TurnFrame): string | null =>
  outcomeShown(f)
    ? JSON.stringify([
        f.signals.interrupted,
        f.signals.knownFailure?.kind ?? null,
        f.signals.knownFailure?.message ?? null,
      ])
    : null;

/**
 * The open turn's own marker: an interrupt or failure marker that was not already on screen
 * when the turn was armed (the frame before the submit), or that went away (or changed) since
 * and is shown again. Until the CLI redraws, a just-armed turn's frames still show the last
 * turn's marker while the screen already moved (the pasted prompt, a scroll): that marker is the
 * last turn's outcome, not this one's. A turn showing only the last turn's marker goes on.
 */
export function ownMarker(c: TurnPhaseContext, f: TurnFrame): boolean {
  const ev = evidenceWith(c, f);
  // The evidence folded in this frame: its markerChanged already compares this frame's marker.
  return ev !== null && outcomeShown(f) && ev.markerChanged;
}

/** The open turn's evidence once this frame is folded in (a turn has evidence exactly while open). */
export function evidenceWith(context: TurnPhaseContext, f: TurnFrame): TurnEvidence | null {
  const ev = context.evidence;
  if (!ev) return null;
  const sawActive = ev.sawActive || isActive(f);
  const markerChanged = ev.markerChanged || markerOf(f) !== ev.markerAtArm;
  if (ev.projectionChanged) {
    if (sawActive === ev.sawActive && markerChanged === ev.markerChanged) return ev;
    return { ...ev, sawActive, markerChanged };
  }
  // Not changed yet: this frame's projection against the armed one (a restored turn takes it).
  const text = ev.projectionAtArm ?? (ev.printAtArm === null ? f.projection : null);
  const changed =
    text !== null ? f.projection !== text : screenPrint(f.projection) !== ev.printAtArm;
  return {
    projectionAtArm: changed ? null : text,
    printAtArm: changed && text !== null ? screenPrint(text) : ev.printAtArm,
    sawActive,
    projectionChanged: changed,
    markerAtArm: ev.markerAtArm,
    markerChanged,
  };
}

/** Whether the frame shows the projection the turn was armed on. */
function showsArmed(ev: TurnEvidence, f: TurnFrame): boolean {
  if (ev.projectionAtArm !== null) return f.projection === ev.projectionAtArm;
  // A print is never null: with none kept, no frame shows the armed projection.
  return screenPrint(f.projection) === ev.printAtArm;
}

/**
 * A fingerprint of a projection, for what the chart keeps of a screen after it changed (the
 * one a turn was armed on, the one a success settled on): compared only for equality, where
 * the text would keep a whole screen per terminal. Its length and two independent 32-bit
 * multiplicative hashes of its UTF-16 code units: two different projections of equal length
 * share a print with a chance of about 2^-64.
 */
export function screenPrint(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return `${text.length.toString(36)}.${(a >>> 0).toString(36)}.${(b >>> 0).toString(36)}`;
}

/**
 * A turn that worked, then vanished from the transcript with its prompt handed back as a draft,
 * was withdrawn: an interrupt before any reply (what Claude Code does on Escape).
 */
export function withdrawn(context: TurnPhaseContext, f: TurnFrame): boolean {
  const before = context.evidence;
  return (
    before !== null &&
    before.sawActive &&
    !isActive(f) &&
    f.signals.editingInput === 'yes' &&
    showsArmed(before, f)
  );
}

export const settleSignature = (f: TurnFrame): string =>
  JSON.stringify([
    f.projection,
    f.signals.readyPosture,
    f.signals.acceptingInput,
    f.signals.chatContext,
  ]);

/** What the stale-active window watches: any change of it restarts the window. */
export const staleSignature = (f: TurnFrame): string => JSON.stringify([f.projection, f.signals]);

export const idlePhaseOf = (f: TurnFrame): 'ready' | 'unknown' =>
  f.signals.readyPosture === 'yes' && !f.signals.ambiguous ? 'ready' : 'unknown';

export const guard =
  (rule: (context: TurnPhaseContext, f: TurnFrame) => boolean) =>
  ({ context, event }: Ctx): boolean =>
    rule(context, frameOf(event));

/** The seed event that moves the phase from `from` to `to` (none when already there). */
export const PHASE_EVENT = {
  unknown: { ready: 'evt_ready_posture', active: 'evt_turn_started', unknown: null },
  ready: { active: 'evt_turn_started', unknown: 'evt_posture_lost', ready: null },
  active: { ready: 'evt_turn_finished', unknown: 'evt_posture_lost', active: null },
} as const;

export type Phase = keyof typeof PHASE_EVENT;

/** Which phase each phase action moves to. */
export const PHASE_PICK = {
  unknown: () => 'unknown',
  ready: () => 'ready',
  active: () => 'active',
  /** Ready when the screen is an idle prompt (ready posture, not ambiguous), else unknown. */
  idle: ({ event }) => idlePhaseOf(frameOf(event)),
  /** Active while a turn is open, else the idle phase. */
  default: ({ context, event }) => (context.current ? 'active' : idlePhaseOf(frameOf(event))),
  /** After a settled success: ready if the last frame had the ready posture. */
  settled: ({ context }) => (context.lastReadyPosture === 'yes' ? 'ready' : 'unknown'),
} satisfies Record<string, (args: Ctx) => Phase>;

export function outcomeOf(
  name: OutcomeEvent,
  rule: string,
  { context, event }: Ctx,
): TurnPhaseEmitted {
  const turn = context.current!;
  return {
    type: 'outcome',
    outcome: name,
    turnId: turn.id,
    source: turn.source,
    startedAt: turn.startedAt,
    at: 't' in event ? event.t : 0,
    rule,
  };
}

/**
 * The hand-typed prompt pending after this frame: a draft that left the input box while the
 * transcript changed starts one; a new draft drops it, and so does a transcript back to what it
 * was before (the change was a redraw, not a prompt: a turn inferred from it would have no
 * evidence of its own, and nothing could end it); otherwise it stays.
 */
export function handPromptAfter(
  c: TurnPhaseContext,
  f: TurnFrame,
): {
  at: number;
  projectionBefore: string;
  markerBefore: string | null;
} | null {
  if (f.signals.editingInput === 'yes') return null;
  if (
    c.lastEditing === 'yes' &&
    // Stryker disable next-line ConditionalExpression: the frame that set lastEditing set lastProjection too, so it is never null when lastEditing is 'yes'
    c.lastProjection !== null &&
    f.projection !== c.lastProjection
  ) {
    return (
      c.handPrompt ?? {
        at: f.t,
        projectionBefore: c.lastProjection,
        markerBefore: c.lastMarker,
      }
    );
  }
  if (c.handPrompt !== null && f.projection === c.handPrompt.projectionBefore) return null;
  return c.handPrompt;
}
