import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, isPanewardError } from '../../src/index.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../e2e/harness/session.js';
import { STAND_IN_AGENT, standInProfile } from './internal/stand-in-profile.js';
import { until } from './internal/until-state.js';

describe('attach: one pane, one terminal, and no pane that is gone', () => {
  let agent: AgentSession;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-attach-'));
    agent = await startAgentSession({
      socketName: uniqueSocketName('gate'),
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

  const open = (data: string) =>
    createSupervisor({
      socketName: agent.socketName,
      dataDir: join(dir, data),
      config: { pollIntervalSeconds: 0.1 },
      profiles: { stand_in: standInProfile },
    });

  it('attaching a target already attached answers its terminal, or is refused naming `target`', async () => {
    const sup = open('same');
    try {
      const id = await sup.attach({ target: agent.target, tool: 'stand_in' });
      expect(await sup.attach({ target: agent.target })).toBe(id);
      await expect(sup.attach({ target: agent.target, id: 'other' })).rejects.toThrow(
        /^attach: field `target`: .* is already attached as t1 \(stand_in\)$/,
      );
      expect(sup.ids()).toEqual([id]);
    } finally {
      await sup.stop();
    }
  });

  it("the README's example run twice on one data directory keeps one terminal", async () => {
    for (let run = 0; run < 2; run++) {
      const sup = open('readme');
      try {
        // The README's library example, as written there.
        expect(await sup.attach({ target: agent.target })).toBe('t1');
        // `attachPane` is the former name of the same call.
        expect(await sup.attachPane({ target: agent.target })).toBe('t1');
        expect(sup.ids()).toEqual(['t1']);
      } finally {
        await sup.stop();
      }
    }
  });

  it('a pane that does not exist is refused naming `target`, and nothing is recorded', async () => {
    const sup = open('nosuch');
    try {
      const error: unknown = await sup.attach({ target: 'nosuch:0.0' }).catch((e: unknown) => e);
      expect(isPanewardError(error) && error.code).toBe('invalid_input');
      expect((error as Error).message).toBe(
        'attach: field `target`: no pane nosuch:0.0 on this tmux server',
      );
      await expect(sup.attach({ target: '%999', tool: 'stand_in', id: 'x' })).rejects.toThrow(
        /^attach: field `target`: no pane %999 /,
      );
      expect(sup.ids()).toEqual([]);
      await sup.journal.flush();
      expect(sup.journal.read().map((r) => r.kind)).toEqual(['supervisor.started']);
    } finally {
      await sup.stop();
    }
    // Not re-adopted either: a new supervisor on the same data starts empty.
    const again = open('nosuch');
    try {
      expect(again.ids()).toEqual([]);
    } finally {
      await again.stop();
    }
  });

  it('one pane attached by target and by pane id is one terminal', async () => {
    const sup = open('byid');
    try {
      const paneId = (
        await execa('tmux', [
          '-L',
          agent.socketName,
          'display-message',
          '-p',
          '-t',
          agent.target,
          '#{pane_id}',
        ])
      ).stdout.trim();
      const id = await sup.attach({ target: agent.target, tool: 'stand_in' });
      expect(await sup.attach({ target: paneId })).toBe(id);
      expect(await sup.attach({ target: paneId, tool: 'stand_in' })).toBe(id);
      expect(sup.ids()).toEqual([id]);
      await sup.journal.flush();
      expect(sup.journal.read().filter((r) => r.kind === 'terminal.attached')).toHaveLength(1);
    } finally {
      await sup.stop();
    }
  });

  it('a pane that is gone is not re-adopted: its terminal is detached, recorded', async () => {
    const tmux = (...args: string[]) => execa('tmux', ['-L', agent.socketName, ...args]);
    const ghostPane = (
      await tmux('new-window', '-d', '-P', '-F', '#{pane_id}', '-t', agent.target.split(':')[0]!)
    ).stdout.trim();
    const first = open('gone');
    await first.attach({ target: ghostPane, tool: 'stand_in', id: 'ghost' });
    await first.attach({ target: agent.target, tool: 'stand_in', id: 'real' });
    await first.stop();
    await tmux('kill-pane', '-t', ghostPane);
    const second = open('gone');
    try {
      await until(second, 'real', (s) => s.readiness.status === 'ready');
      const deadline = Date.now() + 5000;
      while (second.ids().includes('ghost') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(second.ids()).toEqual(['real']);
      await second.journal.flush();
      expect(
        second.journal.read(0, 'ghost').filter((r) => r.kind === 'terminal.detached'),
      ).toHaveLength(1);
    } finally {
      await second.stop();
    }
    // And the start after that has nothing of it to re-adopt.
    const third = open('gone');
    try {
      expect(third.ids()).toEqual(['real']);
    } finally {
      await third.stop();
    }
  });
});
