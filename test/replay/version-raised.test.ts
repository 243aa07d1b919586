/**
 * The evidence for reading releases nobody verified yet (docs/profiles.md, "Versions and
 * drift"): every real recording replayed as if its CLI said a version raised by a patch, a
 * minor and a major. Each such replay must mark the terminal unverified and report no false
 * success: no turn succeeds that did not, none before its last model request truly ended.
 * Where the raised version picks the same vocabulary as the recorded one, the public states
 * must be the recorded version's, field for field, but for the version marking.
 */
import { describe, expect, it } from 'vitest';
import { getProfile } from '../../src/profiles/index.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { EXPECTATIONS } from './expectations.js';
import { FIXTURES, loadReplayed, outcomesOf } from './ground-truth.js';
import { readFileSync } from 'node:fs';

const EPS = 1e-6;

/** `version` with one of its numbers raised by one and the later ones set to 0. */
function raise(version: string, part: 'patch' | 'minor' | 'major'): string {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map((n) => Number.parseInt(n, 10));
  if (part === 'major') return `${major + 1}.0.0`;
  if (part === 'minor') return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

/** The vocabulary edition a profile picks for a version, as its evidence names it. */
function editionOf(tool: string, version: string): string {
  return getProfile(tool, version).parse({ text: '' }).evidence.detector;
}

/** The header's tool version of a recording. */
function recordedVersion(tool: string, scenario: string): string {
  const first = readFileSync(`${FIXTURES}${tool}/${scenario}.jsonl`, 'utf8').split('\n', 1)[0]!;
  return (JSON.parse(first) as { toolVersion: string }).toolVersion;
}

/** A state with the version fields left out: what must not depend on the version marking. */
function withoutVersion(
  s: TerminalState,
): Omit<TerminalState, 'toolVersion' | 'toolVersionVerified'> {
  const { toolVersion: _v, toolVersionVerified: _m, ...rest } = s;
  return rest;
}

describe('replays read as a newer, unverified release', () => {
  it('raises versions by a patch, a minor and a major', () => {
    expect(['patch', 'minor', 'major'].map((p) => raise('2.1.330', p as 'patch'))).toEqual([
      '2.1.331',
      '2.2.0',
      '3.0.0',
    ]);
    expect(raise('0.0.34', 'minor')).toBe('0.1.0');
  });

  for (const [tool, table] of Object.entries(EXPECTATIONS)) {
    describe(tool, () => {
      for (const [scenario, exp] of Object.entries(table.scenarios)) {
        it(scenario, () => {
          const recorded = recordedVersion(tool, scenario);
          const base = loadReplayed(tool, scenario);
          for (const part of ['patch', 'minor', 'major'] as const) {
            const version = raise(recorded, part);
            const label = `${tool} ${scenario} as ${version}`;
            const r = loadReplayed(tool, scenario, { toolVersion: version });
            expect(r.states.length, label).toBeGreaterThan(0);
            for (const s of r.states) {
              expect(s.toolVersion, label).toBe(version);
              expect(s.toolVersionVerified, `${label}: marked unverified`).toBe(false);
            }
            // No false success: only a turn that truly succeeded may, and never early.
            r.turns.forEach((turn, i) => {
              for (const o of outcomesOf(r.states, turn.id)) {
                if (o.result !== 'success') continue;
                expect(exp.turns[i], `${label}: ${turn.id} reported success`).toBe('success');
                expect(o.t, `${label}: ${turn.id} success at`).toBeGreaterThanOrEqual(
                  (turn.trueEnd ?? Infinity) - EPS,
                );
              }
            });
            if (editionOf(tool, version) === editionOf(tool, recorded)) {
              expect(
                r.states.map(withoutVersion),
                `${label}: read as the recorded release`,
              ).toEqual(base.states.map(withoutVersion));
            }
          }
        });
      }
    });
  }
});

describe('under the strict gate (verifiedOnly) a newer release is not read at all', () => {
  for (const [tool, table] of Object.entries(EXPECTATIONS)) {
    const scenario = Object.keys(table.scenarios)[0]!;
    it(`${tool} ${scenario}: never ready, never an outcome`, () => {
      // A major release: newer than every verified one (a patch of an older recording may sit
      // between two verified releases, which is read).
      const version = raise(recordedVersion(tool, scenario), 'major');
      const r = loadReplayed(tool, scenario, { toolVersion: version, verifiedOnly: true });
      expect(r.states.length).toBeGreaterThan(0);
      for (const s of r.states) {
        expect(s.readiness.status).not.toBe('ready');
        expect(s.lastTurn.result).toBe('none');
        expect(s.toolVersionVerified).toBe(false);
      }
    });
  }
});
