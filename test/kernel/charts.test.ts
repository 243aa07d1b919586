import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { listRecordings } from '../../scripts/internal/bench-pipeline.js';
import { InspectionHub } from '../../src/kernel/chart-runner.js';
import { VirtualClock } from '../../src/kernel/virtual-time.js';
import { getProfile } from '../../src/profiles/index.js';
import { KernelConfig } from '../../src/schemas/kernel.js';
import { standaloneSite } from '../../src/kernel/charts.js';
import { TerminalPipeline } from '../../src/terminal/pipeline.js';
import { parseRecording, playRecording, readJsonLines } from '../../src/replay/replay.js';
import { RUNNING_CHILDREN } from '../machines/internal/terminal-actor.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The parent of an actor, as XState keeps it. */
const parentOf = (ref: AnyActorRef): AnyActorRef | undefined =>
  (ref as unknown as { _parent?: AnyActorRef })._parent;

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

describe("a replayed terminal's charts", () => {
  it('are the children of a terminal actor, and an inspector sees exactly those actors', () => {
    const events: InspectionEvent[] = [];
    replay(
      join(root, 'test/fixtures/claude_code/two-turns.jsonl'),
      new InspectionHub((ev) => events.push(ev)),
    );
    const actors = events
      .filter((e) => e.type === '@xstate.actor')
      .map((e) => e.actorRef as AnyActorRef);
    const terminal = actors.find((a) => a.id === 'standalone')!;
    expect(terminal).toBeDefined();
    expect(parentOf(terminal)).toBeUndefined();
    // Every other actor is the terminal's child: its five charts, the witness chart that
    // settles turns, its runtime, one completion chart per turn. Nothing else runs.
    const others = actors.filter((a) => a !== terminal);
    expect(others.every((a) => parentOf(a) === terminal)).toBe(true);
    const ids = others.map((a) => a.id);
    expect(ids.filter((id) => !id.startsWith('completion:')).sort()).toEqual(RUNNING_CHILDREN);
    expect(ids.filter((id) => id.startsWith('completion:')).length).toBeGreaterThanOrEqual(2);
  });

  it('decide every bundled recording the same whether an inspector watches or not', () => {
    const files = [
      ...listRecordings(join(root, 'recordings')),
      ...listRecordings(join(root, 'test/fixtures')),
    ];
    expect(files.length).toBeGreaterThan(100);
    let lines = 0;
    for (const file of files) {
      const watched = replay(file, new InspectionHub(() => {}));
      const alone = replay(file, new InspectionHub());
      expect(alone, file).toEqual(watched);
      lines += alone.length;
    }
    expect(lines).toBeGreaterThan(3000);
  }, 180_000);

  it('skip repeated frames before the charts while an inspector watches: it sees fewer frames than were captured', () => {
    const file = join(root, 'recordings/claude_code/normal-turn.jsonl');
    const frames = parseRecording(readJsonLines(file)).lines.filter(
      (l) => l.type === 'frame',
    ).length;
    const taken = (everyEvent: boolean) => {
      let n = 0;
      replay(
        file,
        new InspectionHub(
          (ev) => {
            if (
              ev.type === '@xstate.event' &&
              (ev.actorRef as AnyActorRef).id === 'turnPhase' &&
              ev.event.type === 'frame'
            )
              n++;
          },
          { everyEvent },
        ),
      );
      return n;
    };
    expect(taken(true)).toBeGreaterThanOrEqual(frames);
    expect(taken(false)).toBeLessThan(frames / 2);
  });
});
