import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createActor, createMachine } from 'xstate';
import { watchdogMachine } from '../../machines/watchdog.js';
import { listRecordings } from '../../scripts/internal/bench-pipeline.js';
import { ChartCell } from '../../src/kernel/chart-cell.js';
import { InspectionHub } from '../../src/kernel/chart-runner.js';
import { VirtualClock } from '../../src/kernel/virtual-time.js';
import { getProfile } from '../../src/profiles/index.js';
import { KernelConfig } from '../../src/schemas/kernel.js';
import { standaloneSite } from '../../src/terminal/charts.js';
import { TerminalPipeline } from '../../src/terminal/pipeline.js';
import { parseRecording, playRecording, readJsonLines } from '../../src/replay/replay.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Every state and record a recording's replay gives, with the charts on the given hub. */
function replay(file: string, hub: InspectionHub): string[] {
  const rec = parseRecording(readJsonLines(file));
  const clock = new VirtualClock();
  const site = standaloneSite({ config: KernelConfig.parse({}), hub });
  const pipeline = new TerminalPipeline({
    terminalId: 'replay',
    profile: getProfile(rec.header.tool, rec.header.toolVersion),
    toolVersion: rec.header.toolVersion,
    scheduler: clock.scheduler,
    site,
  });
  const out: string[] = [];
  const sub = pipeline.state$.subscribe((s) => out.push(JSON.stringify(s)));
  playRecording(rec, pipeline, clock);
  for (const r of pipeline.journal.read()) out.push(JSON.stringify(r));
  sub.unsubscribe();
  pipeline.dispose();
  site.dispose();
  return out;
}

describe('charts as pure state machines (ChartCell)', () => {
  it('decide every bundled recording exactly as the chart actors do', () => {
    const files = [
      ...listRecordings(join(root, 'recordings')),
      ...listRecordings(join(root, 'test/fixtures')),
    ];
    expect(files.length).toBeGreaterThan(100);
    let lines = 0;
    for (const file of files) {
      // An observed hub runs the charts as actors (an inspector sees every event).
      const actors = replay(file, new InspectionHub(() => {}));
      const cells = replay(file, new InspectionHub());
      expect(cells, file).toEqual(actors);
      lines += cells.length;
    }
    expect(lines).toBeGreaterThan(3000);
  }, 120_000);

  it('hands out emitted events after the step, takes a send made meanwhile after it, and stops', () => {
    const cell = new ChartCell(watchdogMachine, 'watchdog', { budgetSeconds: 5 });
    const actor = createActor(watchdogMachine, { input: { budgetSeconds: 5 } }).start();
    const seen: Record<string, string[]> = { cell: [], actor: [] };
    for (const [name, chart] of [
      ['cell', cell],
      ['actor', actor],
    ] as const) {
      chart.on('*', (ev) => seen[name]!.push(`${ev.type} in ${String(chart.getSnapshot().value)}`));
      // Sent while the start is handed out: taken once that is done.
      chart.on('deadline.start', () => {
        chart.send({ type: 'evt_session_finished' });
        seen[name]!.push(`sent in ${String(chart.getSnapshot().value)}`);
      });
    }
    const start = { type: 'evt_session_started', at: 0 } as const;
    cell.send(start);
    actor.send(start);
    expect(seen.cell).toEqual(seen.actor);
    expect(seen.cell).toContain('deadline.start in armed');
    expect(seen.cell).toContain('deadline.cancel in finished');
    expect(cell.getSnapshot().value).toEqual(actor.getSnapshot().value);
    expect(cell.getSnapshot().status).toBe(actor.getSnapshot().status);
    actor.stop();
    // A stopped cell reads `stopped`, as a stopped actor does, and takes no more events.
    const other = new ChartCell(watchdogMachine, 'watchdog', { budgetSeconds: 5 });
    other.stop();
    expect(other.getSnapshot().status).toBe('stopped');
    other.send(start);
    expect(other.getSnapshot()).toMatchObject({ status: 'stopped', value: 'disabled' });
  });

  it('share one empty tag set and empty objects between snapshots, and step charts with tags and history as an actor does', () => {
    const a = new ChartCell(watchdogMachine, 'watchdog', { budgetSeconds: 5 });
    const b = new ChartCell(watchdogMachine, 'watchdog', { budgetSeconds: 5 });
    const start: { type: string } = { type: 'evt_session_started', at: 0 } as never;
    a.send(start);
    const [sa, sb] = [a.getSnapshot(), b.getSnapshot()];
    expect(sa.tags).toBe(sb.tags);
    expect(sa.tags.size).toBe(0);
    expect(sa.children).toBe(sb.children);
    expect(sa.historyValue).toBe(sb.historyValue);
    expect(Object.isFrozen(sa.historyValue)).toBe(true);

    // A chart with tags and a history state keeps its own, and decides as its actor does.
    const machine = createMachine({
      id: 'h',
      initial: 'off',
      states: {
        off: { on: { on: 'on' } },
        on: {
          tags: ['lit'],
          initial: 'dim',
          states: {
            dim: { on: { up: 'bright' } },
            bright: { tags: ['glare'] },
            memory: { type: 'history' },
          },
          on: { off: 'off' },
        },
      },
      on: { back: '.on.memory' },
    });
    const cell = new ChartCell(machine, 'h');
    const actor = createActor(machine).start();
    const script = ['on', 'up', 'off', 'back', 'off', 'on'];
    for (const type of script) {
      cell.send({ type });
      actor.send({ type });
      const [c, s] = [cell.getSnapshot(), actor.getSnapshot()];
      expect(c.value, type).toEqual(s.value);
      expect([...c.tags].sort(), type).toEqual([...s.tags].sort());
      expect(Object.keys(c.historyValue), type).toEqual(Object.keys(s.historyValue));
      // `back` goes to the remembered `bright`: the history was kept, not shared.
      if (type === 'back') expect(c.value).toEqual({ on: 'bright' });
    }
    expect(Object.keys(cell.getSnapshot().historyValue).length).toBeGreaterThan(0);
    actor.stop();
  });
});
