import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../src/index.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { startAgentSession, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from './internal/stand-in-profile.js';

const until = (sup: Supervisor, id: string, pred: (s: TerminalState) => boolean, ms = 15_000) =>
  firstValueFrom(sup.state$(id).pipe(filter(pred), timeout(ms)));

describe('a supervisor restarted on the same data directory', () => {
  let agent: AgentSession;
  let dir: string;
  const open = (config: { settleSeconds?: number } = {}): Supervisor =>
    createSupervisor({
      socketName: agent.socketName,
      dataDir: join(dir, 'data'),
      config: { pollIntervalSeconds: 0.1, settleSeconds: 0.3, stabilitySeconds: 0.3, ...config },
      profiles: { stand_in: standInProfile },
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-readopt-'));
    agent = await startAgentSession({
      cwd: dir,
      env: { STAND_IN_WORK_MS: '2500' },
      command: [process.execPath, STAND_IN_AGENT],
    });
    await agent.waitForText(/❯/);
  });

  afterAll(async () => {
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('re-attaches what was attached, continues seq and turn ids, restores the last and the open turn', async () => {
    const first = open();
    const id = await first.attach({ target: agent.target, tool: 'stand_in', id: 'a1' });
    await until(first, id, (s) => s.readiness.status === 'ready');
    const done = await first.runTurn(id, 'first prompt', { timeoutMs: 20_000 });
    expect(done.lastTurn).toMatchObject({
      result: 'success',
      turnId: 'turn-1',
      source: 'explicit_input',
    });
    // A second turn is running when the supervisor goes away.
    const second = await first.submit(id, 'second prompt');
    expect(second).toBe('turn-2');
    await until(first, id, (s) => s.turn.phase === 'active' && s.completion?.sawWorking === true);
    await first.stop();
    const lastSeq = first.journal.durableSeq;

    const again = open();
    try {
      expect(again.ids()).toEqual(['a1']);
      const restored = await until(again, id, (s) => s.diagnostics.availability === 'available');
      expect(restored.lastTurn).toMatchObject({
        result: 'success',
        turnId: 'turn-1',
        source: 'explicit_input',
      });
      // The journal proves the open turn was submitted through paneward: it keeps its source.
      expect(restored.turn.current).toMatchObject({ id: 'turn-2', source: 'explicit_input' });
      // It ends where it can be seen: its own outcome, under its own id.
      const ended = await until(again, id, (s) => s.lastTurn.turnId === 'turn-2');
      expect(ended.lastTurn).toMatchObject({ result: 'success', source: 'explicit_input' });
      await until(again, id, (s) => s.readiness.status === 'ready' && s.completion === null);
      const third = await again.runTurn(id, 'third prompt', { timeoutMs: 20_000 });
      expect(third).toMatchObject({
        turnId: 'turn-3',
        lastTurn: { result: 'success', turnId: 'turn-3' },
      });
      await again.journal.flush();
      const seqs = again.journal.read().map((r) => r.seq);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
      expect(again.journal.read(lastSeq)[0]).toMatchObject({
        seq: lastSeq + 1,
        kind: 'supervisor.started',
      });
      expect(again.journal.read(lastSeq).find((r) => r.kind === 'terminal.attached')).toMatchObject(
        {
          terminalId: 'a1',
          readopted: true,
        },
      );
      again.detach(id);
    } finally {
      await again.stop();
    }

    const third = open();
    try {
      expect(third.ids(), 'a detached terminal is not re-attached').toEqual([]);
    } finally {
      await third.stop();
    }
  });
  it('keeps a restored turn active until it ends, also when its reply is already on screen', async () => {
    // A long settle window: the supervisor goes away after the reply, before the success.
    const first = open({ settleSeconds: 30 });
    const id = await first.attach({ target: agent.target, tool: 'stand_in', id: 'b1' });
    await until(first, id, (s) => s.readiness.status === 'ready' && s.completion === null);
    const turnId = await first.submit(id, 'a prompt answered before the restart');
    await until(first, id, (s) => s.completion?.sawWorking === true);
    await until(first, id, (s) => s.surface.readyPosture === 'yes' && s.turn.phase === 'active');
    await first.stop();

    const again = open();
    try {
      const seen: TerminalState[] = [again.get(id)];
      const sub = again.state$(id).subscribe((s) => seen.push(s));
      const ended = await until(again, id, (s) => s.lastTurn.turnId === turnId);
      sub.unsubscribe();
      expect(ended.lastTurn).toMatchObject({ result: 'success', source: 'explicit_input' });
      expect(ended.turn.phase).toBe('ready');
      // Before its outcome the turn is open, so the phase says active: from the first state on,
      // before any frame, and on the first frames that show the finished reply.
      const before = seen.filter((s) => s.lastTurn.turnId !== turnId);
      expect(before.length).toBeGreaterThan(1);
      expect(before.map((s) => [s.turn.phase, s.turn.current?.id])).toEqual(
        before.map(() => ['active', turnId]),
      );
      again.detach(id);
    } finally {
      await again.stop();
    }
  });
});
