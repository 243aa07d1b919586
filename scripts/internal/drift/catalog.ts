/**
 * The agent CLIs the drift canary looks at: their packages and pinned versions, read from
 * `scripts/install-agent.sh` (the one place the pins live), and where each one's live suite is.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One CLI as `scripts/install-agent.sh` installs it. */
export interface PinnedCli {
  /** Profile id (`grok_cli`). */
  id: string;
  /** npm package (`@vibe-kit/grok-cli`). */
  pkg: string;
  /** The pinned version (`0.0.34`). */
  pinned: string;
  /** The executable's name under `node_modules/.bin/`. */
  bin: string;
}

const PIN_LINE = /^\s*([a-z][a-z0-9_]*)\)\s+pkg=(\S+)\s+bin=([^\s;]+)\s*;;/;

/** The pins of an install script's `case` list, in its order. */
export function parsePins(script: string): PinnedCli[] {
  const pins: PinnedCli[] = [];
  for (const line of script.split('\n')) {
    const m = PIN_LINE.exec(line);
    if (!m) continue;
    const spec = m[2]!;
    const at = spec.lastIndexOf('@');
    if (at <= 0) throw new Error(`install-agent.sh: the ${m[1]} line pins no version: ${spec}`);
    pins.push({ id: m[1]!, pkg: spec.slice(0, at), pinned: spec.slice(at + 1), bin: m[3]! });
  }
  return pins;
}

/** The pins of the repository's `scripts/install-agent.sh`. */
export function readPins(root: string): PinnedCli[] {
  return parsePins(readFileSync(join(root, 'scripts/install-agent.sh'), 'utf8'));
}

/** The live suite of a CLI. */
export const liveSuiteOf = (id: string): string => `test/e2e/live/${id}.test.ts`;

/**
 * CLIs whose offline set-up does not take `PANEWARD_AGENT_BIN_<TOOL>` yet (their live suite
 * would run the pinned install, not the newer one), with the reason the table gives.
 */
export const LIVE_UNSUPPORTED: Readonly<Record<string, string>> = {
  codex: 'its set-up (src/tooling/agents/codex.ts) does not take PANEWARD_AGENT_BIN_CODEX yet',
};

/**
 * `--only a,b`: the pins named, in the order given; an id that is not a pinned CLI is an error
 * naming it and the ids there are.
 */
export function selectPins(pins: readonly PinnedCli[], only: string | undefined): PinnedCli[] {
  if (only === undefined) return [...pins];
  const ids = only
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (ids.length === 0) throw new Error('--only needs at least one CLI id');
  return ids.map((id) => {
    const pin = pins.find((p) => p.id === id);
    if (!pin) throw new Error(`--only: no CLI ${id} (one of ${pins.map((p) => p.id).join(', ')})`);
    return pin;
  });
}
