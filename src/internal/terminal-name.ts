/** The rule every terminal id follows: a letter or digit, then letters, digits, `.`, `_` or `-`. */
const MAX = 64;

/**
 * The id a discovered pane's terminal gets: its tmux session and window names, `work-claude`
 * for window `claude` of session `work`. Characters an id cannot hold become `-`; the result
 * starts with a letter or digit and is at most 64 long (`pane` when nothing usable is left).
 */
export function terminalNameFor(session: string, window: string): string {
  const cleaned = `${session}-${window}`
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .replace(/[-.]+$/, '');
  return cleaned.slice(0, MAX).replace(/[-.]+$/, '') || 'pane';
}

/** `name`, or `name-2`, `name-3`, … : the first that is not taken (kept within 64 characters). */
export function uniqueName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  for (let n = 2; ; n += 1) {
    const suffix = `-${n}`;
    const candidate = `${name.slice(0, MAX - suffix.length)}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}
