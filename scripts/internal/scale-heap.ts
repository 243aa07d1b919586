import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeHeapSnapshot } from 'node:v8';
import { NEVER, Subject, type Observable } from 'rxjs';
import { createActor, fromPromise } from 'xstate';
import type * as SupervisorM from '../../machines/supervisor.js';
import type * as LongTimerM from '../../src/internal/long-timer.js';
import type * as JournalM from '../../src/journal/journal.js';
import type * as ChartRunnerM from '../../src/kernel/chart-runner.js';
import type * as VirtualTimeM from '../../src/kernel/virtual-time.js';
import type * as ProfilesM from '../../src/profiles/index.js';
import type * as KernelSchemaM from '../../src/schemas/kernel.js';
import type * as ObserverM from '../../src/sessions/observer.js';
import type * as TerminalsM from '../../src/supervisor/terminals.js';
import type * as RuntimeM from '../../src/terminal/runtime.js';
import type { FrameSource } from '../../src/observe/frame-source.js';
import type { PaneProbe } from '../../src/observe/types.js';
import type { RecordingFrame } from '../../src/schemas/recording.js';
import { listRecordings, loadRecording } from './bench-pipeline.js';
import { collectGarbage } from './scale-measure.js';

/**
 * `node --expose-gc --import tsx scripts/internal/scale-heap.ts [--terminals N] [--frames F]
 * [--journal memory|disk] [--dist] [--snapshot]`:
 * the heap a supervisor's terminals retain, without tmux. The supervisor's own parts (its
 * actor, the terminal runtime, a journal) run as `createSupervisor` wires them, on a frame
 * source that hands each terminal the frames of a bundled recording (each capture a fresh
 * string, as tmux's are), one frame every half second of virtual time, cycling through the
 * recording. After a full GC it prints the heap per terminal, then what each part held: the
 * journal's in-memory records (dropped and measured again), the terminals (stopped and
 * measured again). `--snapshot` also writes heap snapshots before and after and prints the
 * difference by constructor.
 */
const { values } = parseArgs({
  options: {
    terminals: { type: 'string', default: '1000' },
    frames: { type: 'string', default: '40' },
    journal: { type: 'string', default: 'memory' },
    tools: { type: 'string', default: '' },
    snapshot: { type: 'boolean', default: false },
    dist: { type: 'boolean', default: false },
    top: { type: 'string', default: '25' },
  },
});
const N = Number(values.terminals);
const FRAMES = Number(values.frames);
const onDisk = values.journal === 'disk';

// The code users run is the compiled one (`npm run build`, dist/): run through tsx, every
// function object carries a `name` property of its own (esbuild's keepNames), about 250 bytes
// more per closure, which a terminal has dozens of.
const base = values.dist ? '../../dist/' : '../../';
const load = <T>(path: string): Promise<T> => import(base + path) as Promise<T>;
const { supervisorMachine } = await load<typeof SupervisorM>('machines/supervisor.js');
const { scheduleLong } = await load<typeof LongTimerM>('src/internal/long-timer.js');
const { Journal } = await load<typeof JournalM>('src/journal/journal.js');
const { InspectionHub } = await load<typeof ChartRunnerM>('src/kernel/chart-runner.js');
const { VirtualClock } = await load<typeof VirtualTimeM>('src/kernel/virtual-time.js');
const { getProfile } = await load<typeof ProfilesM>('src/profiles/index.js');
const { KernelConfig } = await load<typeof KernelSchemaM>('src/schemas/kernel.js');
const { ClaimRegistry } = await load<typeof ObserverM>('src/sessions/observer.js');
const { TerminalActors } = await load<typeof TerminalsM>('src/supervisor/terminals.js');
const { provideTerminal, RunningTerminals } =
  await load<typeof RuntimeM>('src/terminal/runtime.js');
type Journal = InstanceType<typeof Journal>;
const root = fileURLToPath(new URL('../..', import.meta.url));
const wanted = values.tools ? new Set(values.tools.split(',')) : null;

