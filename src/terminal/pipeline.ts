import { normalizeProjection, type SurfaceObservation } from '../../machines/surface.js';
import { isVerified } from '../profiles/internal/define.js';
import type { ToolProfile, Screen } from '../profiles/types.js';
import { boundReason } from '../profiles/session-record.js';
import type { ParseOutcome, ProbeOutcome } from '../schemas/probe.js';
import type { RecordDraft } from '../schemas/record.js';
import { NO_SIGNALS, type ProfileResult, type ReadQuestion } from '../schemas/signals.js';
import type { PipelineOptions } from './options.js';
import { commandEvidence, observationOf, readFrame, readProbe, type ProbeFacts } from './frame.js';
import { unrecognisedRecord, unverifiedVersionRecord, UnrecognisedScreens } from './records.js';
import { sameData } from '../internal/same-data.js';
import { TerminalDrivers } from './drivers.js';
import type { HookTurnEvent } from '../hooks/events.js';
import type { ObserverEnding } from './witness.js';
import type { ObserverReport } from '../sessions/observer.js';

export type { PipelineOptions, ProbeFacts };

/** Availability, business state, input mode and normalised projection of one frame. */
type SurfaceKey = readonly [string, string, string, string];

function sameSurface(a: SurfaceKey, b: SurfaceKey | null): boolean {
  return b !== null && a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3];
}

/**
 * The per-terminal pipeline: probe + screen → profile → the charts (diagnostics, readiness,
 * completion, turn phase, last turn, watchdog) → the public terminal state and the record
 * stream. The same code runs live (charts as children of the terminal actor) and in replay
 * (on virtual time); it keeps time and evidence, the charts decide. Reading a frame
 * (frame.ts), composing the state (state.ts) and the records (records.ts) are pure functions;
 * the drivers of the charts and the publishing of the state are {@link TerminalDrivers}'s
 * (drivers.ts). This class takes what comes in: frames, probes, submits, witness reports.
 */
export class TerminalPipeline extends TerminalDrivers {
  private readonly unrecognised = new UnrecognisedScreens();
  private surfaceKey: SurfaceKey | null = null;
  /** The observation made of the last reading (while diagnostics were available). */
  private lastObservation: { result: ProfileResult; obs: SurfaceObservation } | null = null;
  /** The latest capture, for people looking at the pane (never published or journaled). */
  private lastScreen: { text: string; t: number } | null = null;
  /** The last screen read and its reading: a pane at rest is captured the same many times. */
  private lastReading: { profile: ToolProfile; screen: Screen; result: ProfileResult } | null =
    null;
  /**
   * Reads a screen with the current profile; a profile is pure, so a repeat is not read again.
   * A screen that reads the same as the last (a spinner frame: the glyph and the counter moved,
   * the reading did not) hands on the last reading itself, so that what follows compares it
   * first by identity.
   */
  private readonly readScreen = (screen: Screen): ProfileResult => {
    const last = this.lastReading;
    if (last && last.profile === this.profile) {
      if (last.screen.text === screen.text && last.screen.ansi === screen.ansi) return last.result;
      const result = this.profile.parse(screen);
      const same = sameData(result, last.result);
      this.lastReading = { profile: this.profile, screen, result: same ? last.result : result };
      return this.lastReading.result;
    }
    const result = this.profile.parse(screen);
    this.lastReading = { profile: this.profile, screen, result };
    return result;
  };

  /**
   * Starts the session: continues the watchdog window the journal recorded (a fired one stays
   * fired), or opens one at `t` when the terminal has a budget.
   */
  startSession(t: number): void {
    this.advance(t);
    const window = this.o.restore?.watchdog;
    if (window) this.watchdog.restore(t, window);
    else {
      this.watchdog.start(t);
      this.recordWindow('started');
    }
    this.publish(t);
  }

  /** An explicit resume after the watchdog fired: a fresh window from `t`. */
  resumeSession(t: number): void {
    this.advance(t);
    const before = this.watchdog.state;
    this.watchdog.resume(t);
    if (before === 'fired') this.recordWindow('resumed');
    this.evidence = commandEvidence(this.profile, this.toolVersion, 'resume');
    this.publish(t);
  }

  finishSession(t: number): void {
    this.advance(t);
    this.watchdog.finish(t);
    this.publish(t);
  }

  /** The dialog the latest frame shows, read as a question with its keys; null: none. */
  get question(): ReadQuestion | null {
    return this.state.surface.question === null ? null : (this.parsed?.question ?? null);
  }

  /** Records an answer given to a question; resolves once it is durable. */
  recordAnswer(
    answer: Omit<Extract<RecordDraft, { kind: 'question.answered' }>, 'kind' | 'terminalId'>,
  ): Promise<unknown> {
    return this.record({ kind: 'question.answered', terminalId: this.o.terminalId, ...answer });
  }

