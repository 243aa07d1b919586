/**
 * Whether a tmux server of this `#{version}` can turn a pane's output off for a client
 * (`refresh-client -A %N:off`) without risk. Before 3.7, turning off a pane whose output was
 * still queued for the client left the queued blocks pointing at data tmux later drained, and
 * the server read out of bounds when it wrote them (tmux commit cae229cad, "Discard queued data
 * and clear offsets when turning pane off"): the whole server, every pane with it, crashed with
 * SIGSEGV. Seen here on 3.3a when the supervisor read its client slowly. Development builds
 * (`next-3.8`, `master`) count as new.
 */
export function canTurnOutputOff(version: string): boolean {
  if (/^(next-|master)/.test(version)) return true;
  const m = /^(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > 3 || (major === 3 && minor >= 7);
}

/** Panes that sent more than `threshold` bytes since the last look and are not paused yet. */
export function floodingPanes(
  bytes: ReadonlyMap<string, number>,
  paused: ReadonlySet<string>,
  threshold: number,
): string[] {
  const out: string[] = [];
  for (const [paneId, n] of bytes) if (n > threshold && !paused.has(paneId)) out.push(paneId);
  return out;
}
