/**
 * What the MCP tools answer (structuredContent) is the operations' own answer, projected: each
 * field of a summary is the contract's very schema, so an enum value or a nullability added to
 * the contract reaches the tools' output schema, and a tool never declares a field of its own
 * that could drift (the one field a tool adds is its `reason` sentence).
 */
import { describe, expect, it } from 'vitest';
import { TerminalSummary, TurnOutcome } from '../../src/mcp/summary.js';
import { TerminalView, TurnPayload, TurnResponse } from '../../src/schemas/operations/index.js';

const V = TerminalView.shape;
const R = TurnResponse.shape;
const S = TerminalSummary.shape;
const O = TurnOutcome.shape;

describe('the MCP summaries are built from the contract', () => {
  it('a terminal summary: every field is the terminal view’s schema', () => {
    const pairs: Array<[unknown, unknown, string]> = [
      [S.terminalId, V.terminalId, 'terminalId'],
      [S.target, V.target, 'target'],
      [S.tool, V.tool, 'tool'],
      [S.toolVersion, V.toolVersion, 'toolVersion'],
      [S.toolVersionVerified, V.toolVersionVerified, 'toolVersionVerified'],
      [S.readiness, V.readiness.shape.status, 'readiness'],
      [S.activity, V.surface.shape.businessState, 'activity'],
      [S.blockedPrompt, V.surface.shape.blockedPrompt, 'blockedPrompt'],
      [S.question, V.surface.shape.question, 'question'],
      [S.availability, V.diagnostics.shape.availability, 'availability'],
      [S.turn.shape.phase, V.turn.shape.phase, 'turn.phase'],
      [S.lastTurn.shape.turnId, V.lastTurn.shape.turnId, 'lastTurn.turnId'],
      [S.lastTurn.shape.outcome, V.lastTurn.shape.result, 'lastTurn.outcome'],
      [S.session, V.session, 'session'],
      [S.chatContext.shape.state, V.chatContext.shape.state, 'chatContext.state'],
      [S.operations.shape.sendPrompt, V.operations.shape.sendInput, 'operations.sendPrompt'],
      [S.operations.shape.interrupt, V.operations.shape.interrupt, 'operations.interrupt'],
      [S.operations.shape.resume, V.operations.shape.resume, 'operations.resume'],
      [S.operations.shape.answerQuestion, V.operations.shape.answer, 'operations.answerQuestion'],
    ];
    for (const [ours, theirs, name] of pairs) expect(ours, name).toBe(theirs);
    // Derived ones: the same inner schema, made nullable where the view nests or omits it.
    expect(S.turn.shape.currentTurnId.unwrap()).toBe(V.turn.shape.current.unwrap().shape.id);
    expect(S.chatContext.shape.degradedErrorType).toBe(
      V.chatContext.shape.degradedErrorType.unwrap(),
    );
  });

  it('a turn outcome: every field but the sentence is the wait’s answer’s schema', () => {
    expect(O.turnId).toBe(R.turnId);
    expect(O.result).toBe(R.result);
    expect(O.outcome).toBe(R.lastTurn.shape.result);
    expect(O.completion.unwrap()).toBe(R.completion.unwrap().shape.status);
    expect(O.reply).toBe(TurnPayload.shape.reply);
    expect(O.durationMs).toBe(TurnPayload.shape.timing.shape.durationMs);
    const own = Object.keys(O).filter(
      (k) =>
        ![
          'terminalId',
          'turnId',
          'result',
          'outcome',
          'completion',
          'reply',
          'durationMs',
        ].includes(k),
    );
    expect(own).toEqual(['reason']);
  });

  it('a value the contract does not know is refused by the tool’s output schema', () => {
    const base = TerminalSummary.shape.readiness;
    expect(base.safeParse('ready').success).toBe(true);
    expect(base.safeParse('almost_ready').success).toBe(false);
  });
});
