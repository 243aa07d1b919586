/**
 * The one resolver of a terminal argument (CLI, MCP): a terminal id as it is, a pane id or a
 * target looked up among the terminals as attached and, where tmux can say, by the pane's other
 * name; not found and ambiguous are errors naming the argument. The tmux part runs a real tmux.
 */
import { rmSync } from 'node:fs';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paneNames } from '../../src/observe/pane-names.js';
import {
  isLoopback,
  ResolveError,
  resolveTerminal,
  type Listed,
} from '../../src/service/resolve.js';
import { uniqueSocketName } from '../e2e/harness/session.js';

/** A list that must not be asked for: a terminal id is taken without one. */
const unasked = (): Listed[] => {
  throw new Error('the list was asked for');
};

const failure = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    (v) => {
      throw new Error(`resolved to ${String(v)}`);
    },
    (e: unknown) => e,
  );

describe('a terminal argument against a fleet: the same pane id on two hosts', () => {
  const fleet: Listed[] = [
    { terminalId: 'h1/t1', target: '%3', host: { id: 'h1' } },
    { terminalId: 'h2/t4', target: '%3', host: { id: 'h2' } },
    { terminalId: 'h2/t5', target: 'work:0.1', host: 'h2' },
  ];

  it('is ambiguous, naming each terminal with its host and how to choose', async () => {
    const error = await failure(resolveTerminal('%3', () => fleet));
    expect(error).toBeInstanceOf(ResolveError);
    expect(error).toMatchObject({
      code: 'ambiguous',
      arg: '%3',
      message:
        '<terminal> %3: names 2 terminals (h1/t1 (host h1), h2/t4 (host h2)); name one by its terminal id',
    });
    expect((error as ResolveError).matches.map((t) => t.terminalId)).toEqual(['h1/t1', 'h2/t4']);
  });

  it('resolves a target only one host has; a terminal id is taken as it is, unlisted', async () => {
    expect(await resolveTerminal('work:0.1', () => fleet)).toBe('h2/t5');
    expect(await resolveTerminal('h1/t1', unasked)).toBe('h1/t1');
    // An id the service does not know is still its to refuse (unknown_terminal), not the resolver's.
    expect(await resolveTerminal('h9/nope', unasked)).toBe('h9/nope');
  });
});

describe('names that look like a pane or a target', () => {
  const terminals: Listed[] = [
    { terminalId: 'work.1', target: 'work:1.0' },
    { terminalId: 'w-0.0', target: '%7' },
  ];

  it('a terminal id with dots and digits is a name, never looked up as a pane', async () => {
    expect(await resolveTerminal('work.1', unasked)).toBe('work.1');
    expect(await resolveTerminal('w-0.0', unasked)).toBe('w-0.0');
  });

  it('a target is looked up by the target each was attached as, spaces around it ignored', async () => {
    expect(await resolveTerminal('work:1.0', () => terminals)).toBe('work.1');
    expect(await resolveTerminal(' %7 ', () => terminals)).toBe('w-0.0');
  });

  it('a listed terminal whose id is the argument itself wins over any target', async () => {
    const odd: Listed[] = [
      { terminalId: 'a:b.0', target: '%1' },
      { terminalId: 'other', target: 'a:b.0' },
    ];
    expect(await resolveTerminal('a:b.0', () => odd)).toBe('a:b.0');
  });

  it('a pane id the service gave finds its terminal with no tmux to ask (a private or remote server)', async () => {
    const listed: Listed[] = [
      { terminalId: 'claude', target: 'work:1.0', paneId: '%12' },
      { terminalId: 'codex', target: 'work:1.1', paneId: null },
    ];
    expect(await resolveTerminal('%12', () => listed)).toBe('claude');
    expect(await resolveTerminal('work:1.0', () => listed)).toBe('claude');
    const error = await failure(resolveTerminal('%13', () => listed));
    expect(error).toMatchObject({ code: 'not_found', arg: '%13' });
    // Whichever name tmux gives back, the pane id counts as well as the target.
    const names = async () => ({ paneId: '%12', target: 'work:3.0' });
    expect(await resolveTerminal('work:claude.0', () => listed, { paneNames: names })).toBe(
      'claude',
    );
  });

  it('no terminal on the pane: not_found naming the argument as the caller calls it', async () => {
    const error = await failure(resolveTerminal('%99', () => terminals, { argName: '--terminal' }));
    expect(error).toMatchObject({
      code: 'not_found',
      arg: '%99',
      message: '--terminal %99: no terminal is attached to that pane',
    });
  });
});

describe('a pane by its other name, as a real tmux gives it', () => {
  const socketName = uniqueSocketName('resolve');
  const tmux = (...args: string[]) => execa('tmux', ['-L', socketName, '-f', '/dev/null', ...args]);
  let paneId: string;
  let socketPath = '';

  beforeAll(async () => {
    await tmux('new-session', '-d', '-s', 'work', '-n', 'claude', '-x', '80', '-y', '24');
    paneId = (
      await tmux('display-message', '-p', '-t', 'work:claude.0', '#{pane_id}')
    ).stdout.trim();
    socketPath = (await tmux('display-message', '-p', '#{socket_path}')).stdout.trim();
  });
  afterAll(async () => {
    await tmux('kill-server').catch(() => undefined);
    // tmux leaves its socket file behind.
    if (socketPath) rmSync(socketPath, { force: true });
  });

  const names = (t: string) => paneNames(t, { socketName });

  it('tmux names a pane both ways (by its id, by indexes, a window name read as its index), and only the pane asked for', async () => {
    expect(await names('work:claude.0')).toEqual({ paneId, target: 'work:0.0' });
    expect(await names(paneId)).toEqual({ paneId, target: 'work:0.0' });
    // tmux answers these with another pane (the session's current one, a session whose name
    // begins so): not the pane asked for, so no name at all.
    expect(await names('work:nowhere.0')).toBeNull();
    expect(await names('work:0.9')).toBeNull();
    expect(await names('wor:0.0')).toBeNull();
    expect(await names('%99999')).toBeNull();
  });

  it('finds a terminal attached as work:0.0 by its pane id and by the window name', async () => {
    const listed: Listed[] = [{ terminalId: 'claude', target: 'work:0.0' }];
    expect(await resolveTerminal(paneId, () => listed, { paneNames: names })).toBe('claude');
    expect(await resolveTerminal('work:claude.0', () => listed, { paneNames: names })).toBe(
      'claude',
    );
    // Without tmux to ask (a service on another machine), only the target as attached is known.
    const error = await failure(resolveTerminal('work:claude.0', () => listed));
    expect(error).toMatchObject({ code: 'not_found' });
  });

  it('finds a terminal attached by its pane id from the indexes, and says not found for another pane', async () => {
    const listed: Listed[] = [{ terminalId: 'by-id', target: paneId }];
    expect(await resolveTerminal('work:0.0', () => listed, { paneNames: names })).toBe('by-id');
    const error = await failure(resolveTerminal('work:0.9', () => listed, { paneNames: names }));
    expect(error).toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('work:0.9'),
    });
  });
});

describe('which service is this machine’s', () => {
  it('takes loopback names and addresses as this machine, anything else as another', () => {
    expect(isLoopback('http://127.0.0.1:7420')).toBe(true);
    expect(isLoopback('http://localhost:7420')).toBe(true);
    expect(isLoopback('http://[::1]:7420')).toBe(true);
    expect(isLoopback('http://fleet.example:7420')).toBe(false);
    expect(isLoopback('http://10.0.0.2:7420')).toBe(false);
  });
});
