import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { createExecaTransport } from '../../src/observe/execa-transport.js';
import { TMUX_UTF8_FLAG, tmuxArgs } from '../../src/observe/tmux-locale.js';
import type { TmuxTransport } from '../../src/observe/transport.js';

/** One pane of the fleet. */
export interface FleetPane {
  /** tmux pane id, `%N`. */
  id: string;
  /** Prints a timestamped line every `period` seconds (the rest sit still). */
  busy: boolean;
}

/** A dedicated tmux server with one session of `count` single-pane windows. */
export interface Fleet {
  socketName: string;
  serverPid: number;
  panes: FleetPane[];
  /** Seconds between two lines of a pane that prints. */
  periodSeconds: number;
  /** For one-off commands against the fleet's server. */
  transport: TmuxTransport;
  /** Kills the server (and so every pane), removes its socket and scripts. */
  close(): Promise<void>;
}

export interface FleetOptions {
  socketName: string;
  count: number;
  /** Share of panes that print, 0..1; spread evenly over the windows. */
  busyShare: number;
  /**
   * Seconds between two lines of a pane that prints (default 1). With a period of N seconds
   * the panes' phases are staggered over it (pane i starts at (i mod N) s plus a fraction), so
   * a share 1/N of them prints each second.
   */
  periodSeconds?: number;
  cols: number;
  rows: number;
  signal?: AbortSignal;
}

/** The names of the fleet's processes: idle panes run `sleep`, busy ones `bash`. */
export const FLEET_PROCESS_NAMES = ['sleep', 'bash'] as const;

// A screen of text like an agent's, then nothing: the agent is waiting.
const IDLE = `#!/bin/sh
i=1
while [ $i -le 40 ]; do
  printf '%02d  the quick brown fox jumps over the lazy dog; a line of a reply as long as real ones are\\n' $i
  i=$((i + 1))
done
printf '> '
exec sleep 2147483647
`;

// The same screen, then one line every $1 seconds carrying its wall-clock time, the first after
// $2 seconds, from bash builtins only (no process per line): read -t waits on the pane's own
// terminal, where nothing is typed. Each line's wait is counted from the pane's start, so the
// phases do not drift.
const BUSY = `#!/bin/bash
for i in $(seq -w 1 40); do
  printf '%s  the quick brown fox jumps over the lazy dog; a line of a reply as long as real ones are\\n' "$i"
done
period=$1
start=\${EPOCHREALTIME/./}
next=$(( start + $2 ))
n=0
while :; do
  now=\${EPOCHREALTIME/./}
  wait=$(( next - now ))
  if [ $wait -gt 0 ]; then
    printf -v frac '%06d' $(( wait % 1000000 ))
    read -r -s -N 1 -t "$(( wait / 1000000 )).$frac" _
  fi
  n=$((n + 1))
  printf 'tick %d %s\\n' "$n" "$EPOCHREALTIME"
  next=$(( next + period * 1000000 ))
done
`;

const tmuxEnv = { TMUX: '', LC_ALL: 'C' };

/**
 * Starts the fleet: `tmux -L socketName -f /dev/null`, every window `cols`×`rows`, the pane
 * programs run under `env -i`. Rejects (having killed the server) if the panes do not come up
 * at the asked size.
 */
export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const dir = mkdtempSync(join(tmpdir(), 'pw-scale-fleet-'));
  const idle = join(dir, 'idle.sh');
  const busy = join(dir, 'busy.sh');
  writeFileSync(idle, IDLE);
  writeFileSync(busy, BUSY);
  chmodSync(idle, 0o755);
  chmodSync(busy, 0o755);
  const { socketName, count, cols, rows } = options;
  const busyEvery = options.busyShare > 0 ? Math.round(1 / options.busyShare) : Infinity;
  const isBusy = (i: number) => busyEvery !== Infinity && i % busyEvery === 0;
  const period = options.periodSeconds ?? 1;
  // Microseconds before a busy pane's first line: a random fraction of a second, plus (i mod
  // period) whole seconds so the panes' phases spread over the period.
  const delay = (i: number) =>
    Math.round(((period > 1 ? i % period : 0) + 0.1 + Math.random() * 0.8) * 1e6);
  const command = (i: number) =>
    `exec env -i PATH=/usr/bin:/bin TERM=tmux-256color LC_ALL=C ${isBusy(i) ? `${busy} ${period} ${delay(i)}` : idle}`;
  const tmux = (args: string[], timeout = 30_000) =>
    execa('tmux', tmuxArgs(['-L', socketName, ...args]), {
      stdin: 'ignore',
      timeout,
      env: tmuxEnv,
      cancelSignal: options.signal,
    });

  const transport = createExecaTransport({ socketName, timeoutMs: 10_000 });
  let serverPid = 0;
  const close = async () => {
    await tmux(['kill-server'], 5000).catch(() => undefined);
    // kill-server returns before the server has gone; it is ours, so it is waited for by pid.
    if (serverPid > 0) await stopPid(serverPid);
    await transport.close();
    rmSync(join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid?.() ?? 0}`, socketName), {
      force: true,
    });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await execa(
      'tmux',
      [
        TMUX_UTF8_FLAG,
        '-L',
        socketName,
        '-f',
        '/dev/null',
        'start-server',
        ';',
        'set-option',
        '-g',
        'default-size',
        `${cols}x${rows}`,
        ';',
        'new-session',
        '-d',
        '-s',
        'bench',
        '-x',
        String(cols),
        '-y',
        String(rows),
        command(0),
      ],
      { stdin: 'ignore', timeout: 10_000, env: tmuxEnv, cancelSignal: options.signal },
    );
    // Windows in chunks: one tmux invocation each, the argument list kept short.
    for (let i = 1; i < count; i += 50) {
      const args: string[] = [];
      for (let j = i; j < Math.min(count, i + 50); j++) {
        if (args.length > 0) args.push(';');
        args.push('new-window', '-d', '-t', 'bench', command(j));
      }
      await tmux(args);
    }
    serverPid = Number((await tmux(['display-message', '-p', '#{pid}'])).stdout.trim());
    const listed = (
      await tmux([
        'list-panes',
        '-s',
        '-t',
        'bench',
        '-F',
        '#{window_index} #{pane_id} #{pane_width}x#{pane_height}',
      ])
    ).stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' '))
      .sort((a, b) => Number(a[0]) - Number(b[0]));
    if (listed.length !== count) throw new Error(`fleet has ${listed.length} panes, not ${count}`);
    const wrong = listed.find((l) => l[2] !== `${cols}x${rows}`);
    if (wrong) throw new Error(`pane ${wrong[1]} is ${wrong[2]}, not ${cols}x${rows}`);
    return {
      socketName,
      serverPid,
      panes: listed.map((l, i) => ({ id: l[1]!, busy: isBusy(i) })),
      periodSeconds: period,
      transport,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Waits up to 3 s for a process to exit, then SIGKILLs it. */
async function stopPid(pid: number): Promise<void> {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (let i = 0; i < 60 && alive(); i++) await new Promise((r) => setTimeout(r, 50));
  if (alive()) process.kill(pid, 'SIGKILL');
}
