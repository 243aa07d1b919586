import { describe, expect, it, vi } from 'vitest';
import { linePipeline } from './internal/line-profile.js';

describe('publishing a terminal state', () => {
  it('composes the public state once per publish, also when it changed', () => {
    const { p, at, frame } = linePipeline();
    frame(0, 'ready');
    at(5);
    // Composing reads the kernel's snapshot once: count the reads of a publish that changes
    // readiness, the turn phase and the stability window all at once.
    const reads = vi.spyOn(p.kernel, 'snapshot');
    const published: string[] = [];
    const sub = p.state$.subscribe((s) => published.push(s.turn.phase));
    published.length = 0;
    frame(6, 'transcript\nworking');
    expect(published).toEqual(['active']);
    expect(reads).toHaveBeenCalledTimes(1);
    expect(p.state.turn.since).toBe(6);
    expect(p.state.stability).toEqual({ stable: false, stableForSeconds: 0 });
    sub.unsubscribe();
    p.dispose();
  });
});
