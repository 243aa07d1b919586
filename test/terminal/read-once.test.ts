import { describe, expect, it } from 'vitest';
import { getProfile } from '../../src/profiles/index.js';
import type { ToolProfile } from '../../src/profiles/types.js';
import {
  parseRecording,
  pipelineFor,
  playRecording,
  readJsonLines,
} from '../../src/tracker/replay.js';

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
