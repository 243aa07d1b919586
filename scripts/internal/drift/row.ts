/** One row of the drift table, and the decision that ends it: what to do about the CLI. */

/** How the live suite went against the newest release. */
export type LiveResult =
  | { status: 'pass'; passed: number; seconds: number }
  | { status: 'fail'; passed: number; failed: number; seconds: number; why: string }
  | { status: 'skipped'; why: string };

/** What the canary found out about one CLI. */
export interface DriftFacts {
  id: string;
  pkg: string;
  pinned: string;
  /** The registry's newest version, or null when it could not be asked. */
  newest: string | null;
  /** Why the registry gave no answer. */
  registryError?: string;
  /** `isVerifiedVersion(id, newest)`. */
  verified: boolean;
  /** Whether the newest release has a build for this machine (null: not asked). */
  platform: { ok: boolean; detail: string } | null;
  /** Where the newest release was installed, or why not. */
  install:
    { status: 'installed' | 'present'; bin: string } | { status: 'failed'; why: string } | null;
  live: LiveResult;
  /** Frames paneward could not read during the live run (null: no run). */
  unrecognised: number | null;
}

/** The decision for one row. */
export interface DriftDecision {
  action: string;
  /** Verified, or newer and read fine: nothing to do now. */
  ok: boolean;
}

/** What to do about one CLI, given what the canary found. */
export function decide(f: DriftFacts): DriftDecision {
  if (f.newest === null)
    return { action: `ask the registry again: ${f.registryError ?? 'no answer'}`, ok: false };
  const troubled = (f.unrecognised ?? 0) > 0 || f.live.status === 'fail';
  if (f.verified && !troubled) {
    return {
      action: f.newest === f.pinned ? 'verified' : `verified: pin ${f.newest} in install-agent.sh`,
      ok: true,
    };
  }
  if (f.platform && !f.platform.ok)
    return { action: `${f.platform.detail}: keep the pin`, ok: false };
  if (f.install?.status === 'failed')
    return { action: `install failed: ${f.install.why}`, ok: false };
  if (f.unrecognised !== null && f.unrecognised > 0) {
    return { action: 'unrecognised screens: record and extend the vocabulary', ok: false };
  }
  if (f.live.status === 'fail') {
    return { action: 'live suite fails: record it and see what changed', ok: false };
  }
  if (f.live.status === 'skipped') return { action: `not checked: ${f.live.why}`, ok: false };
  return { action: 'newer, reads fine: record and pin it', ok: true };
}

/** The live suite column: pass, fail or skipped, with the reason. */
export function liveCell(l: LiveResult): string {
  switch (l.status) {
    case 'pass':
      return `pass (${l.passed} tests, ${Math.round(l.seconds)}s)`;
    case 'fail':
      return `fail (${l.failed} of ${l.passed + l.failed}, ${Math.round(l.seconds)}s): ${clip(l.why)}`;
    case 'skipped':
      return `skipped: ${l.why}`;
  }
}

/** The table's cells stay short; `--json` has the whole reason. */
const clip = (s: string, max = 90): string => (s.length > max ? `${s.slice(0, max - 3)}...` : s);

/** A row as printed and as `--json` gives it. */
export interface DriftRow extends DriftFacts, DriftDecision {}

export const rowOf = (f: DriftFacts): DriftRow => ({ ...f, ...decide(f) });

const HEAD = ['CLI', 'newest', 'pinned', 'verified?', 'live suite', 'unrecognised', 'what to do'];

/** The cells of one row, in the order of the table's columns. */
export function cells(r: DriftRow): string[] {
  return [
    r.id,
    r.newest ?? '?',
    r.pinned,
    r.newest === null ? '?' : r.verified ? 'yes' : 'no',
    liveCell(r.live),
    r.unrecognised === null ? '-' : String(r.unrecognised),
    r.action,
  ];
}

/** The table a person reads: one line per CLI, columns padded. */
export function formatTable(rows: readonly DriftRow[]): string {
  const lines = [HEAD, ...rows.map(cells)];
  const widths = HEAD.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  const fmt = (l: string[]) =>
    l
      .map((c, i) => (i === l.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [
    fmt(HEAD),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.map((r) => fmt(cells(r))),
  ].join('\n');
}

/** 0 when every CLI is verified or reads fine, 1 otherwise. */
export const exitCodeOf = (rows: readonly DriftRow[]): number => (rows.every((r) => r.ok) ? 0 : 1);