  /** The pane's latest capture and its time, or null before the first. */
  get screen(): { text: string; t: number } | null {
    return this.lastScreen;
  }

  /** One poll with a capture. */
  frame(t: number, screen: Screen, probe: ProbeFacts): void {
    this.advance(t);
    // A capture equal to the last one read is that one: each capture is a new string, and the
    // terminal keeps one copy of its screen, not one per frame that repeated it.
    const kept = this.lastReading?.screen;
    if (kept && kept !== screen && kept.text === screen.text && kept.ansi === screen.ansi) {
      screen = kept;
    }
    this.lastScreen = { text: screen.text, t };
    const read = readFrame(this.profile, this.toolVersion, screen, probe, this.readScreen);
    this.evidence = read.evidence;
    if (!read.unrecognised || this.unrecognised.note(t, read.evidence.screenHash!)) {
      this.flushUnrecognised(t);
    }
    this.step(t, read.outcome, read.result);
  }

  /**
   * The CLI's version, as attached (`attach`) or as read from the running CLI (`process`): the
   * screens are read with `profile` (picked for that version) from now on. A version the
   * profile was not verified against is recorded as an anomaly. Returns whether anything changed.
   */
  useVersion(
    t: number,
    version: string,
    profile: ToolProfile,
    source: 'attach' | 'process',
  ): boolean {
    if (source === 'process' && version === this.toolVersion) return false;
    this.advance(t);
    this.profile = profile;
    this.toolVersion = version;
    // Stryker disable next-line ArrayDeclaration: any list without this version reads the same
    if (!isVerified(profile.verified ?? [], version)) {
      void this.record(unverifiedVersionRecord(this.o.terminalId, t, profile, version, source));
    }
    this.evidence = null;
    this.publish(t);
    return true;
  }

  /** Records the unrecognised frames not yet recorded, if any. */
  private flushUnrecognised(t: number): void {
    const u = this.unrecognised.take(t);
    if (u)
      void this.record(unrecognisedRecord(this.o.terminalId, t, this.profile, this.toolVersion, u));
  }

  /** One poll that produced no capture. */
  probe(t: number, probe: ProbeFacts & { parse?: ParseOutcome }): void {
    this.advance(t);
    const read = readProbe(this.profile, this.toolVersion, probe);
    this.evidence = read.evidence;
    this.step(t, read.outcome, null);
  }

  /**
   * A prompt was submitted: arms an explicit-input turn (its completion actor compares with the
   * screen as it is now) and records it; returns the turn id, unique across restarts. `prompt`
   * (kept only for the turn's payload) helps find the reply on the screen.
   */
  submit(t: number, prompt?: string): string {
    this.advance(t);
    const turnId = `turn-${this.journal.index.nextTurnOf(this.o.terminalId)}`;
    if (prompt !== undefined) this.payloads?.submitted(turnId, prompt);
    this.kernel.submit(t, this.projectionText, turnId);
    this.completionTurnId = turnId;
    this.evidence = commandEvidence(this.profile, this.toolVersion, 'submit');
    this.turns.armExplicit(t, turnId);
    this.publish(t);
    return turnId;
  }

  /**
   * What the terminal's session-record observer reports (docs/witness.md): where the record is,
   * and its turn events, at observation time `t`.
   */
  sessionRecord(t: number, report: ObserverReport): void {
    const authority = this.o.witness?.authority;
    if (this.disposed || !authority) return;
    if (report.type === 'reply') {
      // Text for the turn's payload only: it changes no state and is never recorded.
      this.payloads?.reply(report.reply);
      return;
    }
    this.advance(t);
    if (report.type === 'status') {
      const s = report.status;
      const was = this.witness ?? { authority, record: 'searching', file: null, why: null };
      // Shown once a record was found (or refused): a terminal whose CLI never wrote one reads
      // as before.
      if (!this.witness && s.state === 'searching' && s.why === undefined) return;
      this.witness = {
        ...was,
        record: s.state,
        file:
          s.state === 'following'
            ? s.file
            : s.state === 'stepped_aside'
              ? s.position.file
              : was.file,
        why: s.why === undefined ? null : boundReason(s.why),
      };
      this.turns.recordAvailable(t, s.state === 'following');
      if (s.state === 'stepped_aside') {
        void this.record({
          kind: 'anomaly',
          anomaly: 'session_record_unknown',
          terminalId: this.o.terminalId,
          t,
          tool: this.profile.id,
          file: s.position.file,
          offset: s.position.offset,
          why: boundReason(s.why),
        });
      }
    } else if (report.type === 'skipped') {
      const { what, file, offset, why } = report.skip;
      void this.record({
        kind: 'anomaly',
        anomaly: 'session_record_skipped',
        terminalId: this.o.terminalId,
        t,
        tool: this.profile.id,
        file,
        offset,
        what,
        why: boundReason(why),
      });
      return;
    } else if (report.type === 'events') {
      for (const e of report.events) {
        // A side record's start (Cline's log) may be read after the record's reply of the same
        // turn: only the record's own prompt line clears the replies before it.
        if (e.type === 'turn_started' && !report.side) this.payloads?.recordTurnStarted();
        this.turns.recordEvent(t, e);
      }
    }
    this.evidence = null;
    this.publish(t);
  }

