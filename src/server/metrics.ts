import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Subscription } from 'rxjs';
import type { SourceHealth } from '../observe/frame-source.js';
import type { SupervisorPort } from '../service/port.js';
import type { FleetHost } from '../schemas/operations/index.js';

/** The service's Prometheus metrics, on a registry of its own. */
export interface ServerMetrics {
  readonly registry: Registry;
  /** SSE clients connected now: call on open, call the result on close. */
  sseOpened(): () => void;
  stop(): void;
}

/**
 * Terminals by readiness, phase and availability (read at each scrape), chart transitions by
 * machine and state entered, sample and journal append latencies, SSE clients, the journal's
 * position, and Node's own process metrics.
 */
export function createMetrics(sup: SupervisorPort): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'paneward_process_' });
  const terminals = new Gauge({
    name: 'paneward_terminals',
    help: 'Attached terminals by readiness, turn phase and diagnostics availability.',
    labelNames: ['readiness', 'phase', 'availability'],
    registers: [registry],
    collect() {
      this.reset();
      for (const id of sup.ids()) {
        const s = sup.get(id);
        this.inc({
          readiness: s.readiness.status,
          phase: s.turn.phase,
          availability: s.diagnostics.availability,
        });
      }
    },
  });
  void terminals;
  const transitions = new Counter({
    name: 'paneward_transitions_total',
    help: 'Chart transitions, by machine and the state entered.',
    labelNames: ['machine', 'to'],
    registers: [registry],
  });
  const records = new Counter({
    name: 'paneward_records_total',
    help: 'Journal records acknowledged, by kind.',
    labelNames: ['kind'],
    registers: [registry],
  });
  const sample = new Histogram({
    name: 'paneward_sample_seconds',
    help: 'Time one sample of a pane took (tmux capture and process inspection).',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const append = new Histogram({
    name: 'paneward_journal_append_seconds',
    help: 'Time from a record appended to it acknowledged (written and fsynced).',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
    registers: [registry],
  });
  const sse = new Gauge({
    name: 'paneward_sse_clients',
    help: 'Server-Sent Events clients connected.',
    registers: [registry],
  });
  new Gauge({
    name: 'paneward_journal_seq',
    help: 'Last acknowledged record seq.',
    registers: [registry],
    collect() {
      this.set(sup.journal.durableSeq);
    },
  });
  // Damaged lines are skipped, never served: a count above zero says the files were damaged.
  new Gauge({
    name: 'paneward_journal_damaged_lines',
    help: 'Damaged journal lines skipped (each file and line counted once), since start.',
    registers: [registry],
    collect() {
      this.set(sup.journal.integrity?.damagedLines ?? 0);
    },
  });
  new Gauge({
    name: 'paneward_journal_duplicate_lines',
    help: 'Copies of journal records skipped (each record is delivered once), since start.',
    registers: [registry],
    collect() {
      this.set(sup.journal.integrity?.duplicateLines ?? 0);
    },
  });
  // The observer's own health: its overload is a fact about paneward, never about an agent.
  // A fleet server observes no pane and has none (each host's own /metrics does).
  const observer = (name: string, help: string, read: (h: SourceHealth) => number) => {
    const health = sup.observer?.bind(sup);
    if (!health) return;
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const h = health();
        if (h) this.set(read(h));
      },
    });
  };
  observer(
    'paneward_observer_lagging',
    'observer_lagging: 1 while paneward itself falls behind sampling its panes.',
    (h) => (h.lagging ? 1 : 0),
  );
  observer(
    'paneward_observer_lag_seconds',
    'How far the most overdue pane is past its due time.',
    (h) => h.lagMs / 1000,
  );
  observer(
    'paneward_observer_backlog',
    'Panes known to have changed and not captured yet.',
    (h) => h.backlog,
  );
  observer(
    'paneward_observer_paused_panes',
    'Panes whose output tmux holds back (flooding).',
    (h) => h.pausedPanes,
  );
  observer(
    'paneward_observer_restarts',
    'Times the tmux control client was started again.',
    (h) => h.restarts,
  );
  observer(
    'paneward_observer_degraded',
    '1 while quiet panes are looked at less often to keep up.',
    (h) => (h.degraded ? 1 : 0),
  );
  // A fleet server: each host's reachability, heartbeat age, records not yet in the stream, and
  // its terminals, labelled by host (its observer's own gauges are on the host's /metrics).
  const hostViews = sup.hostViews?.bind(sup);
  if (hostViews) {
    const perHost = (name: string, help: string, read: (h: FleetHost) => number | null) =>
      new Gauge({
        name,
        help,
        labelNames: ['host'],
        registers: [registry],
        collect() {
          this.reset();
          for (const h of hostViews()) {
            const v = read(h);
            if (v !== null) this.set({ host: h.id }, v);
          }
        },
      });
    perHost('paneward_fleet_host_reachable', "1 while the host's heartbeat is fresh.", (h) =>
      h.reachable ? 1 : 0,
    );
    perHost(
      'paneward_fleet_host_heartbeat_age_seconds',
      "Time since the host's latest heartbeat reached this server.",
      (h) => (h.lastHeartbeatAt === null ? null : (Date.now() - h.lastHeartbeatAt) / 1000),
    );
    perHost(
      'paneward_fleet_host_unpublished_records',
      'Records the host journaled and has not yet published to the stream (its last heartbeat).',
      (h) =>
        h.durableSeq === null || h.publishedSeq === null
          ? null
          : Math.max(0, h.durableSeq - h.publishedSeq),
    );
    perHost(
      'paneward_fleet_host_observer_lagging',
      "observer_lagging of the host's own supervisor, from its heartbeat (absent while unreachable).",
      (h) => (h.observer ? (h.observer.lagging ? 1 : 0) : null),
    );
    new Gauge({
      name: 'paneward_fleet_host_terminals',
      help: 'Terminals of each host by readiness.',
      labelNames: ['host', 'readiness'],
      registers: [registry],
      collect() {
        this.reset();
        for (const id of sup.ids()) {
          const host = id.slice(0, id.indexOf('/'));
          this.inc({ host, readiness: sup.get(id).readiness.status });
        }
      },
    });
  }
  const subs: Subscription[] = [
    sup.journal.records$.subscribe((r) => {
      records.inc({ kind: r.kind });
      if (r.kind === 'state') {
        for (const t of r.transitions) transitions.inc({ machine: t.machine, to: t.to });
      }
    }),
    sup.telemetry$.subscribe((t) => (t.kind === 'sample' ? sample : append).observe(t.ms / 1000)),
  ];
  return {
    registry,
    sseOpened() {
      sse.inc();
      let open = true;
      return () => {
        if (open) sse.dec();
        open = false;
      };
    },
    stop() {
      for (const s of subs) s.unsubscribe();
    },
  };
}
