import { describe, expect, it } from 'vitest';
import { getProfile } from '../../src/profiles/index.js';
import type { ToolProfile } from '../../src/profiles/types.js';
import {
  parseRecording,
  pipelineFor,
  playRecording,
  readJsonLines,
} from '../../src/replay/replay.js';

const FILE = new URL('../../recordings/claude_code/normal-turn.jsonl', import.meta.url).pathname;

/** The recording played with a profile that counts the screens it reads. */
function play(): { reads: number; frames: number; changes: number } {
  const rec = parseRecording(readJsonLines(FILE));
  const { pipeline, clock } = pipelineFor(rec);
  const real = getProfile(rec.header.tool, rec.header.toolVersion);
  let reads = 0;
  const counting: ToolProfile = { ...real, parse: (s) => (reads++, real.parse(s)) };
  // The version read from the running CLI hands the pipeline the counting profile.
  pipeline.useVersion(0, rec.header.toolVersion!, counting, 'attach');
  playRecording(rec, pipeline, clock);
  pipeline.dispose();
  const frames = rec.lines.filter((l) => l.type === 'frame');
  const changes = frames.filter((f, i) => i === 0 || f.text !== frames[i - 1]!.text).length;
  return { reads, frames: frames.length, changes };
}

describe('reading a frame', () => {
  it('reads a screen once while the pane shows it unchanged (a profile is pure)', () => {
    const { reads, frames, changes } = play();
    expect(changes).toBeLessThan(frames);
    expect(reads).toBe(changes);
  });
});

describe('a screen read the same as the last', () => {
  it('hands on the last reading itself (a spinner frame: the glyph and counter moved)', () => {
    const rec = parseRecording(readJsonLines(FILE));
    const { pipeline, clock } = pipelineFor(rec);
    const seen: unknown[] = [];
    const observe = pipeline.kernel.observe.bind(pipeline.kernel);
    pipeline.kernel.observe = (t, obs) => (seen.push(obs), observe(t, obs));
    const texts: string[] = [];
    playRecording(rec, pipeline, clock, {
      frame: (run) => {
        const before = seen.length;
        run();
        if (seen.length > before) texts.push(String(pipeline.screen?.text));
      },
    });
    pipeline.dispose();
    // Frames whose screen changed but whose reading did not: observed as the same object.
    let same = 0;
    for (let i = 1; i < texts.length; i++) {
      if (texts[i] !== texts[i - 1] && seen[i] === seen[i - 1]) same++;
    }
    expect(same).toBeGreaterThan(5);
    // Still read: a changed reading is a new observation.
    expect(new Set(seen).size).toBeGreaterThan(3);
  });
});
