/**
 * Upper bounds of the numbers paneward takes from outside (requests, options, the journal of
 * an older version), so that none can overflow a timer or a date.
 */

/** A session wall-clock budget is at most 30 days. */
export const MAX_BUDGET_SECONDS = 30 * 24 * 3600;

/** What `--session-budget` says when it is given more. */
export const BUDGET_TOO_LONG = `--session-budget must be at most ${MAX_BUDGET_SECONDS} seconds (30 days)`;

/** A budget as the watchdog may arm it: a value out of range (from an older journal) is clamped. */
export function clampBudgetSeconds(seconds: number): number {
  if (!Number.isFinite(seconds)) return seconds > 0 ? MAX_BUDGET_SECONDS : 0;
  return Math.min(Math.max(0, seconds), MAX_BUDGET_SECONDS);
}
