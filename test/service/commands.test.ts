import { describe, expect, it } from 'vitest';
import { PanewardError } from '../../src/errors.js';
import { CommandRequest } from '../../src/fleet/schemas.js';
import { COMMANDS } from '../../src/schemas/operations/index.js';
import { endedEarlier, portCommands, runCommand } from '../../src/service/commands.js';
import type { SupervisorPort } from '../../src/service/port.js';

const lastTurn = { turnId: 'turn-1', result: 'success', source: 'api' };

/** A port whose turn never ends in time: only `submit`, `waitForTurn` and `get` are asked. */
function slowPort(completionTurn: string | null, calls: string[] = []): SupervisorPort {
  return {
    submit: async (id: string, text: string) => {
      calls.push(`submit ${id} ${text}`);
      return 'turn-2';
    },
    waitForTurn: async (id: string, turnId: string, o: { timeoutMs?: number }) => {
      calls.push(`wait ${id} ${turnId} ${o.timeoutMs}`);
      throw new PanewardError('timeout', 'not in time');
    },
    get: () => ({
      completion:
        completionTurn === null ? null : { turnId: completionTurn, status: 'running', since: 1 },
      lastTurn,
      turn: { current: null },
    }),
  } as unknown as SupervisorPort;
}

describe('the commands, run on a port', () => {
  it('turns: a wait that runs out answers timeout with what is known, never an error', async () => {
    const calls: string[] = [];
    const r = await portCommands(slowPort('turn-2', calls)).turns({
      id: 't1',
      body: { prompt: 'hi', timeoutSeconds: 1.5 },
    });
    expect(calls).toEqual(['submit t1 hi', 'wait t1 turn-2 1500']);
    expect(r).toEqual({
      turnId: 'turn-2',
      result: 'timeout',
      completion: { turnId: 'turn-2', status: 'running', since: 1 },
      lastTurn,
      // A port that keeps no payloads (a stand-in here) answers none, never an error.
      payload: null,
    });
    // Another turn's completion is not this turn's.
    const other = await portCommands(slowPort('turn-1')).turns({
      id: 't1',
      body: { prompt: 'hi', timeoutSeconds: 1 },
    });
    expect(other.completion).toBeNull();
  });

  it('wait: a supervisor wait that runs out stays the error timeout (the edge forwards it)', async () => {
    await expect(
      portCommands(slowPort(null)).wait({ id: 't1', turnId: 'turn-2', timeoutMs: 5 }),
    ).rejects.toMatchObject({ code: 'timeout' });
  });

  it('a turn over before the wait began answers its own outcome, with its payload', async () => {
    const payload = { turnId: 'turn-1', ended: true };
    const port = {
      get: () => ({ completion: null, lastTurn, turn: { current: null } }),
      turnPayload: (_id: string, turnId: string) =>
        turnId === 'turn-1' ? payload : Promise.reject(new Error('unknown')),
    } as unknown as SupervisorPort;
    await expect(endedEarlier(port, 't1', 'turn-1')).resolves.toEqual({
      turnId: 'turn-1',
      result: 'completed',
      completion: null,
      lastTurn,
      payload,
    });
    await expect(endedEarlier(port, 't1', 'turn-2')).resolves.toBeNull();
  });

  it('runs a command by name with its input', async () => {
    const calls: string[] = [];
    const r = await runCommand(portCommands(slowPort(null, calls)), {
      op: 'input',
      id: 't1',
      body: { text: 'typed' },
    });
    expect(r).toEqual({ turnId: 'turn-2' });
    expect(calls).toEqual(['submit t1 typed']);
  });

  it("an answer is journaled as its client's, or as the fleet's on a host's edge", async () => {
    const by: unknown[] = [];
    const port = {
      answer: async (_id: string, request: { by: unknown }) => {
        by.push(request.by);
        return {
          questionId: 'q-625b38fb69ba',
          kind: 'tool_permission',
          choice: 'deny',
          closed: true,
        };
      },
    } as unknown as SupervisorPort;
    const call = {
      op: 'answer' as const,
      id: 't1',
      body: { questionId: 'q-625b38fb69ba', choice: 'deny', via: 'dashboard' as const },
      tokenId: 'tok-0123abcd',
    };
    await runCommand(portCommands(port), call);
    await runCommand(portCommands(port, { from: 'fleet' }), call);
    await runCommand(portCommands(port, { from: 'fleet' }), {
      op: 'answer',
      id: 't1',
      body: { questionId: 'q-625b38fb69ba', choice: 'deny' },
    });
    expect(by).toEqual([
      { via: 'dashboard', tokenId: 'tok-0123abcd' },
      { via: 'fleet', tokenId: 'tok-0123abcd', client: 'dashboard' },
      { via: 'fleet', tokenId: null, client: 'http' },
    ]);
    // A server that answers no questions refuses, as its route does.
    await expect(
      portCommands({} as SupervisorPort).answer({ id: 't1', body: call.body }),
    ).rejects.toMatchObject({ code: 'refused' });
  });
});

describe("the fleet's request/reply carries the contracts", () => {
  const base = { requestId: 'request-0001', expiresAt: 1 };
  it('takes every command by name, with its contract input', () => {
    const inputs: Record<string, object> = {
      attach: { body: { target: 's:0.0' } },
      input: { id: 't1', body: { text: 'x' } },
      turns: { id: 't1', body: { prompt: 'x' } },
      wait: { id: 't1', turnId: 'turn-1', timeoutMs: 10 },
      turn: { id: 't1', turnId: 'turn-1' },
      interrupt: { id: 't1' },
      resume: { id: 't1' },
      detach: { id: 't1' },
      screen: { id: 't1' },
      observe: { id: 't1', body: { observer: 'ci', turnId: 'turn-1', reason: 'success' } },
      answer: {
        id: 't1',
        body: { questionId: 'q-625b38fb69ba', choice: 'allow_once', via: 'cli' },
        tokenId: 'tok-0123abcd',
      },
    };
    expect(Object.keys(inputs).sort()).toEqual(Object.keys(COMMANDS).sort());
    for (const [op, input] of Object.entries(inputs)) {
      expect(CommandRequest.safeParse({ ...base, op, ...input }).success, op).toBe(true);
      expect(
        COMMANDS[op as keyof typeof COMMANDS].input.safeParse(input).success,
        `${op} contract`,
      ).toBe(true);
    }
  });

  it('refuses what a contract refuses, naming the field', () => {
    const bad = CommandRequest.safeParse({ ...base, op: 'input', id: 't1', body: { text: 5 } });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.path).toEqual(['body', 'text']);
    expect(CommandRequest.safeParse({ ...base, op: 'reboot', id: 't1' }).success).toBe(false);
    const forged = CommandRequest.safeParse({
      ...base,
      op: 'answer',
      id: 't1',
      body: { questionId: 'q-625b38fb69ba', choice: 'deny' },
      tokenId: 'the-token-itself',
    });
    expect(forged.error!.issues[0]!.path).toEqual(['tokenId']);
    expect(CommandRequest.safeParse({ ...base, op: 'interrupt', id: 't1', extra: 1 }).success).toBe(
      false,
    );
  });
});
