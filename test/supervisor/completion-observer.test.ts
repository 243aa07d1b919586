import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom, map, take, timeout } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createSupervisor,
  type CompletionObserver,
  type ObservedFrame,
  type Supervisor,
} from '../../src/index.js';
import type { CompletionAuthority } from '../../src/terminal/witness.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from './internal/stand-in-profile.js';

/** The stand-in agent's reply line right above its prompt: the turn's reply is drawn. */
function replied(f: ObservedFrame): boolean {
  const lines = f.text.split('\n').map((l) => l.trimEnd());
  while (lines.length > 0 && lines.at(-1) === '') lines.pop();
  return f.activity && lines.at(-1)!.startsWith('❯') && (lines.at(-2) ?? '').startsWith('● reply');
}

// The screen alone: a success settles 2 s after the reply is drawn, and the completion chart's
// candidate 3 s after; an observer that knows sooner does not wait for either.
const SETTLE = 2;
const STABILITY = 3;

/**
 * Completion observers on a real pane (docs/witness.md): a custom observer that reads the reply
 * from the frames ends the turn before the screen settles.
 */
describe('completion observers, on a real pane', () => {
  let agent: AgentSession;
  let dir: string;
  let sup: Supervisor | null = null;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-observer-'));
    agent = await startAgentSession({
      cwd: dir,
      env: { STAND_IN_WORK_MS: '1200' },
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
  });

  afterEach(async () => {
    await sup?.stop();
    sup = null;
  });

  afterAll(async () => {
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(
    observers: CompletionObserver[],
    completionAuthority?: CompletionAuthority,
  ): Promise<{ sup: Supervisor; id: string }> {
    const s = createSupervisor({
      socketName: agent.socketName,
      dataDir: null,
      config: { pollIntervalSeconds: 0.1, settleSeconds: SETTLE, stabilitySeconds: STABILITY },
      profiles: { stand_in: standInProfile },
      completionObservers: observers,
      ...(completionAuthority ? { completionAuthority } : {}),
    });
    sup = s;
    const id = await s.attach({ target: agent.target, tool: 'stand_in' });
    await firstValueFrom(
      s.state$(id).pipe(
        filter((st) => st.readiness.status === 'ready'),
        timeout(15_000),
      ),
    );
    return { sup: s, id };
  }

  /** An observer that says success on the first frame showing the reply, and when it saw it. */
  function replyObserver() {
    const seen: { at: number | null; contexts: { tool: string; panePid: number | null }[] } = {
      at: null,
      contexts: [],
    };
    const observer: CompletionObserver = {
      name: 'reply-line',
      observe: (ctx) => {
        seen.contexts.push({ tool: ctx.tool, panePid: ctx.panePid });
        return ctx.frames.pipe(
          filter(replied),
          take(1),
          map((f) => {
            seen.at = f.t;
            return { reason: 'success' as const };
          }),
        );
      },
    };
    return { observer, seen };
  }

  it('under the default authority, its success agrees with the reply at once: both, before the screen settles', async () => {
    const { observer, seen } = replyObserver();
    const { sup: s, id } = await start([observer]);
    const result = await s.runTurn(id, 'the observed prompt', { timeoutMs: 30_000 });
    expect(result.lastTurn).toMatchObject({ result: 'success', witness: 'both' });
    expect(seen.at).not.toBeNull();
    expect(seen.contexts[0]).toMatchObject({ tool: 'stand_in', panePid: expect.any(Number) });
    // The screen alone would settle SETTLE s after the reply, and complete STABILITY s after.
    expect(result.lastTurn.at! - seen.at!).toBeLessThan(0.5);
    expect(result.result).toBe('completed');
    expect(Date.now() / 1000 - seen.at!).toBeLessThan(SETTLE);
    await s.journal.flush();
    const ended = s.history(id).find((r) => r.kind === 'turn.ended' && r.turnId === result.turnId);
    expect(ended).toMatchObject({ witness: 'both', observer: { name: 'reply-line' } });
    // The state change it made at once names it as its evidence.
    expect(
      s
        .history(id)
        .some((r) => r.kind === 'state' && r.evidence?.detector === 'observer:reply-line'),
    ).toBe(true);
  }, 60_000);

  it('under markers, the observer decides alone: witness observer, before the screen settles', async () => {
    const { observer, seen } = replyObserver();
    const { sup: s, id } = await start([observer], 'markers');
    const result = await s.runTurn(id, 'another observed prompt', { timeoutMs: 30_000 });
    expect(result.lastTurn).toMatchObject({ result: 'success', witness: 'observer' });
    expect(result.lastTurn.at! - seen.at!).toBeLessThan(0.5);
    expect(Date.now() / 1000 - seen.at!).toBeLessThan(SETTLE);
  }, 60_000);

  it('the screen alone, for comparison, settles no sooner than its window', async () => {
    // An observer that watches no turn: its silence holds nothing.
    const mute: CompletionObserver = { name: 'mute', observe: () => null };
    const { sup: s, id } = await start([mute]);
    const result = await s.runTurn(id, 'an unobserved prompt', { timeoutMs: 30_000 });
    expect(result.lastTurn).toMatchObject({ result: 'success' });
    expect(result.lastTurn.witness ?? 'surface').toBe('surface');
    await s.journal.flush();
    const s0 = s.history(id).find((r) => r.kind === 'turn.started' && r.turnId === result.turnId);
    expect(s0).toBeDefined();
    expect(result.lastTurn.at! - (s0 as { startedAt: number }).startedAt).toBeGreaterThan(
      1.2 + SETTLE - 0.2,
    );
  }, 60_000);

  it('under both, a failure it tells against the screen’s success wins after the window, as the record’s would', async () => {
    const failing: CompletionObserver = {
      name: 'strict',
      observe: (ctx) =>
        ctx.frames.pipe(
          filter((f) => f.activity),
          take(1),
          map(() => ({ reason: 'known_failure' as const, kind: 'policy_violation' })),
        ),
    };
    const { sup: s, id } = await start([failing]);
    const result = await s.runTurn(id, 'a prompt the observer rejects', { timeoutMs: 30_000 });
    // The completion chart ends on the screen's candidate; the turn's outcome is the observer's.
    const outcome = await firstValueFrom(
      s.state$(id).pipe(
        filter((st) => st.lastTurn.turnId === result.turnId && st.lastTurn.result !== 'none'),
        timeout(15_000),
      ),
    );
    expect(outcome.lastTurn).toMatchObject({ result: 'known_failure', witness: 'observer' });
    await s.journal.flush();
    const records = s.history(id);
    expect(
      records.find((r) => r.kind === 'turn.ended' && r.turnId === result.turnId),
    ).toMatchObject({
      outcome: 'known_failure',
      witness: 'observer',
      observer: { name: 'strict' },
    });
    expect(
      records.find((r) => r.kind === 'anomaly' && r.anomaly === 'witness_disagreement'),
    ).toMatchObject({
      turnId: result.turnId,
      record: 'known_failure',
      decided: 'observer',
      evidence: { observer: 'strict' },
    });
  }, 60_000);

  it('an observer that throws is named in the journal, and the screen still decides', async () => {
    const broken: CompletionObserver = {
      name: 'broken',
      observe: () => {
        throw new Error('no such sentinel');
      },
    };
    const { sup: s, id } = await start([broken]);
    const result = await s.runTurn(id, 'a prompt for a broken observer', { timeoutMs: 30_000 });
    expect(result.lastTurn.result).toBe('success');
    await s.journal.flush();
    expect(
      s
        .history(id)
        .find((r) => r.kind === 'anomaly' && r.anomaly === 'completion_observer_problem'),
    ).toMatchObject({
      observer: 'broken',
      turnId: result.turnId,
      why: expect.stringMatching(/no such sentinel/),
    });
  }, 60_000);

  it('bad observers are refused naming the field', () => {
    expect(() =>
      createSupervisor({
        socketName: agent.socketName,
        dataDir: null,
        completionObservers: [{ name: '1st', observe: () => null }],
      }),
    ).toThrow(/completionObservers\[0\]\.name/);
    expect(() =>
      createSupervisor({
        socketName: agent.socketName,
        dataDir: null,
        completionObservers: [
          { name: 'a', observe: () => null },
          { name: 'a', observe: () => null },
        ],
      }),
    ).toThrow(/completionObservers\[1\]\.name.*given twice/);
    expect(() =>
      createSupervisor({
        socketName: agent.socketName,
        dataDir: null,
        completionObservers: [{ name: 'a' } as unknown as CompletionObserver],
      }),
    ).toThrow(/completionObservers\[0\]\.observe/);
  });
});
