/**
 * A stand-in `claude` for spawn tests: a script that writes the argv, folder and environment it
 * was started with (to `$PW_PROBE_OUT.argv|.cwd|.env`), then plays a real recording of Claude
 * Code under the process name `claude`, so paneward reads a ready prompt and then a permission
 * question. `PW_PROBE_EXIT=N` makes it exit with status N at once instead.
 */
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const PLAYER = resolve('src/tooling/demo/player.mjs');
const RECORDING = resolve('recordings/claude_code/permission-prompt.jsonl');

/** Makes `<root>/bin/claude`; returns the `bin` folder (put it first on the spawn's PATH). */
export function makeStandInClaude(root: string): string {
  const bin = join(root, 'bin');
  mkdirSync(bin, { recursive: true });
  mkdirSync(join(root, 'play'), { recursive: true });
  // The player under the CLI's own process name, so the pane reads as Claude Code's.
  symlinkSync(process.execPath, join(root, 'play', 'claude'));
  writeFileSync(
    join(bin, 'claude'),
    [
      '#!/bin/sh',
      'out="$PW_PROBE_OUT"',
      'if [ -n "$out" ]; then',
      '  printf "%s\\0" "$0" "$@" > "$out.argv"',
      '  pwd -P > "$out.cwd"',
      '  env -0 > "$out.env"',
      'fi',
      'if [ -n "$PW_PROBE_EXIT" ]; then exit "$PW_PROBE_EXIT"; fi',
      `exec '${root}/play/claude' '${PLAYER}' '${RECORDING}' 3600`,
      '',
    ].join('\n'),
  );
  chmodSync(join(bin, 'claude'), 0o755);
  return bin;
}

/** What the stand-in wrote of how it was started. */
export interface Seen {
  argv: string[];
  cwd: string;
  env: Map<string, string>;
}

export function readSeen(out: string): Seen {
  // The script's own path first (printf prints its format once even with no arguments).
  const argv = readFileSync(`${out}.argv`, 'utf8').split('\0').slice(1, -1);
  const cwd = readFileSync(`${out}.cwd`, 'utf8').replace(/\n$/, '');
  const env = new Map<string, string>();
  for (const entry of readFileSync(`${out}.env`, 'utf8').split('\0').slice(0, -1)) {
    const eq = entry.indexOf('=');
    env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return { argv, cwd, env };
}
