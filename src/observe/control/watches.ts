import { performance } from 'node:perf_hooks';
import type { Subscriber } from 'rxjs';
import type { TransportOutcome } from '../../schemas/probe.js';
import type { PaneProbe, PaneSampling, SampleCause } from '../types.js';
import type { LastSample } from './batch.js';

/** One subscription to one pane's samples, and what the source knows about that pane. */
export interface Watch {
  readonly sampling: PaneSampling;
  readonly subscriber: Subscriber<PaneProbe>;
  paneId: string | null;
  windowId: string | null;
  sessionId: string | null;
  /** Output (or a pause, or an activity change) since the last capture. */
  dirty: boolean;
  /** `performance.now()` when it became dirty. */
  dirtySince: number;
  /** The client's event sequence number of the newest mark; a reply after it covers it. */
  dirtySeq: number;
  /** A lifecycle event or a first sample: captured at once, outside the tick. */
  urgent: boolean;
  cause: SampleCause;
  inFlight: boolean;
  lastCaptureAt: number;
  lastTransport: TransportOutcome | null;
  last: LastSample | null;
  /** The pane's fingerprint at the last check, and when that check ran. */
  fingerprint: string | null;
  /** Pids of the pane's process tree at its last sample. */
  tree: number[];
}

/** A new watch: urgent, so its first sample is taken at once. */
export function newWatch(sampling: PaneSampling, subscriber: Subscriber<PaneProbe>): Watch {
  return {
    sampling,
    subscriber,
    paneId: sampling.target.startsWith('%') ? sampling.target : null,
    windowId: null,
    sessionId: null,
    dirty: false,
    dirtySince: 0,
    dirtySeq: 0,
    urgent: true,
    cause: 'first',
    inFlight: false,
    lastCaptureAt: -Infinity,
    lastTransport: null,
    last: null,
    fingerprint: null,
    tree: [],
  };
}

/** The pane changed (client event `seq`): captured at the tick nearest its turn. */
export function markDirty(w: Watch, cause: SampleCause, seq: number): void {
  if (!w.dirty) {
    w.dirty = true;
    w.dirtySince = performance.now();
    w.cause = cause;
  }
  w.dirtySeq = seq;
}

/** A lifecycle event: captured at once, outside the tick. */
export function markUrgent(w: Watch, cause: SampleCause): void {
  if (!w.urgent) w.cause = cause;
  w.urgent = true;
}

/** Where each pane, window and pid under watch is: what routes tmux's notifications. */
export class WatchIndex {
  readonly all = new Set<Watch>();
  // Lists, not sets: almost every key has one watch, and a one-entry array takes a third of a
  // one-entry set's memory (three keys or more per pane).
  readonly #byPane = new Map<string, Watch[]>();
  readonly #byWindow = new Map<string, Watch[]>();
  readonly #byPid = new Map<number, Watch[]>();

  get size(): number {
    return this.all.size;
  }

  has(w: Watch): boolean {
    return this.all.has(w);
  }

  add(w: Watch): void {
    this.all.add(w);
    if (w.paneId) add(this.#byPane, w.paneId, w);
  }

  forget(w: Watch): void {
    this.all.delete(w);
    if (w.paneId) remove(this.#byPane, w.paneId, w);
    if (w.windowId) remove(this.#byWindow, w.windowId, w);
    this.setTree(w, []);
  }

  pane(paneId: string): readonly Watch[] | undefined {
    return this.#byPane.get(paneId);
  }

  window(windowId: string): readonly Watch[] | undefined {
    return this.#byWindow.get(windowId);
  }

  pid(pid: number): readonly Watch[] | undefined {
    return this.#byPid.get(pid);
  }

  /** Where a sample found the pane; true when its pane id is new to this watch. */
  locate(w: Watch, at: { paneId: string; windowId: string; sessionId: string }): boolean {
    let moved = false;
    if (w.paneId !== at.paneId) {
      if (w.paneId) remove(this.#byPane, w.paneId, w);
      w.paneId = at.paneId;
      add(this.#byPane, w.paneId, w);
      moved = true;
    }
    if (w.windowId !== at.windowId) {
      if (w.windowId) remove(this.#byWindow, w.windowId, w);
      w.windowId = at.windowId;
      add(this.#byWindow, w.windowId, w);
    }
    w.sessionId = at.sessionId;
    return moved;
  }

  setTree(w: Watch, tree: number[]): void {
    for (const pid of w.tree) remove(this.#byPid, pid, w);
    // A copy of its own size: a list grown by pushes holds room for 17 pids.
    w.tree = tree.slice();
    for (const pid of tree) add(this.#byPid, pid, w);
  }

  /** Whether some watch does not know its pane id yet (a target by name not yet sampled). */
  anyUnresolved(): boolean {
    for (const w of this.all) if (w.paneId === null) return true;
    return false;
  }
}

function add<K>(map: Map<K, Watch[]>, key: K, w: Watch): void {
  const list = map.get(key);
  if (!list) map.set(key, [w]);
  else if (!list.includes(w)) list.push(w);
}

function remove<K>(map: Map<K, Watch[]>, key: K, w: Watch): void {
  const list = map.get(key);
  const i = list ? list.indexOf(w) : -1;
  if (i < 0) return;
  if (list!.length === 1) map.delete(key);
  else list!.splice(i, 1);
}
