// Words and colours for states: the same everywhere on the page (see the legend).

/** When the last turn's result of each terminal was seen (its page opened), in this browser. */
export const seen = JSON.parse(localStorage.getItem('paneward.seen') ?? '{}');

export const hrefOf = (id) => `#/t/${encodeURIComponent(id)}`;
export const byId = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

export const now = () => Date.now() / 1000;

export function age(seconds) {
  if (!Number.isFinite(seconds) || seconds < 0) return '';
  if (seconds < 60) return `${Math.floor(seconds)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86400)} d`;
}

/** The colour family of a value (see the legend): ready, working, blocked, failed, unknown. */
export function tone(value) {
  if (value === 'ready' || value === 'success') return 'ready';
  if (value === 'waiting' || value === 'active' || value === 'working') return 'working';
  if (value === 'blocked' || value === 'interrupted') return 'blocked';
  if (value === 'failed' || value === 'stalled' || value === 'known_failure') return 'failed';
  return 'unknown';
}

export function unread(v) {
  return (
    v.lastTurn.result !== 'none' &&
    v.lastTurn.at !== null &&
    v.lastTurn.at > (seen[v.terminalId] ?? 0)
  );
}

/** The pane is gone (tmux cannot find it): its own state, shown as such and counted apart. */
export function paneGone(v) {
  return v.diagnostics.availability === 'unavailable';
}

/**
 * What needs a person: a prompt waiting, a failure, a stall, a blocked session. A pane that is
 * gone needs nobody: nothing can be done in it (`paneward detach` forgets it).
 */
export function needsPerson(v) {
  if (paneGone(v)) return false;
  return (
    ['blocked', 'failed', 'stalled'].includes(v.readiness.status) || v.session.status === 'blocked'
  );
}

/** "idle 14 min", "working 3 min", "blocked 20 s". */
export function howLong(v) {
  const t = now();
  if (v.turn.phase === 'active' && v.turn.since !== null) return `working ${age(t - v.turn.since)}`;
  if (v.readiness.since === null) return '';
  const word = v.readiness.status === 'ready' ? 'idle' : v.readiness.status;
  return `${word} ${age(t - v.readiness.since)}`;
}

export function watchdogLeft(v) {
  const w = v.watchdog;
  if (w.state === 'armed' && w.sessionStartedAt !== null) {
    return `${age(w.budgetSeconds - (now() - w.sessionStartedAt))} left`;
  }
  return w.state === 'disabled' ? '' : w.state;
}

/** The state of a terminal in one sentence a person reads. */
export function stateInWords(v) {
  const d = v.diagnostics.availability;
  if (d === 'unavailable') return 'The pane is gone';
  if (d === 'tui_down') return 'The agent is not running in the pane';
  if (d === 'error') return 'The pane cannot be read';
  if (v.session.status === 'blocked') return 'The session is blocked: resume it to go on';
  if (v.session.status === 'finished') return 'The session has finished';
  const turn = v.turn.current ? ` on ${v.turn.current.id}` : '';
  switch (v.readiness.status) {
    case 'ready':
      return v.turn.phase === 'active' ? `Working${turn}` : 'Ready for a prompt';
    case 'waiting':
      return `Working${turn}`;
    case 'blocked':
      return 'Blocked: it waits for a person to answer a prompt';
    case 'failed':
      return 'Failed: the agent reports an error';
    case 'stalled':
      return 'Stalled: nothing has changed for too long';
    default:
      return 'Unknown: paneward does not recognise this screen, so it claims nothing';
  }
}

/** Why: the reasons the API gives, each as it gives it. */
export function reasons(v) {
  const out = [];
  const t = now();
  out.push(
    `readiness ${v.readiness.status}${v.readiness.since !== null ? ` for ${age(t - v.readiness.since)}` : ''}, turn phase ${v.turn.phase}`,
  );
  if (v.surface.blockedPrompt) out.push(`the screen shows a prompt: ${v.surface.blockedPrompt}`);
  if (v.surface.activeReasons.length > 0)
    out.push(`busy because: ${v.surface.activeReasons.join(', ')}`);
  if (v.session.stopReasonCode) out.push(`session stopped: ${v.session.stopReasonCode}`);
  if (v.diagnostics.error) out.push(`probe: ${v.diagnostics.error.message}`);
  if (v.completion)
    out.push(`turn ${v.completion.turnId}: completion ${v.completion.status.replace('_', ' ')}`);
  if (v.lastTurn.result !== 'none')
    out.push(
      `last turn ${v.lastTurn.turnId}: ${v.lastTurn.result}${v.lastTurn.at ? `, ${age(t - v.lastTurn.at)} ago` : ''}`,
    );
  const send = v.operations.sendInput;
  out.push(
    send.allowed === 'yes' ? `a prompt can be sent: ${send.reason}` : `not now: ${send.reason}`,
  );
  return out;
}
