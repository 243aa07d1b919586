import { performance } from 'node:perf_hooks';
import { isPanewardError } from '../../errors.js';
import type { ControlClient } from '../control-client.js';
import { commandLine, type ControlReply } from '../control-protocol.js';
import { decideProcess } from '../probe-outcome.js';
import { ProcessWatcher } from '../process-watch.js';
import type { PaneProbe } from '../types.js';
import {
  batchLines,
  hungSample,
  markRepeat,
  readAnswer,
  serverMissingSample,
  type BatchEntry,
} from './batch.js';
import type { SourceContext } from './context.js';
import { markDirty, type Watch } from './watches.js';

type ProcessChanges = {
  born: ReadonlyArray<{ pid: number; ppid: number }>;
  died: readonly number[];
} | null;

/**
 * Runs batches: sends one batch of command lines for the chosen panes, reads their processes
 * from one /proc table shared by every pane, and emits one sample per pane that was answered
 * (marked `unchanged` when it repeats the previous one).
 */
export class Capturer {
  /** Samples emitted since the source started. */
  samples = 0;
  readonly #ctx: SourceContext;
  readonly #proc: ProcessWatcher | null;
  readonly #procError: string | null;

  constructor(ctx: SourceContext, procRoot: string | undefined) {
    this.#ctx = ctx;
    let proc: ProcessWatcher | null = null;
    let procError: string | null = null;
    try {
      proc = new ProcessWatcher({ procRoot });
    } catch (error) {
      procError = error instanceof Error ? error.message : String(error);
    }
    this.#proc = proc;
    this.#procError = procError;
  }

  /** Captures `watches` in one batch and emits a sample for each that was answered. */
  async capture(watches: Watch[]): Promise<void> {
    const ctx = this.#ctx;
    const client = ctx.client();
    if (!client || watches.length === 0) return;
    const { lines, plan } = batchLines(watches, ctx.flow.paused);
    for (const w of watches) w.inFlight = true;
    const sentAt = performance.now();
    const procReady = this.refreshProcesses();
    const replies = client.commands(lines, {
      timeoutMs: ctx.o.commandTimeoutMs,
      signal: ctx.signal,
    });
    const settled = await Promise.allSettled(replies);
    this.onProcessChanges(await procReady);
    for (const entry of plan) await this.#answered(entry, settled, client, sentAt);
    if ([...ctx.watches.all].some((w) => w.urgent && !w.inFlight)) ctx.queueUrgent();
  }

  async #answered(
    { w, first, resume, paneId, cause }: BatchEntry<Watch>,
    settled: PromiseSettledResult<ControlReply>[],
    client: ControlClient,
    sentAt: number,
  ): Promise<void> {
    w.inFlight = false;
    const resumed = resume >= 0 ? settled[resume] : undefined;
    if (paneId && resumed?.status === 'fulfilled' && resumed.value.ok) {
      this.#ctx.flow.paused.delete(paneId);
    }
    if (!this.#ctx.watches.has(w)) return;
    const facts = settled[first]!;
    const screen = settled[first + 1]!;
    const ansi = w.sampling.includeAnsi ? settled[first + 2] : undefined;
    if (screen.status === 'rejected' || facts.status === 'rejected') {
      const error =
        screen.status === 'rejected' ? screen.reason : (facts as PromiseRejectedResult).reason;
      this.unanswered(w, client, error);
      return;
    }
    if (w.dirty && w.dirtySeq < screen.value.seq) w.dirty = false;
    w.urgent = false;
    w.lastCaptureAt = sentAt;
    this.#emit(w, await this.#probe(w, facts.value, screen.value, ansi, sentAt, cause));
  }

  /**
   * A reply that did not come. If tmux has been silent for the whole timeout it is hung: the
   * client is restarted and the pane told (`probe_error`, tmux_timeout). Otherwise the source is
   * behind or restarting: the pane stays due and gets no sample.
   */
  unanswered(w: Watch, client: ControlClient, error: unknown): void {
    const code = isPanewardError(error) ? error.code : 'internal';
    if (code !== 'tmux_timeout') return;
    // The client times out on silence, read after this process's own I/O; a stall of this
    // process that ended just now is not tmux's silence.
    const silentMs = performance.now() - Math.max(client.lastReadAt, this.#ctx.lastLateAt());
    if (silentMs < this.#ctx.o.commandTimeoutMs) return;
    this.#emit(w, hungSample(silentMs, w.cause));
    void client.close();
  }

  /** Tells a pane there is no tmux server (once, until it is seen again). */
  reportMissing(w: Watch, message: string): void {
    if (w.lastTransport === 'tmux_missing') return;
    w.urgent = false;
    w.dirty = false;
    this.#emit(w, serverMissingSample(message));
  }

  refreshProcesses(): Promise<ProcessChanges> {
    if (!this.#proc) return Promise.resolve(null);
    // One listing per tick is enough: a table refreshed within half an interval is reused.
    if (performance.now() - this.#proc.refreshedAt < this.#ctx.o.intervalMs / 2) {
      return Promise.resolve(null);
    }
    return this.#proc.refresh().catch(() => null);
  }

  /** Panes whose process tree lost or gained a process are looked at again at the next tick. */
  onProcessChanges(changes: ProcessChanges): void {
    if (!changes) return;
    const seq = this.#ctx.client()?.currentSeq ?? 0;
    const watches = this.#ctx.watches;
    for (const pid of changes.died) {
      for (const w of watches.pid(pid) ?? []) markDirty(w, 'process', seq);
    }
    for (const { ppid } of changes.born) {
      for (const w of watches.pid(ppid) ?? []) markDirty(w, 'process', seq);
    }
  }

  async #probe(
    w: Watch,
    factsReply: ControlReply,
    screenReply: ControlReply,
    ansiResult: PromiseSettledResult<ControlReply> | undefined,
    sentAt: number,
    cause: PaneProbe['cause'],
  ): Promise<PaneProbe> {
    const ctx = this.#ctx;
    const base = {
      tookMs: Math.round((performance.now() - sentAt) * 1000) / 1000,
      sampledAt: Math.round(performance.timeOrigin + sentAt),
      cause,
    };
    const answer = readAnswer(factsReply, screenReply, ansiResult, base);
    if (answer.kind === 'gone') ctx.watches.setTree(w, []);
    if (answer.kind !== 'answered') return answer.probe;
    const { facts, capture } = answer;
    const id = facts.pane.id;
    // A pane whose output was turned off while nobody watched it: on again.
    const moved = ctx.watches.locate(w, { paneId: id, ...facts });
    const client = ctx.client();
    if (moved && ctx.flow.off.delete(id) && client) {
      ctx.fireAndForget(client, commandLine('refresh-client', ['-A', `${id}:on`]));
    }
    const proc = this.#proc;
    const verdict = await decideProcess(facts.pane, w.sampling.processNames, (pid, names) => {
      if (!proc) throw new Error(this.#procError ?? 'no /proc');
      return proc.match(pid, names);
    });
    if (verdict.tree) ctx.watches.setTree(w, verdict.tree);
    const { process, pids, error } = verdict;
    return { ...base, transport: 'tmux_up', process, capture, pane: facts.pane, pids, error };
  }

  /** Emits a sample, marking it `unchanged` when it equals the previous one of this watch. */
  #emit(w: Watch, probe: PaneProbe): void {
    const { out, last } = markRepeat(probe, w.last, w.lastTransport);
    w.last = last;
    w.lastTransport = probe.transport;
    this.samples += 1;
    w.subscriber.next(out);
  }
}
