import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { createSupervisor } from '../../src/index.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from './internal/stand-in-profile.js';

/** The parent of an actor, as the inspection events show it (the id path of its session). */
const parentOf = (ref: AnyActorRef): AnyActorRef | undefined =>
  (ref as unknown as { _parent?: AnyActorRef })._parent;

describe('the actor tree, seen through XState inspection', () => {
  let agent: AgentSession;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-inspect-'));
    agent = await startAgentSession({
      cwd: dir,
      env: {},
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
  });

  afterAll(async () => {
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is supervisor → terminal (system id = terminal id) → its charts, and every event is seen', async () => {
    const events: InspectionEvent[] = [];
    const sup = createSupervisor({
      socketName: agent.socketName,
      dataDir: null,
      config: { pollIntervalSeconds: 0.1, settleSeconds: 0.2, stabilitySeconds: 0.2 },
      profiles: { stand_in: standInProfile },
      inspect: (ev) => events.push(ev),
    });
    try {
      const id = await sup.attach({ target: agent.target, tool: 'stand_in', id: 'w1' });
      await firstValueFrom(
        sup.state$(id).pipe(
          filter((s) => s.readiness.status === 'ready'),
          timeout(10_000),
        ),
      );
      const turn = await sup.runTurn(id, 'hello', { timeoutMs: 10_000 });
      expect(turn.lastTurn.result).toBe('success');

      const actors = events
        .filter((e) => e.type === '@xstate.actor')
        .map((e) => e.actorRef as AnyActorRef);
      const root = actors.find((a) => a.id === 'supervisor')!;
      expect(root).toBeDefined();
      const terminal = actors.find((a) => a.id === 'w1')!;
      expect(parentOf(terminal)).toBe(root);
      expect(terminal.system.get('w1')).toBe(terminal);
      const charts = actors.filter((a) => parentOf(a) === terminal).map((a) => a.id);
      expect(charts).toEqual(
        expect.arrayContaining([
          'diagnostics',
          'readiness',
          'turnPhase',
          'lastTurn',
          'watchdog',
          'runtime',
        ]),
      );
      // One completion actor per turn, a child of the terminal too.
      expect(charts).toContain(`completion:${turn.turnId}`);
      // The charts' own events and transitions are visible: a frame classified by the turn-phase chart.
      const microsteps = events.filter(
        (e) => e.type === '@xstate.microstep' && parentOf(e.actorRef as AnyActorRef) === terminal,
      );
      const transitions = new Set(
        microsteps.flatMap((e) =>
          e.type === '@xstate.microstep'
            ? e._transitions.map((t) => `${(e.actorRef as AnyActorRef).id}:${t.eventType}`)
            : [],
        ),
      );
      for (const wanted of [
        'readiness:evt_submit_ready',
        'turnPhase:frame',
        'turnPhase:turn_armed',
        'lastTurn:evt_success_settled',
        'diagnostics:evt_probe_available',
      ]) {
        expect([...transitions]).toContain(wanted);
      }
    } finally {
      await sup.stop();
    }
  });
});
