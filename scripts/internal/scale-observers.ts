import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Subscription } from 'rxjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as ControlM from '../../src/observe/control/index.js';
import { createExecaTransport } from '../../src/observe/execa-transport.js';
import { tmuxArgs } from '../../src/observe/tmux-locale.js';
import { createPollingSource, type FrameSource } from '../../src/observe/frame-source.js';
import type { ProfileFactory, ToolProfile } from '../../src/profiles/types.js';
import { NO_SIGNALS, type ProfileResult } from '../../src/schemas/signals.js';
import type * as SupervisorM from '../../src/supervisor/supervisor.js';
import { FLEET_PROCESS_NAMES, type FleetPane } from './scale-tmux.js';

export type ObserverName = 'supervisor' | 'control' | 'polling' | 'loop';

export const OBSERVER_LABELS: Record<ObserverName, string> = {
  supervisor: 'paneward supervisor, control mode (to public state)',
  control: 'paneward control mode',
  polling: 'paneward polling',
  loop: 'capture-pane loop',
};

/**
 * What each observer saw: per pane, when samples arrived, and for panes that print, how long
 * after each printed line the first sample showing it arrived.
 */
export class SampleLog {
  readonly times: number[][];
  /** Per pane: [arrival (performance.now), latency ms] of each line first seen. */
  readonly latencies: Array<Array<[number, number]>>;
  /** The latest screen of each pane, held as a terminal would hold it. */
  readonly last: Array<string | null>;
  readonly #lastSeq: number[];

  constructor(readonly panes: readonly FleetPane[]) {
    this.times = panes.map(() => []);
    this.latencies = panes.map(() => []);
    this.last = panes.map(() => null);
    this.#lastSeq = panes.map(() => 0);
  }

