import type { TransportOutcome } from '../../schemas/probe.js';

// What tells a pane's screen changed when it printed nothing, and which windows outside the
// attached session (which send no `%output`) changed.

// The first fields are structural; the cursor and history move with output too.
export const FINGERPRINT_FORMAT = [
  '#{pane_id}',
  '#{window_id}',
  '#{pane_pid}',
  '#{pane_dead}',
  '#{pane_width}x#{pane_height}',
  '#{pane_in_mode}',
  '#{alternate_on}',
  '#{cursor_x},#{cursor_y}',
  '#{history_size}',
].join('\t');
const STRUCTURAL_FIELDS = 7;

export const ACTIVITY_FORMAT = '#{window_id}\t#{window_activity}\t#{window_layout}';

function structural(fingerprint: string): string {
  return fingerprint.split('\t', STRUCTURAL_FIELDS).join('\t');
}

/** What the fingerprint check reads and keeps of a watched pane. */
export interface Fingerprinted {
  readonly paneId: string | null;
  readonly lastCaptureAt: number;
  readonly lastTransport: TransportOutcome | null;
  /** The pane's fingerprint at the last check (updated here). */
  fingerprint: string | null;
}

/**
 * Reads one `list-panes -a` listing (in {@link FINGERPRINT_FORMAT}) against the watched panes and
 * records each one's fingerprint. `changed`: a pane whose fingerprint moved; one captured since
 * the previous check (`previousAt`) is compared on its structural fields only, its cursor moved
 * with the output that was captured. `missing`: a pane last seen up that is not listed.
 */
export function fingerprintChanges<W extends Fingerprinted>(
  listing: string,
  all: Iterable<W>,
  byPane: (paneId: string) => Iterable<W> | undefined,
  previousAt: number,
): { changed: W[]; missing: W[] } {
  const changed: W[] = [];
  const listed = new Set<string>();
  for (const line of listing.split('\n')) {
    const paneId = line.slice(0, line.indexOf('\t'));
    listed.add(paneId);
    for (const w of byPane(paneId) ?? []) {
      const before = w.fingerprint;
      w.fingerprint = line;
      if (before === null || before === line) continue;
      const capturedSince = w.lastCaptureAt >= previousAt;
      if (capturedSince && structural(before) === structural(line)) continue;
      changed.push(w);
    }
  }
  const missing: W[] = [];
  for (const w of all) {
    if (w.paneId !== null && w.lastTransport === 'tmux_up' && !listed.has(w.paneId)) {
      missing.push(w);
    }
  }
  return { changed, missing };
}

/** What the activity check reads of a watched pane. */
export interface Located {
  readonly sessionId: string | null;
}

/**
 * Reads one `list-windows -a` listing (in {@link ACTIVITY_FORMAT}): the watched panes outside
 * `attachedSession` whose window changed (its activity time or layout differs from `seen`, or
 * it was active in the second `sinceSeconds` of the previous check or later, so it may have
 * changed after that check). Updates `seen`.
 */
export function activityChanges<W extends Located>(
  listing: string,
  byWindow: (windowId: string) => Iterable<W> | undefined,
  seen: Map<string, string>,
  sinceSeconds: number,
  attachedSession: string | null,
): W[] {
  const out: W[] = [];
  for (const line of listing.split('\n')) {
    const [windowId = '', activity = '', layout = ''] = line.split('\t');
    const watches = byWindow(windowId);
    if (!watches) continue;
    const key = `${activity} ${layout}`;
    const changed = seen.get(windowId) !== key || Number(activity) >= sinceSeconds;
    seen.set(windowId, key);
    if (!changed) continue;
    for (const w of watches) if (w.sessionId !== attachedSession) out.push(w);
  }
  return out;
}