  /**
   * A turn event a hook of the CLI told (docs/hooks.md), at observation time `t`: the third
   * witness. False when the terminal has no completion witness to take it.
   */
  hookEvent(t: number, event: HookTurnEvent): boolean {
    if (this.disposed || !this.o.witness || this.o.witness.authority === 'surface') return false;
    this.advance(t);
    this.turns.hookEvent(t, event);
    // What changes now (an outcome, or the screen's outcome confirmed) names the hook's event.
    this.evidence = {
      ...commandEvidence(this.profile, this.toolVersion, event.event),
      detector: `hook:${event.event}`,
    };
    this.publish(t);
    this.evidence = null;
    return true;
  }

  /**
   * An ending a completion observer told (docs/witness.md), at observation time `t`. Answers
   * null when it was taken, else why not (see {@link TurnDriver.observerEnding}).
   */
  observerEnding(
    t: number,
    event: ObserverEnding,
  ): 'surface' | 'not_current_turn' | 'already_ended' | null {
    if (this.disposed) return 'not_current_turn';
    this.advance(t);
    const refused = this.turns.observerEnding(t, event);
    if (refused !== null) return refused;
    // A candidate the observer's success confirms completes now, not at the next frame.
    this.kernel.reconsider(t);
    this.evidence = {
      ...commandEvidence(this.profile, this.toolVersion, `observer:${event.observer}`),
      detector: `observer:${event.observer}`,
    };
    this.publish(t);
    this.evidence = null;
    return null;
  }

  /** Whether the open turn has shown evidence of its own (what an observer's frame says). */
  get turnHasEvidence(): boolean {
    return this.turns.turnHasEvidence;
  }

  dispose(): void {
    // Stryker disable next-line ConditionalExpression: a second dispose() would only repeat releases that are idempotent (charts, timers, subscriptions, closing the journal), with nothing left to record (an always-true guard is caught: nothing would be stopped)
    if (this.disposed) return;
    this.flushUnrecognised(this.times.now);
    this.disposed = true;
    this.turns.stop();
    this.watchdog.stop();
    this.diagnostics.dispose();
    this.kernel.dispose();
    this.timers.dispose();
    this.ownSite?.dispose();
    this.subject.complete();
    if (this.ownsJournal) void this.journal.close();
  }

  private step(t: number, outcome: ProbeOutcome, result: ProfileResult | null): void {
    this.probeOutcome = outcome;
    this.diagnostics.send({ type: 'probe', probe: outcome });
    const diagnostics = this.diagnostics.state;
    if (result) this.parsed = result;
    // A repeated screen's reading is observed as the same object (the charts compare it first).
    const last = this.lastObservation;
    const obs =
      diagnostics === 'available' && result !== null && last?.result === result
        ? last.obs
        : observationOf(diagnostics, outcome.parse, result, this.projectionText);
    this.lastObservation = diagnostics === 'available' && result !== null ? { result, obs } : null;
    this.kernel.observe(t, obs);
    this.turns.frame(t, {
      available: diagnostics === 'available' && result !== null,
      signals: result?.signals ?? NO_SIGNALS,
      // A poll with no readable screen says nothing of the transcript: it is as last seen (an
      // empty one would count as a change, evidence for a turn that did nothing).
      projectionText: obs.projectionText,
    });
    if (this.payloads && this.turns.snapshot().current === null && result !== null) {
      this.payloads.idleProjection(obs.projectionText);
    }
    // The surface as the stability window reads it; the projection is the string the turn chart
    // keeps too (normalizeProjection remembers its last answer), so no copy of the screen is made.
    const key: SurfaceKey = [
      obs.availability,
      obs.businessState,
      obs.inputMode,
      normalizeProjection(obs.projectionText),
    ];
    if (!sameSurface(key, this.surfaceKey)) {
      this.surfaceKey = key;
      this.times.surfaceSince = t;
      this.armStability(t);
    }
    this.publish(t);
  }
}
