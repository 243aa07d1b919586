/* global Notification */
// Browser notifications for what a person cares about (docs/notify.md): a question, a turn's
// end, a stall, the CLI's exit, a gone pane, and on a fleet server a host that stops answering or
// answers again. Read from the records the page already follows (and a fleet's hosts, from its
// health), by the same rules as `serve --notify`; off until the person asks for them with the
// header's button (the browser's permission, remembered by the browser; the choice, by this page).

import { $, views } from './state.js';

const KEY = 'paneward.notify';
/** Events of one kind for one terminal within this long raise one notification. */
const DEBOUNCE_MS = 2000;
const lastShown = new Map();

const supported = () => typeof Notification !== 'undefined';
const enabled = () =>
  supported() && Notification.permission === 'granted' && localStorage.getItem(KEY) === 'on';

/** The value a state record's `changed` gives a path (or an ancestor object changed whole). */
function changedValue(changed, path) {
  if (path in changed) return changed[path];
  const parts = path.split('.');
  for (let n = parts.length - 1; n > 0; n--) {
    const head = parts.slice(0, n).join('.');
    if (!(head in changed)) continue;
    let v = changed[head];
    for (const p of parts.slice(n)) v = v !== null && typeof v === 'object' ? v[p] : undefined;
    return v;
  }
  return undefined;
}

/** What a record tells a person about: `[{kind, text}]` (the server's rules, src/notify/events.ts). */
export function happeningsOf(r) {
  if (!r.terminalId) return [];
  if (r.kind === 'turn.ended') {
    return r.outcome === 'none'
      ? []
      : [{ kind: 'turn_ended', text: `${r.turnId} ended: ${r.outcome.replace('_', ' ')}` }];
  }
  if (r.kind === 'terminal.detached') return [{ kind: 'gone', text: 'detached' }];
  if (r.kind !== 'state') return [];
  const out = [];
  const readiness = changedValue(r.changed, 'readiness.status');
  if (readiness === 'blocked') {
    const prompt =
      changedValue(r.changed, 'surface.blockedPrompt') ??
      views.get(r.terminalId)?.surface?.blockedPrompt;
    out.push({ kind: 'question', text: `waits for you${prompt ? `: ${prompt}` : ''}` });
  }
  if (readiness === 'stalled' || changedValue(r.changed, 'completion.status') === 'stalled') {
    out.push({ kind: 'stalled', text: 'stalled' });
  }
  const availability = changedValue(r.changed, 'diagnostics.availability');
  if (availability === 'tui_down') out.push({ kind: 'exited', text: 'its CLI exited' });
  if (availability === 'unavailable') out.push({ kind: 'gone', text: 'its pane is gone' });
  return out;
}

/** Shows one notification unless one of the same key was shown within the debounce. */
function raise(key, title, body, hash) {
  const now = Date.now();
  if (now - (lastShown.get(key) ?? -Infinity) < DEBOUNCE_MS) return;
  lastShown.set(key, now);
  try {
    const n = new Notification(title, { body, tag: key });
    n.onclick = () => {
      window.focus();
      location.hash = hash;
    };
  } catch {
    /* a browser that only notifies from a service worker: nothing to show */
  }
}

/** Raises a notification for each thing a record tells, when the person asked for them. */
export function notifyRecord(r) {
  if (!enabled()) return;
  for (const h of happeningsOf(r)) {
    const tool = views.get(r.terminalId)?.tool;
    raise(
      `${h.kind}\u0000${r.terminalId}`,
      `${r.terminalId}${tool ? ` (${tool})` : ''}`,
      h.text,
      `#/t/${encodeURIComponent(r.terminalId)}`,
    );
  }
}

/**
 * What a fleet's hosts tell between two reads of its health (`[{id, reachable}]` each): a host
 * seen answering that stopped (`gone`), or one that answers again (`back`). A host first seen
 * unreachable tells nothing, as on the server (src/notify/notifier.ts).
 */
export function hostHappenings(before, now) {
  const was = new Map(before.map((h) => [h.id, h.reachable]));
  const out = [];
  for (const h of now) {
    const prev = was.get(h.id);
    if (prev === undefined || prev === h.reachable) continue;
    out.push(
      h.reachable
        ? { host: h.id, kind: 'back', text: 'answers again' }
        : { host: h.id, kind: 'gone', text: 'stopped answering: its terminals are not watched' },
    );
  }
  return out;
}

/** One notification per fleet host that went or came back, naming how many terminals it has. */
export function notifyHosts(before, now) {
  if (!enabled()) return;
  for (const h of hostHappenings(before, now)) {
    const n = [...views.keys()].filter((id) => id.startsWith(`${h.host}/`)).length;
    raise(
      `${h.kind}\u0000host\u0000${h.host}`,
      `host ${h.host}`,
      `${h.text} (${n} terminal${n === 1 ? '' : 's'})`,
      '#/',
    );
  }
}

function showButton() {
  const button = $('#notify-me');
  if (!supported()) {
    button.textContent = 'No notifications here';
    button.disabled = true;
    return;
  }
  const p = Notification.permission;
  button.dataset.state = enabled() ? 'on' : p === 'denied' ? 'denied' : 'off';
  button.textContent = enabled()
    ? 'Notifying'
    : p === 'denied'
      ? 'Notifications blocked by the browser'
      : 'Notify me';
  button.title = enabled()
    ? 'Click to stop notifications'
    : 'Be told when an agent asks, a turn ends, a terminal stalls, its CLI exits, its pane goes or its host stops answering';
}

$('#notify-me').addEventListener('click', async () => {
  if (!supported()) return;
  if (enabled()) {
    localStorage.setItem(KEY, 'off');
  } else {
    const p = await Notification.requestPermission();
    localStorage.setItem(KEY, p === 'granted' ? 'on' : 'off');
  }
  showButton();
});
showButton();
