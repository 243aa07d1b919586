/**
 * One interval timer per period for every observer checking its pane's process at that
 * period, not one per observer (a Node timer and its closure are a terminal's few hundred
 * bytes, and a thousand timers wake the process a thousand times). Returns what stops the
 * checks of `observer`.
 */
export function everyMs(ms: number, observer: { checkProcess(): Promise<void> }): () => void {
  let group = processChecks.get(ms);
  if (!group) {
    const members = new Set<{ checkProcess(): Promise<void> }>();
    const timer = setInterval(() => {
      for (const m of members) void m.checkProcess();
    }, ms);
    timer.unref();
    group = { members, timer };
    processChecks.set(ms, group);
  }
  group.members.add(observer);
  return () => {
    const g = processChecks.get(ms);
    if (!g?.members.delete(observer) || g.members.size > 0) return;
    clearInterval(g.timer);
    processChecks.delete(ms);
  };
}

const processChecks = new Map<
  number,
  { members: Set<{ checkProcess(): Promise<void> }>; timer: NodeJS.Timeout }
>();
