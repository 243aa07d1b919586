import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { baseInput, top, flush, terminal } from './internal/terminal-actor.js';

describe('terminal actor: failures and restarts with capped backoff', () => {
  it('a failed runtime is stopped and its error recorded', async () => {
    const t = terminal();
    await t.prepared();
    t.runtimes[0]!.sendBack({ type: 'evt_runtime_failed', error: 'pane vanished' });
    expect(t.snap().value).toBe('restarting');
    expect(t.snap().context.lastError).toBe('pane vanished');
    expect(t.runtimes[0]!.stopped).toBe(true);
    expect(t.children().readiness).toBeUndefined();
  });

  it.each([
    ['an Error: its message', new Error('no such pane'), 'no such pane'],
    ['a string: as is', 'tmux gone', 'tmux gone'],
    ['anything else: as text', 42, '42'],
  ])('a failed prepare records %s', async (_name, error, text) => {
    const t = terminal();
    t.prepares[0]!.reject(error);
    await flush();
    expect(t.snap().value).toBe('restarting');
    expect(t.snap().context.lastError).toBe(text);
  });

  it('a chart that fails restarts the terminal with the chart’s error', async () => {
    const failing = createMachine({
      id: 'failing',
      initial: 'on',
      states: {
        on: {
          entry: () => {
            throw new Error('chart broke');
          },
        },
      },
    });
    const t = terminal(baseInput(), { readiness: failing });
    await t.prepared();
    expect(t.snap().value).toBe('restarting');
    expect(t.snap().context.lastError).toBe('chart broke');
  });

  it('each restart waits initial × 2^restarts, capped, then prepares again with the count', async () => {
    const t = terminal();
    await t.prepared();
    // 0.5 s, 1 s, 2 s, then the 3 s cap (not 4 s), and the cap again.
    const waits = [500, 1000, 2000, 3000, 3000];
    for (const [n, wait] of waits.entries()) {
      t.runtimes.at(-1)!.sendBack({ type: 'evt_runtime_failed', error: `fail ${n}` });
      expect(t.snap().value).toBe('restarting');
      t.clock.increment(wait - 1);
      expect(t.snap().value, `restart ${n} still waits 1 ms before ${wait} ms`).toBe('restarting');
      expect(t.snap().context.restarts).toBe(n);
      t.clock.increment(1);
      expect(t.snap().value).toBe('attaching');
      expect(t.snap().context.restarts).toBe(n + 1);
      expect(t.prepares.at(-1)!.input.restarts).toBe(n + 1);
      await t.prepared();
      expect(t.snap().value).toEqual('running');
      expect(t.runtimes.at(-1)!.input.restarts).toBe(n + 1);
    }
  });

  it('the public state survives a restart', async () => {
    const t = terminal();
    await t.prepared();
    t.runtimes[0]!.sendBack({ type: 'evt_state', state: { shown: 'last' } });
    t.runtimes[0]!.sendBack({ type: 'evt_runtime_failed', error: 'x' });
    t.clock.increment(500);
    await t.prepared();
    expect(t.snap().context.state).toEqual({ shown: 'last' });
  });
});

describe('terminal actor: retool and detach', () => {
  it('a retool prepares again at once with the tool to detect, keeping the rest of the request', async () => {
    const t = terminal(
      baseInput({ request: { target: '%3', tool: 'unsupported', detect: true, toolVersion: '1' } }),
    );
    await t.prepared();
    t.runtimes[0]!.sendBack({ type: 'evt_retool' });
    expect(t.snap().value).toBe('attaching');
    expect(t.runtimes[0]!.stopped).toBe(true);
    expect(t.snap().context.restarts).toBe(0);
    expect(t.snap().context.request).toEqual({
      target: '%3',
      tool: 'auto',
      detect: true,
      toolVersion: '1',
    });
    expect(t.prepares).toHaveLength(2);
    expect(t.prepares[1]!.input.request.tool).toBe('auto');
  });

  it.each(['attaching', 'running', 'restarting'])('detaching ends it from %s', async (from) => {
    const t = terminal();
    if (from !== 'attaching') await t.prepared();
    if (from === 'restarting') t.runtimes[0]!.sendBack({ type: 'evt_runtime_failed', error: 'x' });
    expect(top(t.snap().value)).toBe(from);
    t.actor.send({ type: 'evt_detach' });
    expect(t.snap().value).toBe('detached');
    expect(t.snap().status).toBe('done');
    for (const r of t.runtimes) expect(r.stopped).toBe(true);
  });
});