  sample(pane: number, text: string | null): void {
    const at = performance.now();
    this.times[pane]!.push(at);
    if (text === null) return;
    const previous = this.last[pane];
    this.last[pane] = text;
    if (!this.panes[pane]!.busy || text === previous) return;
    const now = performance.timeOrigin + at;
    // Lines print one a second at most a screen apart: read them from the bottom up.
    const lines = text.split('\n');
    let newest = this.#lastSeq[pane]!;
    for (let i = lines.length - 1; i >= 0; i--) {
      const m = /^tick (\d+) (\d+\.\d+)$/.exec(lines[i]!);
      if (!m) continue;
      const seq = Number(m[1]);
      if (seq <= this.#lastSeq[pane]!) break;
      newest = Math.max(newest, seq);
      this.latencies[pane]!.push([at, now - Number(m[2]) * 1000]);
    }
    this.#lastSeq[pane] = newest;
  }
}

/** One observer of the whole fleet, started and stopped by the bench. */
export interface Observer {
  readonly name: ObserverName;
  /** Pids of long-lived processes the observer runs (the control client). */
  childPids(): number[];
  stop(): Promise<void>;
}

export interface ObserverOptions {
  socketName: string;
  /** Load paneward from dist/ (the compiled code) instead of src/ through tsx. */
  dist?: boolean;
  panes: readonly FleetPane[];
  intervalMs: number;
  log: SampleLog;
}

const NAMES = [...FLEET_PROCESS_NAMES];

export async function startObserver(name: ObserverName, o: ObserverOptions): Promise<Observer> {
  switch (name) {
    case 'supervisor':
      return supervisorObserver(o);
    case 'control':
      return sourceObserver(
        name,
        (
          await paneward<typeof ControlM>('src/observe/control/index.js', o)
        ).createControlModeSource({
          transport: createExecaTransport({ socketName: o.socketName }),
          socketName: o.socketName,
          intervalMs: o.intervalMs,
        }),
        o,
      );
    case 'polling':
      return sourceObserver(
        name,
        createPollingSource({
          transport: createExecaTransport({ socketName: o.socketName }),
          intervalMs: o.intervalMs,
        }),
        o,
      );
    case 'loop':
      return captureLoop(o);
  }
}

function sourceObserver(name: ObserverName, source: FrameSource, o: ObserverOptions): Observer {
  // The control client lives as long as the source; polling's tmux processes are reaped.
  const subs: Subscription[] = o.panes.map((pane, i) =>
    source
      .samples({ target: pane.id, processNames: NAMES })
      .subscribe((probe) => o.log.sample(i, probe.capture?.text ?? null)),
  );
  return {
    name,
    childPids: () => (name === 'control' ? tmuxChildren() : []),
    async stop() {
      for (const s of subs) s.unsubscribe();
      await source.close();
      await source.transport.close();
    },
  };
}

/**
 * The whole of paneward on control mode: a supervisor with one terminal actor per pane, each
 * running its charts and journal records (in memory), read from its public state. The fleet's
 * panes are no agent CLI, so a bench profile reads them: the pane is idle and ready, and its
 * newest `tick` line is its one active reason, so each printed line changes the public state;
 * what is logged is when that state was published.
 */
async function supervisorObserver(o: ObserverOptions): Promise<Observer> {
  const { createSupervisor } = await paneward<typeof SupervisorM>(
    'src/supervisor/supervisor.js',
    o,
  );
  // A journal on disk, as `paneward serve` keeps one: an in-memory journal holds every record.
  const dataDir = mkdtempSync(join(tmpdir(), 'pw-scale-journal-'));
  const sup = createSupervisor({
    socketName: o.socketName,
    dataDir,
    source: 'control',
    profiles: { fleet: fleetProfile },
    config: { pollIntervalSeconds: o.intervalMs / 1000 },
  });
  const subs: Subscription[] = [];
  for (const [i, pane] of o.panes.entries()) {
    const id = await sup.attach({ target: pane.id, tool: 'fleet', id: `f${i}` });
    subs.push(sup.state$(id).subscribe((s) => o.log.sample(i, s.surface.activeReasons.join('\n'))));
  }
  return {
    name: 'supervisor',
    childPids: () => tmuxChildren(),
    async stop() {
      for (const s of subs) s.unsubscribe();
      await sup.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A module of paneward, from src/ (through tsx) or, with `dist`, compiled. */
function paneward<T>(path: string, o: ObserverOptions): Promise<T> {
  return import((o.dist ? '../../dist/' : '../../') + path) as Promise<T>;
}

const TICK = /^tick \d+ \d+\.\d+$/;

// One profile object for every pane, as paneward's own profiles are shared by the terminals of
// one tool and version.
const fleet: ToolProfile = {
  id: 'fleet',
  verifiedVersions: 'bench',
  processNames: NAMES,
  interruptKeys: ['C-c'],
  submitKeys: ['Enter'],
  parse: (screen): ProfileResult => {
    const tick = screen.text
      .split('\n')
      .reverse()
      .find((l) => TICK.test(l));
    return {
      surface: {
        availability: 'supported',
        businessState: 'idle',
        inputMode: 'freeform',
        uiContext: 'normal_prompt',
        projectionText: screen.text,
      },
      signals: {
        ...NO_SIGNALS,
        acceptingInput: 'yes',
        editingInput: 'no',
        readyPosture: 'yes',
        chatContext: 'current',
        activeReasons: tick ? [tick] : [],
      },
      evidence: { detector: 'fleet', rule: tick ? 'tick' : 'still' },
    };
  },
};
const fleetProfile: ProfileFactory = () => fleet;

/**
 * The loop agent dashboards run: per pane, `tmux capture-pane -p` in a subprocess every
 * 500 ms (never two at once for one pane), with Node's plainest spawn.
 */
function captureLoop(o: ObserverOptions): Observer {
  let stopped = false;
  const running = new Set<Promise<void>>();
  const once = (pane: FleetPane) =>
    new Promise<string | null>((resolve) => {
      execFile(
        'tmux',
        tmuxArgs(['-L', o.socketName, 'capture-pane', '-p', '-t', pane.id]),
        { timeout: 10_000, encoding: 'utf8', maxBuffer: 1 << 20 },
        (error, stdout) => resolve(error ? null : stdout),
      );
    });
  o.panes.forEach((pane, i) => {
    const loop = (async () => {
      while (!stopped) {
        const started = performance.now();
        const out = await once(pane);
        if (stopped) break;
        o.log.sample(i, out === null ? null : out.replace(/\n$/, ''));
        const wait = 500 - (performance.now() - started);
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
    })();
    running.add(loop);
  });
  return {
    name: 'loop',
    childPids: () => [],
    async stop() {
      stopped = true;
      await Promise.all(running);
    },
  };
}

/** This process's children that are tmux clients (the control client). */
function tmuxChildren(): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      if (ppid === process.pid && comm === 'tmux') out.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}
