import type { Logger } from 'pino';
import { Counter, Gauge, type Metric, type Registry } from 'prom-client';
import type { Subscription } from 'rxjs';
import { PanewardError } from '../errors.js';
import { describeZodError } from '../internal/zod-errors.js';
import {
  NotifyHeader,
  NotifyKind,
  type NotifyEvent,
  type NotifyHeader as Header,
} from '../schemas/notify.js';
import type { RecordDraft } from '../schemas/record.js';
import type { TerminalState } from '../schemas/terminal-state.js';
import type { SupervisorPort } from '../service/port.js';
import { eventOf, happeningsOf, type Happening } from './events.js';
import { MIN_NOTIFY_SECRET_LENGTH } from './signature.js';
import { execSink, parseCommand, webhookSink, type Delivery, type Sink } from './sinks.js';

/** What `serve --notify` / `--notify-exec` set up (docs/notify.md). */
export interface NotifyConfig {
  /** Webhook URLs (`--notify`, each one a sink). */
  webhooks: string[];
  /** Commands (`--notify-exec`, each one a sink), as given: parsed once here. */
  commands: string[];
  /** Events of one kind for one terminal within this window are coalesced; 0: none. */
  debounceMs?: number;
  /** Per webhook attempt, and for a command's whole run. */
  timeoutMs?: number;
  /** Webhook attempts after the first fails. */
  retries?: number;
  /** Wait before the first retry (doubling). */
  backoffMs?: number;
  /** Events waiting per sink at most; more are dropped (counted). */
  queueSize?: number;
  /** The key that signs every webhook POST (`--notify-secret-file`); none: unsigned. */
  secret?: string | null;
  /** Headers sent with every webhook POST (`--notify-header`). */
  headers?: Header[];
  /** Only these kinds are told, to every sink (`--notify-kinds`); absent: all of them. */
  kinds?: NotifyKind[];
}

export const NOTIFY_DEFAULTS = {
  debounceMs: 2000,
  timeoutMs: 5000,
  retries: 3,
  backoffMs: 500,
  queueSize: 100,
} as const;

/**
 * Refuses, before anything starts, what a notifier could not use: a command that names no
 * program, a header a POST cannot carry (or one given twice), a kind there is not, a short
 * secret, or a secret or headers with no webhook to send them to. Errors name the field.
 */
export function checkNotifyConfig(config: NotifyConfig): void {
  for (const cmd of config.commands) parseCommand(cmd);
  const fail = (message: string): never => {
    throw new PanewardError('invalid_input', message);
  };
  const seen = new Set<string>();
  for (const [i, h] of (config.headers ?? []).entries()) {
    const parsed = NotifyHeader.safeParse(`${h.name}: ${h.value}`);
    if (!parsed.success || parsed.data.value !== h.value) {
      fail(
        parsed.success
          ? `field \`notifyHeader.${i}\`: --notify-header value of ${h.name} has spaces around it`
          : describeZodError(parsed.error).replace('field `(line)`', `field \`notifyHeader.${i}\``),
      );
    }
    const lower = h.name.toLowerCase();
    if (seen.has(lower)) {
      fail(`field \`notifyHeader.${i}\`: --notify-header ${h.name} is given twice`);
    }
    seen.add(lower);
  }
  for (const [i, k] of (config.kinds ?? []).entries()) {
    if (!NotifyKind.safeParse(k).success) {
      fail(
        `field \`notifyKinds.${i}\`: --notify-kinds names ${JSON.stringify(k)}, which is not a kind; the kinds are ${NotifyKind.options.join(', ')}`,
      );
    }
  }
  if (config.secret != null && config.secret.length < MIN_NOTIFY_SECRET_LENGTH) {
    fail(
      `field \`notifySecretFile\`: the secret must be at least ${MIN_NOTIFY_SECRET_LENGTH} characters`,
    );
  }
  if (config.webhooks.length === 0) {
    if (config.secret != null)
      fail('field `notifySecretFile`: --notify-secret-file needs --notify URL');
    if ((config.headers ?? []).length > 0)
      fail('field `notifyHeader`: --notify-header needs --notify URL');
  }
}

/** Where the notifier writes `notify.delivery` records; absent (a fleet server): nowhere. */
export type AppendRecord = (draft: RecordDraft) => void;

interface Coalescing {
  timer: NodeJS.Timeout;
  pending: Happening | null;
  count: number;
}

interface SinkQueue {
  sink: Sink;
  queue: NotifyEvent[];
  running: boolean;
}

