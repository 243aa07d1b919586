import { describe, expect, it } from 'vitest';
import { KernelConfig } from '../../src/schemas/kernel.js';
import { DEFAULT_WITNESS_WINDOW_SECONDS } from '../../src/terminal/witness.js';
import { EXPECTATIONS, type ScenarioExpectation, type ToolExpectations } from './expectations.js';
import {
  completedAt,
  finishedOnScreenAt,
  isSubmitReady,
  loadReplayed,
  outcomesOf,
  stateAt,
  type Replayed,
} from './ground-truth.js';

// replayRecording runs with the default windows.
const { settleSeconds, stabilitySeconds } = KernelConfig.parse({});
// Float noise from converting epoch milliseconds to seconds.
const EPS = 1e-6;

function checkReadinessNeverEarly(r: Replayed, tool: ToolExpectations): void {
  const firstReady = r.frames.find(isSubmitReady);
  const early = r.states.filter(
    (s) => s.readiness.status === 'ready' && (firstReady === undefined || s.t < firstReady.t),
  );
  expect(
    early.map((s) => s.t),
    'readiness ready before the prompt box existed',
  ).toEqual([]);
  if (firstReady) expect(firstReady.text, 'first submit-ready frame').toMatch(tool.inputBox);
}

function checkTurns(r: Replayed, tool: ToolExpectations, exp: ScenarioExpectation): void {
  expect(
    r.turns.map((t) => t.id),
    'explicit turns in the recording',
  ).toEqual(exp.turns.map((_, i) => `turn-${i + 1}`));
  const allowance = exp.renderAllowanceSeconds ?? tool.renderAllowanceSeconds;
  const windows = settleSeconds + stabilitySeconds + r.pollSeconds + allowance;
  r.turns.forEach((turn, i) => {
    const expected = exp.turns[i]!;
    const label = `${turn.id} (true end ${turn.trueEnd?.toFixed(3) ?? 'none'})`;
    const outcomes = outcomesOf(r.states, turn.id);
    const completed = completedAt(r.states, turn.id);
    if (exp.witnesses) {
      // The witness the turn's outcome ends with: a record that confirms the screen's outcome
      // within the window makes it `both`.
      const last = r.states.findLast((s) => s.lastTurn.turnId === turn.id);
      const witness = last?.lastTurn.result === 'none' ? null : (last?.lastTurn.witness ?? null);
      expect(witness, `${label}: witness`).toBe(exp.witnesses[i] ?? null);
    }

    if (expected === 'none') {
      expect(outcomes, `${label}: outcomes`).toEqual([]);
      expect(completed, `${label}: completed at`).toBeNull();
      return;
    }
    if (exp.unsent?.includes(i + 1)) {
      expect(turn.requests, `${label}: the server saw no request of this turn`).toEqual([]);
      // `unknown`: the screen shows no outcome, but the turn is over (the prompt box is back).
      expect(
        outcomes.map((o) => o.result),
        `${label}: outcomes`,
      ).toEqual(expected === 'unknown' ? [] : [expected]);
      expect(completed, `${label}: completion reported`).not.toBeNull();
      return;
    }
    expect(turn.trueEnd, `${label}: the server saw a streaming request`).not.toBeNull();
    const trueEnd = turn.trueEnd!;
    if (expected === 'unknown') {
      expect(outcomes, `${label}: outcomes (the screen shows none)`).toEqual([]);
      expect(completed, `${label}: completion reported`).not.toBeNull();
      if (!exp.abandonsStream) {
        expect(completed!, `${label}: completed at`).toBeGreaterThanOrEqual(trueEnd - EPS);
      }
      return;
    }
    expect(
      outcomes.map((o) => o.result),
      `${label}: outcomes`,
    ).toEqual([expected]);
    const outcomeAt = outcomes[0]!.t;
    // Nothing may be reported before the last streaming request truly ended.
    expect(outcomeAt, `${label}: ${expected} reported at`).toBeGreaterThanOrEqual(trueEnd - EPS);
    expect(completed, `${label}: completion reported`).not.toBeNull();
    expect(completed!, `${label}: completed at`).toBeGreaterThanOrEqual(trueEnd - EPS);

    const onScreen = finishedOnScreenAt(r, trueEnd);
    expect(onScreen, `${label}: a finished frame after the stream ended`).not.toBeNull();
    // A dialog shown after the stream ended waits on the operator (whose key press the
    // recording does not time), so the drawing delay is only measured without one.
    const dialogAfterEnd =
      exp.dialog !== undefined &&
      r.frames.some((f) => f.t >= trueEnd && f.t < onScreen! && f.text.includes(exp.dialog!));
    if (!dialogAfterEnd && !exp.endedByKey) {
      expect(onScreen! - trueEnd, `${label}: render lag`).toBeLessThanOrEqual(
        r.pollSeconds + allowance + EPS,
      );
    }
    if (expected === 'success') {
      expect(outcomeAt - trueEnd, `${label}: success lag`).toBeLessThanOrEqual(windows + EPS);
      expect(completed! - trueEnd, `${label}: completion lag`).toBeLessThanOrEqual(windows + EPS);
    } else {
      // Interruption and failure need no settle window: reported on the frame that shows them
      // (some CLIs draw the idle prompt a frame before the outcome line; a turn read as
      // interrupted because it vanished, as Claude Code's does, has no such line).
      const shown = r.frames.find(
        (f) =>
          f.t >= trueEnd - EPS &&
          (expected === 'interrupted'
            ? f.parsed?.signals.interrupted === true
            : (f.parsed?.signals.knownFailure ?? null) !== null),
      );
      // A screen that never shows it (Cline draws an interrupted reply like a finished one)
      // leaves it to the session record, which wins once the witness window ran out.
      const last = r.states.findLast((s) => s.lastTurn.turnId === turn.id);
      const recordAlone = shown === undefined && last?.lastTurn.witness === 'record';
      expect(outcomeAt, `${label}: ${expected} reported at`).toBeLessThanOrEqual(
        Math.max(onScreen!, shown?.t ?? onScreen!) +
          (recordAlone ? DEFAULT_WITNESS_WINDOW_SECONDS + r.pollSeconds : 0) +
          EPS,
      );
    }
  });
}

