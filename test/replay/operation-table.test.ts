/**
 * The operation acceptability table (docs/contracts.md), walked row by row through real states:
 * recordings replayed through the full pipeline. Each row, by `diagnostics.availability` and
 * `turn.phase`, must give its verdict for sending a prompt in every state of these recordings,
 * except where one of paneward's stricter refusals (docs/design.md) applies, and each of those
 * is met in a real state too.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { operationsFor } from '../../src/terminal/operations.js';
import {
  parseRecording,
  pipelineFor,
  playRecording,
  readJsonLines,
} from '../../src/replay/replay.js';
import { fixturePath, loadReplayed } from './ground-truth.js';

/** The rows of the table: availability, phase (null: any), the verdict on a prompt. */
const TABLE = [
  ['available', 'ready', 'yes', /^the agent waits for a prompt$/],
  ['available', 'active', 'no', /^the agent is working: /],
  ['available', 'unknown', 'wait', /^(posture ambiguous: |the screen matches no shape)/],
  ['unavailable', null, 'no', /no such pane/],
  ['tui_down', null, 'no', /^the agent is not running in the pane$/],
  ['error', null, 'no', /^the pane cannot be read: /],
  ['unknown', null, 'wait', /^not classifiable yet/],
] as const;

const RECORDINGS = [
  ['claude_code', '2.1.332/cli-exit'],
  ['claude_code', '2.1.332/session-killed'],
  ['claude_code', '2.1.332/draft-over-old-marker'],
  ['claude_code', '2.1.332/size-250x60-permission-prompt'],
  ['codex', 'cli-exit'],
  // A capture that failed during start-up: the only `error` availability the recordings hold.
  ['codex', '0.171.0/startup-trust-dialog'],
  ['copilot', 'permission-denied'],
  ['gemini_cli', 'cli-exit'],
  ['qwen_code', '0.24.4/error-400'],
  ['qwen_code', '0.24.4/normal-turn'],
] as const;

/** The state a terminal reports before its first sample: a real pipeline on a recording. */
function firstState(tool: string, scenario: string): TerminalState {
  const { pipeline } = pipelineFor(parseRecording(readJsonLines(fixturePath(tool, scenario))));
  try {
    return pipeline.state;
  } finally {
    pipeline.dispose();
  }
}

/** Which of paneward's stricter refusals applies to a state, if any. */
function stricter(s: TerminalState): string | null {
  if (s.session.status === 'blocked') return 'watchdog';
  if (s.diagnostics.availability !== 'available') return null;
  if (s.readiness.status === 'blocked') return 'operator';
  if (s.readiness.status === 'failed' && s.turn.phase !== 'active') return 'failed surface';
  const c = s.completion;
  const pending = c !== null && c.status !== 'completed' && c.status !== 'failed';
  if (s.turn.phase === 'ready' && pending) return 'turn being confirmed';
  return null;
}

const states: Array<{ where: string; s: TerminalState }> = [];
for (const [tool, scenario] of RECORDINGS) {
  for (const s of loadReplayed(tool, scenario).states)
    states.push({ where: `${tool}/${scenario}@${s.t}`, s });
  states.push({
    where: `${tool}/${scenario} before its first sample`,
    s: firstState(tool, scenario),
  });
}

describe('the operation table, row by row, on replayed states', () => {
  for (const [availability, phase, allowed, reason] of TABLE) {
    it(`${availability} / ${phase ?? 'any'}: send input is ${allowed}`, () => {
      const row = states.filter(
        ({ s }) =>
          s.diagnostics.availability === availability &&
          (phase === null || s.turn.phase === phase) &&
          stricter(s) === null,
      );
      expect(row.length, 'states met in the recordings').toBeGreaterThan(0);
      for (const { where, s } of row) {
        const v = operationsFor(s).sendInput;
        expect({ where, ...v }).toMatchObject({
          where,
          allowed,
          reason: expect.stringMatching(reason),
        });
      }
    });
  }

  it('a running turn paneward typed is a no at once, not a wait for its completion', () => {
    const r = loadReplayed('claude_code', '2.1.332/cli-exit');
    // The turn paneward typed, running, its completion not yet decided: a wait before.
    const typed = r.states.filter(
      (s) =>
        s.turn.phase === 'active' &&
        s.turn.current?.source === 'explicit_input' &&
        s.completion !== null &&
        !['completed', 'failed'].includes(s.completion.status),
    );
    expect(typed.length).toBeGreaterThan(0);
    for (const s of typed) {
      expect(operationsFor(s).sendInput).toMatchObject({
        allowed: 'no',
        reason: `the agent is working: turn ${s.turn.current!.id} is running; wait for it to end or interrupt it`,
      });
    }
  });
});