const recordings = [
  ...listRecordings(join(root, 'recordings')),
  ...listRecordings(join(root, 'test/fixtures')),
]
  .map(loadRecording)
  .filter((r) => !wanted || wanted.has(r.header.tool))
  .map((r) => ({
    tool: r.header.tool,
    toolVersion: r.header.toolVersion,
    frames: r.lines.filter((l): l is RecordingFrame => l.type === 'frame'),
  }))
  .filter((r) => r.frames.length > 0);
if (recordings.length === 0) throw new Error('no recording with frames');

/** A flat copy, as a capture read from tmux is: it shares nothing with the recording. */
const fresh = (s: string): string => Buffer.from(s, 'utf8').toString('utf8');

interface Fleet {
  stop(): Promise<void>;
  journal: Journal;
  /** Feeds frame `k` to every terminal. */
  frame(k: number): void;
}

async function startFleet(count: number, dataDir: string | null): Promise<Fleet> {
  const clock = new VirtualClock();
  const scheduler = clock.scheduler;
  const config = KernelConfig.parse({});
  const journal = new Journal({ dataDir, scheduler, fsync: false });
  const panes = new Map<string, Subject<PaneProbe>>();
  const source: FrameSource = {
    samples: ({ target }) =>
      (panes.get(target) as Observable<PaneProbe> | undefined) ?? (NEVER as Observable<never>),
    transport: { run: async () => '', close: async () => {} },
    close: async () => {},
  };
  const hub = new InspectionHub();
  const assigned = new Map<string, (typeof recordings)[number]>();
  const terminal = provideTerminal({
    source,
    journal,
    hub,
    scheduler,
    config,
    profileFor: (tool, version) => getProfile(tool, version),
    detectTool: async () => 'unsupported',
    running: new RunningTerminals(),
    sessionClaims: new ClaimRegistry(),
  });
  const actor = createActor(
    supervisorMachine.provide({
      actors: { terminal, flush: fromPromise(() => journal.flush()) },
    }),
    {
      id: 'supervisor',
      systemId: 'supervisor',
      inspect: hub.inspect,
      clock: {
        setTimeout: (fn, ms) => scheduleLong(scheduler, fn, ms),
        clearTimeout: (sub: { unsubscribe(): void }) => sub.unsubscribe(),
      },
    },
  ).start();
  const terminals = new TerminalActors(actor, {
    journal,
    scheduler,
    config,
    backoff: { initialSeconds: 0.5, maxSeconds: 30 },
    onRestart: () => {},
  });
  for (let i = 0; i < count; i++) {
    const rec = recordings[i % recordings.length]!;
    const target = `%${i}`;
    panes.set(target, new Subject<PaneProbe>());
    assigned.set(target, rec);
    terminals.spawn(
      `t${i}`,
      { target, tool: rec.tool, ...(rec.toolVersion ? { toolVersion: rec.toolVersion } : {}) },
      false,
    );
  }
  // Each terminal prepares (a promise), then its runtime subscribes to its pane.
  await settle();
  return {
    journal,
    frame(k: number) {
      clock.advanceTo(k * 0.5);
      let i = 0;
      for (const [target, subject] of panes) {
        const rec = assigned.get(target)!;
        const f = rec.frames[(k + i++) % rec.frames.length]!;
        subject.next({
          transport: f.transport,
          process: f.process,
          capture: {
            text: fresh(f.text),
            ...(f.ansi === undefined ? {} : { ansi: fresh(f.ansi) }),
          },
          pane: null,
          pids: [],
          error: null,
          tookMs: 0,
        });
      }
    },
    async stop() {
      for (const s of panes.values()) s.complete();
      actor.send({ type: 'evt_stop' });
      await journal.flush();
      actor.stop();
      await journal.close();
    },
  };
}

const settle = () => new Promise<void>((r) => setImmediate(r));

