import { describe, expect, it } from 'vitest';
import { briefLine, briefPrinter } from '../../src/cli/format.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { readJsonLines, replayRecording } from '../../src/replay/replay.js';

const states: TerminalState[] = [];
replayRecording(readJsonLines('test/fixtures/claude_code/permission-prompt.jsonl'), (s) =>
  states.push(s),
);

describe('brief output', () => {
  it('names what a person watches for', () => {
    const blocked = states.find((s) => s.readiness.status === 'blocked')!;
    expect(briefLine(blocked)).toMatch(
      /readiness=blocked \(the agent waits for the operator \(tool_permission\)\) phase=active turn-1\(explicit_input\) completion=turn-1:blocked .*blocked=tool_permission/,
    );
    expect(briefLine(states.at(-1)!)).toMatch(/last=success@turn-1/);
  });

  it('skips a line that says the same as the one before, per terminal', () => {
    const out: string[] = [];
    const print = briefPrinter((l) => out.push(l));
    states.forEach(print);
    expect(out.length).toBeGreaterThan(3);
    expect(out.length).toBeLessThan(states.length);
    const bodies = out.map((l) => l.replace(/^\s*[\d.]+s /, ''));
    bodies.slice(1).forEach((b, i) => expect(b).not.toBe(bodies[i]));
    // Another terminal's identical line is still printed.
    print({ ...states.at(-1)!, terminalId: 'other' });
    expect(out.at(-1)).toMatch(/ other /);
  });
});