function checkDialog(r: Replayed, marker: string): void {
  const shown = r.frames.filter((f) => f.text.includes(marker));
  expect(shown.length, `frames showing "${marker}"`).toBeGreaterThan(0);
  for (const f of shown) {
    const s = stateAt(r.states, f.t)!;
    expect(s.readiness.status, `readiness at ${f.t} (dialog shown)`).toBe('blocked');
    const turn = r.turns.filter((t) => t.inputAt <= f.t).at(-1);
    if (turn) {
      expect(s.completion?.turnId, `completion turn at ${f.t}`).toBe(turn.id);
      expect(s.completion?.status, `completion at ${f.t} (dialog shown)`).toBe('blocked');
    }
  }
  const last = shown[shown.length - 1]!;
  const after = r.frames.find((f) => f.t > last.t);
  expect(after, 'a frame after the dialog closed').toBeDefined();
  const released = stateAt(r.states, after!.t)!;
  expect(released.readiness.status, `readiness at ${after!.t} (dialog gone)`).not.toBe('blocked');
  if (released.completion) {
    expect(released.completion.status, `completion at ${after!.t} (dialog gone)`).not.toBe(
      'blocked',
    );
  }
}

function checkHang(r: Replayed): void {
  const turn = r.turns[0]!;
  const hung = turn.requests.find((q) => q.outcome === 'hung');
  expect(hung, 'the server logged a hung stream').toBeDefined();
  const from = hung!.firstByteAt ?? hung!.receivedAt;
  const during = r.states.filter((s) => s.t >= from && s.t < hung!.endedAt - EPS);
  for (const s of during) {
    expect(s.turn.phase, `turn phase at ${s.t} (stream hanging)`).toBe('active');
    // Before the CLI draws its spinner the turn may still be `waiting`; never a candidate.
    expect(['waiting', 'in_progress'], `completion at ${s.t} (stream hanging)`).toContain(
      s.completion?.status,
    );
  }
  const lastMoment = stateAt(r.states, hung!.endedAt - EPS)!;
  expect(lastMoment.completion?.status, 'completion as the hung stream ends').toBe('in_progress');
}

