import { performance } from 'node:perf_hooks';
import type { ControlClient } from '../control-client.js';
import { commandLine, type ControlReply } from '../control-protocol.js';
import type { Capturer } from './capture.js';
import type { SourceContext } from './context.js';
import {
  ACTIVITY_FORMAT,
  FINGERPRINT_FORMAT,
  activityChanges,
  fingerprintChanges,
} from './fingerprint.js';
import { floodingPanes } from './flow.js';
import { markDirty, markUrgent } from './watches.js';

/**
 * What the source does once per interval besides capturing: pauses floods, refreshes the
 * process table, checks windows outside the attached session and, every `refreshMs`, the
 * fingerprint of every pane. Each marks the panes it finds changed; the tick captures them.
 */
export class Chores {
  readonly #ctx: SourceContext;
  readonly #capturer: Capturer;
  #activityCheckedAt = 0;
  #fingerprintsAt = performance.now();

  constructor(ctx: SourceContext, capturer: Capturer) {
    this.#ctx = ctx;
    this.#capturer = capturer;
  }

  async run(client: ControlClient, now: number): Promise<void> {
    const { flow, o } = this.#ctx;
    for (const paneId of floodingPanes(flow.bytes, flow.paused, o.floodBytesPerTick)) {
      flow.paused.add(paneId);
      flow.pauses += 1;
      this.#ctx.fireAndForget(client, commandLine('refresh-client', ['-A', `${paneId}:pause`]));
    }
    flow.bytes.clear();
    // One /proc listing per interval: a process that ended under a quiet pane (no output,
    // no notification) makes the pane due.
    const procReady = this.#capturer.refreshProcesses();
    if (this.#hasOffSession()) await this.#checkActivity(client);
    if (now - this.#fingerprintsAt >= o.refreshMs) await this.#checkPanes(client, now);
    this.#capturer.onProcessChanges(await procReady);
  }

  #hasOffSession(): boolean {
    const attached = this.#ctx.flow.attachedSession;
    if (attached === null) return false;
    for (const w of this.#ctx.watches.all) {
      if (w.sessionId !== null && w.sessionId !== attached) return true;
    }
    return false;
  }

  /**
   * Windows outside the attached session send no `%output`: their activity time (seconds) and
   * layout tell which changed.
   */
  async #checkActivity(client: ControlClient): Promise<void> {
    let reply: ControlReply;
    try {
      reply = await this.#ctx.command(
        client,
        commandLine('list-windows', ['-a', '-F', ACTIVITY_FORMAT]),
      );
    } catch {
      return;
    }
    if (!reply.ok) return;
    const since = Math.floor(this.#activityCheckedAt / 1000);
    this.#activityCheckedAt = Date.now();
    const seq = client.currentSeq;
    const { watches, flow } = this.#ctx;
    const changed = activityChanges(
      reply.body,
      (id) => watches.window(id),
      flow.activity,
      since,
      flow.attachedSession,
    );
    for (const w of changed) markDirty(w, 'output', seq);
  }

  /** One `list-panes -a`: a watched pane whose fingerprint changed is captured. */
  async #checkPanes(client: ControlClient, now: number): Promise<void> {
    const previousAt = this.#fingerprintsAt;
    this.#fingerprintsAt = now;
    const watches = this.#ctx.watches;
    let reply: ControlReply;
    try {
      reply = await this.#ctx.command(
        client,
        commandLine('list-panes', ['-a', '-F', FINGERPRINT_FORMAT]),
      );
    } catch (error) {
      // tmux silent for the whole timeout (stopped, hung): every pane is told, as a capture
      // that went unanswered would be; panes that print nothing would otherwise never ask.
      for (const w of watches.all) this.#capturer.unanswered(w, client, error);
      return;
    }
    if (!reply.ok) return;
    const seq = client.currentSeq;
    const { changed, missing } = fingerprintChanges(
      reply.body,
      watches.all,
      (id) => watches.pane(id),
      previousAt,
    );
    for (const w of changed) markDirty(w, 'lifecycle', seq);
    for (const w of missing) markUrgent(w, 'lifecycle');
    this.#ctx.queueUrgent();
  }
}
