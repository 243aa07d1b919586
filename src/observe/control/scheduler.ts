/**
 * The control-mode source's scheduling, as pure functions: from the watched panes and the time
 * to the next batch, and from how long a batch took to the next budget. Nothing here reads a
 * clock or tmux; the source passes both in.
 */

/** What the scheduler reads of a watched pane. */
export interface Schedulable {
  readonly paneId: string | null;
  /** Output (or a pause, or an activity change) since the last capture. */
  readonly dirty: boolean;
  /** `performance.now()` when it became dirty. */
  readonly dirtySince: number;
  /** A lifecycle event or a first sample: captured at once. */
  readonly urgent: boolean;
  /** A capture of it is in flight. */
  readonly inFlight: boolean;
  /** `performance.now()` of its last capture, `-Infinity` before the first. */
  readonly lastCaptureAt: number;
}

export interface TickInput {
  /** `performance.now()` of the tick. */
  now: number;
  /** This tick also re-captures quiet panes (once per interval). */
  chores: boolean;
  intervalMs: number;
  tickMs: number;
  recaptureMs: number;
  /** How many panes one batch may take (`Infinity` when the source keeps up). */
  budget: number;
  /** Panes paused for flooding: captured every tick whether or not they printed. */
  paused: ReadonlySet<string>;
}

/** The next batch: every pane in it, and which of them are quiet panes' periodic re-captures. */
export interface TickPlan<W> {
  chosen: W[];
  refreshed: W[];
}

/**
 * Which panes this tick captures. A pane that changed is captured at most once per interval, on
 * the tick nearest its turn; urgent ones first, then the longest waiting; urgent ones always
 * (whatever the budget). On a chores tick quiet panes not captured for `recaptureMs` are added,
 * the oldest first, a share per tick spread over the period, and only in what room the budget
 * leaves: under overload they are what is shed.
 */
export function planTick<W extends Schedulable>(
  watches: Iterable<W>,
  input: TickInput,
): TickPlan<W> {
  const { now, chores, intervalMs, tickMs, recaptureMs, budget, paused } = input;
  const dirty: W[] = [];
  const due: W[] = [];
  let panes = 0;
  const spacing = intervalMs - tickMs / 2;
  for (const w of watches) {
    panes += 1;
    if (w.inFlight) continue;
    const changed = w.dirty || (w.paneId !== null && paused.has(w.paneId));
    if (w.urgent || (changed && now - w.lastCaptureAt >= spacing)) dirty.push(w);
    else if (chores && !changed && now - w.lastCaptureAt >= recaptureMs) due.push(w);
  }
  dirty.sort((a, b) => Number(b.urgent) - Number(a.urgent) || a.dirtySince - b.dirtySince);
  due.sort((a, b) => a.lastCaptureAt - b.lastCaptureAt);
  const refreshShare = Math.ceil((panes * intervalMs) / recaptureMs) * 2;
  const chosen = dirty.slice(0, Math.max(budget, dirty.filter((w) => w.urgent).length));
  const room = Math.max(0, Math.min(budget - chosen.length, refreshShare));
  const refreshed = due.slice(0, room);
  return { chosen: [...chosen, ...refreshed], refreshed };
}

/** The urgent panes not in flight: captured at once, in one batch. */
export function urgentBatch<W extends Schedulable>(watches: Iterable<W>): W[] {
  return [...watches].filter((w) => w.urgent && !w.inFlight);
}

export interface BudgetInput {
  budget: number;
  /** Panes in the batch that just ran. */
  batch: number;
  /** How long it took, ms. */
  tookMs: number;
  /** How late its tick started, ms. */
  lateMs: number;
  intervalMs: number;
  /** Panes watched. */
  panes: number;
}

/**
 * The budget after a batch: a batch is kept within about half an interval (never below 8
 * panes); when batches take less than a quarter of an interval it grows by half, back to
 * unlimited once it would cover every pane.
 */
export function nextBudget(input: BudgetInput): number {
  const { budget, batch, tookMs, lateMs, intervalMs, panes } = input;
  const target = intervalMs * 0.5;
  if (tookMs > target || lateMs > intervalMs) {
    return Math.max(8, Math.floor((batch * target) / Math.max(tookMs, lateMs, 1)));
  }
  if (tookMs < target / 2 && budget !== Infinity) {
    return budget * 1.5 >= panes ? Infinity : Math.ceil(budget * 1.5);
  }
  return budget;
}
