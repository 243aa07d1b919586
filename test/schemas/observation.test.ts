import { describe, expect, it } from 'vitest';
import { describeZodError } from '../../src/internal/zod-errors.js';
import { CommandRequest } from '../../src/fleet/schemas.js';
import {
  COMMANDS,
  ObservationAnswer,
  ObservationBody,
} from '../../src/schemas/operations/index.js';
import { JournalRecord } from '../../src/schemas/record.js';
import { TerminalState } from '../../src/schemas/terminal-state.js';

/** What a completion observer posts, and what its endings leave in the journal (docs/witness.md). */
describe('completion observer schemas', () => {
  const ok = { observer: 'ci.tests', turnId: 'turn-3', reason: 'success' };

  it('takes an ending of each reason, a known failure with its kind', () => {
    expect(ObservationBody.parse(ok)).toEqual(ok);
    expect(ObservationBody.parse({ ...ok, reason: 'interrupted' }).reason).toBe('interrupted');
    const failed = { ...ok, reason: 'known_failure', kind: 'http_500' };
    expect(ObservationBody.parse(failed)).toEqual(failed);
  });

  it('names the field of each bad input', () => {
    for (const [body, field] of [
      [{ ...ok, observer: '' }, 'observer'],
      [{ ...ok, observer: 'a name with spaces' }, 'observer'],
      [{ ...ok, observer: 'x'.repeat(65) }, 'observer'],
      [{ ...ok, turnId: 'turn/3' }, 'turnId'],
      [{ ...ok, turnId: 3 }, 'turnId'],
      [{ ...ok, reason: 'failed' }, 'reason'],
      [{ ...ok, reason: 'known_failure' }, 'kind'],
      [{ ...ok, reason: 'known_failure', kind: 'a kind with spaces' }, 'kind'],
      [{ ...ok, kind: 'rate_limit' }, 'kind'],
      [{ ...ok, at: 1 }, 'at'],
    ] as const) {
      const r = ObservationBody.safeParse(body);
      expect(r.success, JSON.stringify(body)).toBe(false);
      expect(describeZodError(r.error!), JSON.stringify(body)).toContain(field);
    }
  });

  it('is an operation of the contract, carried by the fleet as any other', () => {
    expect(COMMANDS.observe.errors).toContain('refused');
    const call = {
      op: 'observe',
      requestId: 'req-00000001',
      expiresAt: 1,
      id: 't1',
      body: ok,
    };
    expect(CommandRequest.parse(call)).toEqual(call);
    expect(CommandRequest.safeParse({ ...call, body: { ...ok, reason: 'nope' } }).success).toBe(
      false,
    );
    expect(
      ObservationAnswer.parse({
        terminalId: 't1',
        turnId: 'turn-3',
        taken: 'ignored',
        why: 'surface',
      }),
    ).toMatchObject({ why: 'surface' });
  });

  it('the journal and the state name the observer as a witness', () => {
    const base = { v: 1, seq: 1, at: '2026-01-01T00:00:00.000Z', terminalId: 't1' };
    expect(
      JournalRecord.parse({
        ...base,
        kind: 'turn.ended',
        turnId: 'turn-3',
        source: 'explicit_input',
        outcome: 'success',
        t: 1,
        witness: 'observer',
        observer: { name: 'ci' },
      }),
    ).toMatchObject({ witness: 'observer', observer: { name: 'ci' } });
    expect(
      JournalRecord.parse({
        ...base,
        kind: 'anomaly',
        anomaly: 'witness_disagreement',
        t: 1,
        turnId: 'turn-3',
        record: 'known_failure',
        screen: { phase: 'active', successCandidate: true },
        decided: 'observer',
        evidence: { observer: 'ci' },
      }),
    ).toMatchObject({ evidence: { observer: 'ci' } });
    expect(
      JournalRecord.parse({
        ...base,
        kind: 'anomaly',
        anomaly: 'completion_observer_problem',
        t: 1,
        observer: 'ci',
        turnId: 'turn-3',
        why: 'observe threw: Error: x',
      }),
    ).toMatchObject({ anomaly: 'completion_observer_problem' });
    expect(TerminalState.shape.lastTurn.shape.witness.parse('observer')).toBe('observer');
  });
});