/**
 * A turn leaves the turn phase (an outcome, or the stale-active rule ending it with none) never
 * before its last streaming request truly ended.
 */
function checkPhaseNeverEndsEarly(r: Replayed, exp: ScenarioExpectation): void {
  if (exp.abandonsStream) return;
  for (const turn of r.turns) {
    if (turn.trueEnd === null) continue;
    const open = r.states.findIndex((s) => s.turn.current?.id === turn.id);
    if (open < 0) continue;
    const ended = r.states.slice(open).find((s) => s.turn.current?.id !== turn.id);
    if (!ended) continue;
    expect(ended.t, `${turn.id}: left the turn phase at`).toBeGreaterThanOrEqual(
      turn.trueEnd - EPS,
    );
  }
}

/**
 * A recording that ends on an idle prompt (diagnostics available, ready posture, no activity)
 * ends with no turn open: phase `ready`, whether or not the screen told how the turn ended.
 */
function checkNoTurnLeftActive(r: Replayed): void {
  const last = r.states[r.states.length - 1]!;
  const lastFrame = r.frames[r.frames.length - 1];
  const sig = lastFrame?.parsed?.signals;
  if (last.diagnostics.availability !== 'available' || !sig) return;
  if (sig.readyPosture !== 'yes' || sig.ambiguous || sig.activeReasons.length > 0) return;
  expect(last.turn.phase, 'final turn phase (an idle prompt)').toBe('ready');
  expect(last.turn.current, 'final open turn').toBeNull();
}

function checkFinal(r: Replayed, exp: ScenarioExpectation): void {
  const last = r.states[r.states.length - 1]!;
  if (exp.final?.diagnostics)
    expect(last.diagnostics.availability, 'final diagnostics').toBe(exp.final.diagnostics);
  if (exp.final?.readiness)
    expect(last.readiness.status, 'final readiness').toBe(exp.final.readiness);
}

/**
 * The chat context reads `degraded` only once the frame with the CLI's own message is there,
 * with the expected diagnostic, and only in recordings that show one; it never ends or decides a
 * turn (the turn outcomes are checked against the server's log above, with it or without).
 */
function checkChatContext(r: Replayed, exp: ScenarioExpectation): void {
  const degraded = r.states.filter((s) => s.chatContext.state === 'degraded');
  if (!exp.chatContext) {
    expect(
      degraded.map((s) => s.t),
      'states reading the chat context degraded',
    ).toEqual([]);
    return;
  }
  const shown = r.frames.find((f) => exp.chatContext!.shownBy.test(f.text));
  expect(shown, 'a frame showing the context trouble').toBeDefined();
  expect(degraded.length, 'states reading the chat context degraded').toBeGreaterThan(0);
  expect(degraded[0]!.t, 'first degraded state').toBeGreaterThanOrEqual(shown!.t - EPS);
  for (const s of degraded) {
    expect(s.chatContext, `chat context at ${s.t}`).toEqual({
      state: 'degraded',
      degradedErrorType: exp.chatContext.degradedErrorType,
    });
  }
  const last = r.states[r.states.length - 1]!;
  expect(last.chatContext.state, 'final chat context').toBe(
    exp.chatContext.cleared ? 'current' : 'degraded',
  );
}

for (const [toolId, tool] of Object.entries(EXPECTATIONS)) {
  describe(`replay of real ${toolId} recordings against the fake server's log`, () => {
    for (const [scenario, exp] of Object.entries(tool.scenarios)) {
      (exp.knownProfileWeakness?.failing.includes('submitted') ? it.fails : it)(scenario, () => {
        const r = loadReplayed(toolId, scenario);
        expect(r.states.length).toBeGreaterThan(0);
        checkReadinessNeverEarly(r, tool);
        checkTurns(r, tool, exp);
        if (exp.dialog) checkDialog(r, exp.dialog);
        if (exp.hang) checkHang(r);
        checkFinal(r, exp);
        checkChatContext(r, exp);
        checkPhaseNeverEndsEarly(r, exp);
        checkNoTurnLeftActive(r);
      });
    }
  });
}
