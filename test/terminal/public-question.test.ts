/**
 * The question a client sees (docs/contracts.md): what the CLI asks, while it asks it, with its
 * choices' ids and labels and never the keys that answer them; the pipeline keeps the keys for
 * the answer. Played from a recorded Claude Code permission prompt.
 */
import { describe, expect, it } from 'vitest';
import {
  parseRecording,
  pipelineFor,
  playRecording,
  readJsonLines,
} from '../../src/replay/replay.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';

const FILE = new URL('../../recordings/claude_code/permission-prompt.jsonl', import.meta.url)
  .pathname;

describe('the public question', () => {
  it('is there while the CLI asks, names its choices without their keys, and goes with the dialog', () => {
    const rec = parseRecording(readJsonLines(FILE));
    const { pipeline, clock } = pipelineFor(rec);
    const states: TerminalState[] = [];
    const kept: Array<typeof pipeline.question> = [];
    const sub = pipeline.state$.subscribe((s) => {
      states.push(s);
      kept.push(pipeline.question);
    });
    playRecording(rec, pipeline, clock);
    sub.unsubscribe();
    pipeline.dispose();

    const asking = states.flatMap((s, i) => (s.surface.question ? [{ s, i }] : []));
    expect(asking.length).toBeGreaterThan(0);
    for (const { s, i } of asking) {
      const q = s.surface.question!;
      expect(s.readiness.status).toBe('blocked');
      expect(q.kind).toBe('tool_permission');
      expect(q.choices.length).toBeGreaterThan(1);
      for (const c of q.choices) {
        expect(Object.keys(c).sort()).toEqual(['id', 'label']);
        expect(c.label).not.toBe('');
      }
      // The pipeline's own reading of it, keys and all, for an answer.
      const read = kept[i]!;
      expect(read).not.toBeNull();
      expect(read!.id).toBe(q.id);
      expect(read!.choices.map((c) => c.id)).toEqual(q.choices.map((c) => c.id));
    }
    // Never asked while not blocked, and gone once the dialog closed.
    for (const [i, s] of states.entries()) {
      if (s.readiness.status !== 'blocked') {
        expect(s.surface.question).toBeNull();
        expect(kept[i]).toBeNull();
      }
    }
    expect(states.at(-1)!.surface.question).toBeNull();
  });
});