/**
 * Tells people what they care about: it reads the record stream of a supervisor (or of a fleet
 * view), turns records into notifications (`happeningsOf`), coalesces those of one kind for one
 * terminal within the debounce window (the first goes at once, the latest of the rest when the
 * window ends) and hands each to every sink's queue. Each sink delivers in order, one at a
 * time, off the event loop's critical path: a queue that is full drops the event (counted), so
 * a slow or dead receiver never holds up the supervisor. Outcomes go to the metrics
 * (`paneward_notify_*_total` by sink) and, where there is a journal, to `notify.delivery`
 * records.
 */
export class Notifier {
  readonly sinks: Sink[];
  private readonly queues: SinkQueue[];
  private readonly coalescing = new Map<string, Coalescing>();
  private readonly lastState = new Map<string, TerminalState>();
  private readonly stopping = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly sub: Subscription;
  private readonly o: Required<
    Omit<NotifyConfig, 'webhooks' | 'commands' | 'secret' | 'headers' | 'kinds'>
  >;
  /** The kinds told; null: all. */
  private readonly kinds: ReadonlySet<NotifyKind> | null;
  private readonly metrics = {
    delivered: new Counter({
      name: 'paneward_notify_delivered_total',
      help: 'Notifications a sink took (2xx answer, exit status 0), by sink.',
      labelNames: ['sink'],
      registers: [],
    }),
    failed: new Counter({
      name: 'paneward_notify_failed_total',
      help: 'Notifications that failed after their attempts, by sink.',
      labelNames: ['sink'],
      registers: [],
    }),
    dropped: new Counter({
      name: 'paneward_notify_dropped_total',
      help: "Notifications dropped because the sink's queue was full, by sink.",
      labelNames: ['sink'],
      registers: [],
    }),
    retried: new Counter({
      name: 'paneward_notify_retried_total',
      help: 'Webhook attempts made again after one failed, by sink.',
      labelNames: ['sink'],
      registers: [],
    }),
    coalesced: new Counter({
      name: 'paneward_notify_coalesced_total',
      help: 'Events merged into another of the same kind and terminal (debounce), by kind.',
      labelNames: ['kind'],
      registers: [],
    }),
    queued: new Gauge({
      name: 'paneward_notify_queued',
      help: 'Notifications waiting to be delivered, by sink.',
      labelNames: ['sink'],
      registers: [],
    }),
  };

  constructor(
    private readonly port: SupervisorPort,
    config: NotifyConfig,
    private readonly deps: { logger?: Logger; append?: AppendRecord } = {},
  ) {
    this.o = {
      debounceMs: config.debounceMs ?? NOTIFY_DEFAULTS.debounceMs,
      timeoutMs: config.timeoutMs ?? NOTIFY_DEFAULTS.timeoutMs,
      retries: config.retries ?? NOTIFY_DEFAULTS.retries,
      backoffMs: config.backoffMs ?? NOTIFY_DEFAULTS.backoffMs,
      queueSize: config.queueSize ?? NOTIFY_DEFAULTS.queueSize,
    };
    this.kinds = config.kinds ? new Set(config.kinds) : null;
    const hook = { ...this.o, secret: config.secret ?? null, headers: config.headers ?? [] };
    this.sinks = [
      ...config.webhooks.map((url, i) => webhookSink(url, i + 1, hook)),
      ...config.commands.map((cmd, i) => execSink(parseCommand(cmd), i + 1, this.o)),
    ];
    this.queues = this.sinks.map((sink) => ({ sink, queue: [], running: false }));
    // Every sink's counters exist from the start (at 0), so a rate over them is defined.
    for (const { sink } of this.queues) {
      const labels = { sink: sink.name };
      this.metrics.queued.set(labels, 0);
      for (const c of ['delivered', 'failed', 'dropped', 'retried'] as const) {
        this.metrics[c].inc(labels, 0);
      }
    }
    for (const id of port.ids()) this.remember(id);
    this.sub = port.journal.records$.subscribe((r) => {
      if (r.kind === 'notify.delivery') return;
      const happenings = happeningsOf(r);
      if (r.terminalId !== null) this.remember(r.terminalId);
      for (const h of happenings) this.happened(h);
    });
    // A fleet host that stops answering says so in no record: the fleet view tells of it.
    const changes = port.hostChanges$?.subscribe((c) => {
      for (const terminalId of c.terminalIds) {
        this.happened({
          kind: c.reachable ? 'back' : 'gone',
          terminalId,
          host: c.host,
          reason: c.reason,
        });
      }
    });
    if (changes) this.sub.add(changes);
  }

  /** Puts the notifier's metrics on a registry (the service's `/metrics`). */
  register(registry: Registry): void {
    for (const m of Object.values(this.metrics)) registry.registerMetric(m as Metric<string>);
  }