function heapUsed(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

/** Self size and count of every node in a heap snapshot, by type and constructor name. */
function byConstructor(file: string): Map<string, { size: number; count: number }> {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const [iType, iName, iSize] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const out = new Map<string, { size: number; count: number }>();
  for (let n = 0; n < snap.nodes.length; n += width) {
    const type = types[snap.nodes[n + iType!]!]!;
    const name =
      type === 'object' || type === 'closure' || type === 'native'
        ? snap.strings[snap.nodes[n + iName!]!]!
        : '';
    const key = `${type}${name ? ' ' + name.slice(0, 60) : ''}`;
    const e = out.get(key) ?? { size: 0, count: 0 };
    e.size += snap.nodes[n + iSize!]!;
    e.count += 1;
    out.set(key, e);
  }
  return out;
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1);

async function main(): Promise<void> {
  const dir = onDisk ? mkdtempSync(join(tmpdir(), 'pw-heap-')) : null;
  try {
    // Warm-up: the modules, the compiled code and the recordings are paid before the baseline.
    const warm = await startFleet(recordings.length, dir && join(dir, 'warm'));
    for (let k = 0; k < 20; k++) warm.frame(k);
    await warm.journal.flush();
    await warm.stop();
    await settle();

    const before = heapUsed();
    const snap0 = values.snapshot
      ? writeHeapSnapshot(join(tmpdir(), 'pw-heap-0.heapsnapshot'))
      : null;
    const base = heapUsed();
    const fleet = await startFleet(N, dir && join(dir, 'run'));
    const started = heapUsed();
    for (let k = 0; k < FRAMES; k++) {
      fleet.frame(k);
      await settle();
    }
    await fleet.journal.flush();
    const after = heapUsed();
    const records = fleet.journal.lastSeq;
    const snap1 = values.snapshot
      ? writeHeapSnapshot(join(tmpdir(), 'pw-heap-1.heapsnapshot'))
      : null;

    // The journal's in-memory records, dropped: every array and map it holds is emptied.
    const held = fleet.journal as unknown as Record<string, unknown>;
    for (const v of Object.values(held)) {
      if (Array.isArray(v)) v.length = 0;
      else if (v instanceof Map) v.clear();
    }
    const noRecords = heapUsed();
    await fleet.stop();
    await settle();
    const stopped = heapUsed();

    console.log(
      `${N} terminals (${recordings.length} recordings), ${FRAMES} frames each, journal ${onDisk ? 'on disk' : 'in memory'}, ${values.dist ? 'compiled (dist/)' : 'through tsx'}; Node ${process.version}`,
    );
    console.log(`records: ${records} (${(records / N).toFixed(1)} per terminal)`);
    console.log(`heap per terminal, attached (no frame yet): ${kb((started - base) / N)} KB`);
    console.log(`heap per terminal, after the frames:        ${kb((after - base) / N)} KB`);
    console.log(`  of which journal records in memory:       ${kb((after - noRecords) / N)} KB`);
    console.log(`  of which the terminals themselves:        ${kb((noRecords - stopped) / N)} KB`);
    console.log(`  left after stopping (not per terminal):   ${kb((stopped - before) / N)} KB`);

    if (snap0 && snap1) {
      const a = byConstructor(snap0);
      const b = byConstructor(snap1);
      const rows = [...b]
        .map(([k, v]) => {
          const o = a.get(k) ?? { size: 0, count: 0 };
          return { k, size: v.size - o.size, count: v.count - o.count };
        })
        .filter((r) => r.size > 0)
        .sort((x, y) => y.size - x.size);
      const total = rows.reduce((s, r) => s + r.size, 0);
      console.log(
        `\nsnapshot difference by constructor (self size), ${kb(total / N)} KB/terminal:`,
      );
      for (const r of rows.slice(0, Number(values.top))) {
        console.log(
          `${kb(r.size / N).padStart(8)} KB ${(r.count / N).toFixed(1).padStart(7)} × ${r.k}`,
        );
      }
      if (!process.env.PW_KEEP_SNAPSHOTS) {
        rmSync(snap0);
        rmSync(snap1);
      }
    }
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