describe("paneward's refusals stricter than the table, each on a real state", () => {
  it('a dialog waiting for the operator is a no, even while the phase is active', () => {
    const blocked = states.filter(({ s }) => stricter(s) === 'operator');
    expect(blocked.map(({ s }) => s.turn.phase)).toContain('active');
    for (const { s } of blocked) {
      expect(operationsFor(s).sendInput).toMatchObject({
        allowed: 'no',
        reason: expect.stringMatching(/^the agent waits for the operator/),
      });
    }
  });

  it('the end of the turn paneward typed, still being confirmed, is a wait while the screen reads ready', () => {
    const confirming = states.filter(({ s }) => stricter(s) === 'turn being confirmed');
    expect(confirming.length).toBeGreaterThan(0);
    for (const { s } of confirming) {
      expect(operationsFor(s).sendInput).toMatchObject({
        allowed: 'wait',
        reason: `turn ${s.completion!.turnId} has not finished`,
      });
    }
  });

  it('a session the watchdog blocked is a no whatever the row, until resumed', () => {
    const r = loadReplayed('claude_code', '2.1.332/cli-exit', {
      config: { sessionWallClockSeconds: 5 },
    } as never);
    const blocked = r.states.filter((s) => s.session.status === 'blocked');
    expect(blocked.length).toBeGreaterThan(0);
    expect(
      blocked.some((s) => s.diagnostics.availability === 'available' && s.turn.phase === 'ready'),
    ).toBe(true);
    for (const s of blocked) {
      expect(operationsFor(s).sendInput).toMatchObject({
        allowed: 'no',
        reason: expect.stringMatching(/^the watchdog blocked the session/),
      });
    }
  });

  it('a pane with no agent CLI paneward reads is a no, not a wait that would never end', () => {
    const lines = readJsonLines(fixturePath('claude_code', '2.1.332/cli-exit'));
    const header = JSON.parse(lines[0]![1]) as Record<string, unknown>;
    lines[0] = [lines[0]![0], JSON.stringify({ ...header, tool: 'unsupported' })];
    const { pipeline, clock } = pipelineFor(parseRecording(lines));
    const seen: TerminalState[] = [];
    const sub = pipeline.state$.subscribe((s) => seen.push(s));
    try {
      playRecording(parseRecording(lines), pipeline, clock);
    } finally {
      sub.unsubscribe();
      pipeline.dispose();
    }
    const unread = seen.filter((s) => s.diagnostics.parse === 'unsupported_tool');
    expect(unread.length).toBeGreaterThan(0);
    for (const s of unread) {
      expect(s.diagnostics.availability).toBe('unknown');
      expect(operationsFor(s).sendInput).toEqual({
        allowed: 'no',
        reason: 'no agent CLI in this pane',
      });
    }
  });

  it('a release newer than the verified ones under the strict gate is a wait that names it and paneward doctor, never a yes', () => {
    const r = loadReplayed('claude_code', '2.1.332/cli-exit', {
      toolVersion: '9.0.0',
      verifiedOnly: true,
    });
    const live = r.states.filter((s) => s.diagnostics.availability === 'available');
    expect(live.length).toBeGreaterThan(0);
    for (const s of live) {
      expect(s.turn.phase).not.toBe('ready');
      const v = operationsFor(s).sendInput;
      expect(v.allowed).not.toBe('yes');
      if (s.turn.phase === 'unknown') {
        expect(v).toMatchObject({
          allowed: 'wait',
          reason: expect.stringMatching(/9\.0\.0 is newer than the verified .*paneward doctor/),
        });
      }
    }
  });
});

describe('docs/contracts.md prints the table the code answers by', () => {
  it('each row of its table gives the verdict the walk above asserts', () => {
    const doc = readFileSync(new URL('../../docs/contracts.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('### Operation acceptability'));
    const rows = section
      .split('\n')
      .filter((l) => /^\| [a-z_]+ +\| [a-z]+ +\| [A-Z]/.test(l))
      .map((l) => l.split('|').map((c) => c.trim()))
      .map(([, availability, phase, original, ours]) => [
        availability,
        phase === 'any' ? null : phase,
        /^`(yes|no|wait)`/.exec(ours!)?.[1],
        original!.split(':')[0]!.toLowerCase(),
      ]);
    expect(rows).toEqual(
      TABLE.map(([availability, phase, allowed]) => [availability, phase, allowed, allowed]),
    );
  });
});
