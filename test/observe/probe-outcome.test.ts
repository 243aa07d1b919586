import { describe, expect, it } from 'vitest';
import { decideProcess } from '../../src/observe/probe-outcome.js';
import type { PaneInfo } from '../../src/observe/types.js';

const pane = (dead: boolean): PaneInfo => ({
  id: '%1',
  pid: 4242,
  dead,
  currentCommand: 'node',
  width: 80,
  height: 24,
});

describe('decideProcess: the one process decision of both frame sources', () => {
  it('says unsupported_tool without inspecting when no process names are known', async () => {
    let asked = 0;
    const v = await decideProcess(pane(false), [], () => {
      asked += 1;
      return Promise.resolve({ pids: [1] });
    });
    expect(v).toEqual({ process: 'unsupported_tool', pids: [], error: null });
    expect(asked).toBe(0);
  });

  it('says tui_down for a dead pane without inspecting, and empties its tree', async () => {
    let asked = 0;
    const v = await decideProcess(pane(true), ['claude'], () => {
      asked += 1;
      return Promise.resolve({ pids: [4243], tree: [4242, 4243] });
    });
    expect(v).toEqual({ process: 'tui_down', pids: [], error: null, tree: [] });
    expect(asked).toBe(0);
  });

  it('says tui_up with the matching pids and the tree when a process matched', async () => {
    const v = await decideProcess(pane(false), ['claude'], (pid, names) => {
      expect([pid, names]).toEqual([4242, ['claude']]);
      return Promise.resolve({ pids: [4243], tree: [4242, 4243] });
    });
    expect(v).toEqual({ process: 'tui_up', pids: [4243], error: null, tree: [4242, 4243] });
  });

  it('says tui_down when nothing under the pane matched', async () => {
    const v = await decideProcess(pane(false), ['claude'], () => Promise.resolve({ pids: [] }));
    expect(v).toEqual({ process: 'tui_down', pids: [], error: null });
  });

  it('says probe_error, never a guess, when the inspection failed (rejected or thrown)', async () => {
    const rejected = await decideProcess(pane(false), ['claude'], () =>
      Promise.reject(new Error('process inspection timed out')),
    );
    expect(rejected).toEqual({
      process: 'probe_error',
      pids: [],
      error: { kind: 'process_inspection', message: 'process inspection timed out' },
    });
    const thrown = await decideProcess(pane(false), ['claude'], () => {
      throw new Error('no /proc');
    });
    expect(thrown.process).toBe('probe_error');
    expect(thrown.error).toEqual({ kind: 'process_inspection', message: 'no /proc' });
    expect(thrown.tree).toBeUndefined();
  });
});
