import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { encodeLine } from '../../src/journal/codec.js';
import { InspectionHub } from '../../src/kernel/chart-runner.js';
import { getProfile } from '../../src/profiles/index.js';
import { KernelConfig } from '../../src/schemas/kernel.js';
import { standaloneSite } from '../../src/kernel/charts.js';
import { TerminalPipeline } from '../../src/terminal/pipeline.js';
import { VirtualClock } from '../../src/kernel/virtual-time.js';
import {
  parseRecording,
  playRecording,
  readJsonLines,
  type ParsedRecording,
} from '../../src/replay/replay.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every recording of these CLIs under recordings/ and test/fixtures/. */
function recordingsOf(tools: readonly string[]): string[] {
  return ['recordings', 'test/fixtures'].flatMap((dir) =>
    tools.flatMap((tool) => {
      const folder = join(ROOT, dir, tool);
      let names: string[];
      try {
        names = readdirSync(folder);
      } catch {
        return [];
      }
      return names
        .filter((f) => f.endsWith('.jsonl') && !f.endsWith('.server.jsonl'))
        .sort()
        .map((f) => `${dir}/${tool}/${f}`);
    }),
  );
}

interface Played {
  states: string[];
  records: string[];
  /** Frames the turn-phase chart was sent (one per capture or poll, unless skipped). */
  turnFrames: number;
  /** Captures in the recording. */
  frames: number;
}

/** Replays a recording as replay does; `every`: with every event sent, none skipped. */
async function play(rec: ParsedRecording, every: boolean): Promise<Played> {
  const clock = new VirtualClock();
  const config = KernelConfig.parse({});
  const site = standaloneSite({
    config,
    hub: new InspectionHub(undefined, { everyEvent: every }),
  });
  let turnFrames = 0;
  const send = site.charts.turnPhase.send.bind(site.charts.turnPhase);
  vi.spyOn(site.charts.turnPhase, 'send').mockImplementation((ev) => {
    if (ev.type === 'frame') turnFrames++;
    send(ev);
  });
  const pipeline = new TerminalPipeline({
    terminalId: 'replay',
    profile: getProfile(rec.header.tool, rec.header.toolVersion),
    toolVersion: rec.header.toolVersion,
    scheduler: clock.scheduler,
    site,
  });
  const states: string[] = [];
  let started = false;
  const sub = pipeline.state$.subscribe((s) => started && states.push(JSON.stringify(s)));
  playRecording(rec, pipeline, clock, { onFirstLine: () => (started = true) });
  await pipeline.journal.flush();
  const records = pipeline.journal.read().map((r) => encodeLine(r));
  sub.unsubscribe();
  pipeline.dispose();
  site.dispose();
  const frames = rec.lines.filter((l) => l.type === 'frame').length;
  return { states, records, turnFrames, frames };
}

const load = (name: string) => parseRecording(readJsonLines(join(ROOT, name)));

describe('frames that would change nothing are not sent to the turn-phase chart', () => {
  const claude = recordingsOf(['claude_code']);

  it('finds the Claude Code recordings', () => {
    expect(claude.length).toBeGreaterThanOrEqual(20);
  });

  it.each(claude)('%s: the same states and records as with every event sent', async (name) => {
    const rec = load(name);
    const fast = await play(rec, false);
    const all = await play(rec, true);
    expect(all.turnFrames).toBeGreaterThanOrEqual(all.frames);
    expect(fast.states).toEqual(all.states);
    expect(fast.records).toEqual(all.records);
  });

  it('skips most of a turn whose spinner redraws the screen every frame', async () => {
    const rec = load('recordings/claude_code/normal-turn.jsonl');
    const fast = await play(rec, false);
    const all = await play(rec, true);
    expect(fast.states).toEqual(all.states);
    expect(all.turnFrames).toBeGreaterThanOrEqual(all.frames);
    expect(fast.turnFrames).toBeLessThan(all.turnFrames / 2);
  });

  it.each(recordingsOf(['codex', 'gemini_cli', 'qwen_code', 'cline', 'opencode']))(
    '%s: the same states and records as with every event sent',
    async (name) => {
      const rec = load(name);
      const fast = await play(rec, false);
      const all = await play(rec, true);
      expect(fast.states).toEqual(all.states);
      expect(fast.records).toEqual(all.records);
    },
  );
});