  /** Stops reading records and aborts deliveries under way (they are not waited for long). */
  async stop(): Promise<void> {
    this.sub.unsubscribe();
    for (const c of this.coalescing.values()) clearTimeout(c.timer);
    this.coalescing.clear();
    this.stopping.abort();
    for (const q of this.queues) q.queue.length = 0;
    await Promise.allSettled([...this.inFlight]);
  }

  /** Keeps the terminal's latest state, for the notification of a terminal that is gone. */
  private remember(id: string): void {
    try {
      this.lastState.set(id, this.port.get(id));
    } catch {
      /* detached: its last state is kept */
    }
  }

  private happened(h: Happening): void {
    if (this.stopping.signal.aborted) return;
    // A kind not asked for is neither sent nor held nor counted.
    if (this.kinds !== null && !this.kinds.has(h.kind)) return;
    const key = `${h.kind}\u0000${h.terminalId}`;
    const c = this.coalescing.get(key);
    if (c) {
      c.pending = h;
      c.count++;
      this.metrics.coalesced.inc({ kind: h.kind });
      return;
    }
    this.send(h, 1);
    if (this.o.debounceMs > 0) this.openWindow(key);
  }

  private openWindow(key: string): void {
    const c: Coalescing = {
      timer: setTimeout(() => {
        this.coalescing.delete(key);
        if (c.pending === null) return;
        // The latest of the events held back, counting them all; a new window starts.
        this.send(c.pending, c.count);
        this.openWindow(key);
      }, this.o.debounceMs),
      pending: null,
      count: 0,
    };
    c.timer.unref();
    this.coalescing.set(key, c);
  }

  private send(h: Happening, coalesced: number): void {
    this.remember(h.terminalId);
    const state = this.lastState.get(h.terminalId) ?? null;
    const event = eventOf(h, state, coalesced);
    if (h.kind === 'gone') this.lastState.delete(h.terminalId);
    for (const q of this.queues) {
      if (q.queue.length >= this.o.queueSize) {
        this.metrics.dropped.inc({ sink: q.sink.name });
        this.outcome(q.sink, event, { ok: false, attempts: 0, error: 'queue full' }, 'dropped');
        continue;
      }
      q.queue.push(event);
      this.metrics.queued.set({ sink: q.sink.name }, q.queue.length);
      if (!q.running) this.drain(q);
    }
  }

  private drain(q: SinkQueue): void {
    q.running = true;
    const run = (async () => {
      while (q.queue.length > 0 && !this.stopping.signal.aborted) {
        const event = q.queue.shift()!;
        this.metrics.queued.set({ sink: q.sink.name }, q.queue.length);
        let d: Delivery;
        try {
          d = await q.sink.deliver(event, this.stopping.signal, () =>
            this.metrics.retried.inc({ sink: q.sink.name }),
          );
        } catch (error) {
          d = { ok: false, attempts: 1, error: String(error).slice(0, 120) };
        }
        if (d.ok) this.metrics.delivered.inc({ sink: q.sink.name });
        else this.metrics.failed.inc({ sink: q.sink.name });
        this.outcome(q.sink, event, d, d.ok ? 'delivered' : 'failed');
      }
    })();
    this.inFlight.add(run);
    void run.finally(() => {
      q.running = false;
      this.inFlight.delete(run);
      this.metrics.queued.set({ sink: q.sink.name }, q.queue.length);
    });
  }

  private outcome(
    sink: Sink,
    event: NotifyEvent,
    d: Delivery,
    outcome: 'delivered' | 'failed' | 'dropped',
  ): void {
    const log = this.deps.logger;
    if (outcome === 'delivered') {
      log?.debug({ sink: sink.name, event: event.kind, terminalId: event.terminalId }, 'notified');
    } else {
      log?.warn(
        {
          sink: sink.name,
          to: sink.describe,
          event: event.kind,
          terminalId: event.terminalId,
          attempts: d.attempts,
          error: d.error,
        },
        `notification ${outcome}: ${event.kind} of ${event.terminalId} to ${sink.name} (${sink.describe})${d.error ? `: ${d.error}` : ''}`,
      );
    }
    if (!this.deps.append || this.stopping.signal.aborted) return;
    this.deps.append({
      kind: 'notify.delivery',
      // A fleet server's ids are `host/id`; it has no journal, so a record's id is a local one.
      terminalId: event.terminalId,
      sink: sink.name,
      event: event.kind,
      outcome,
      attempts: d.attempts,
      ...(event.turnId !== undefined ? { turnId: event.turnId } : {}),
      ...(d.error !== undefined ? { error: d.error } : {}),
    });
  }
}
