// The paneward dashboard: every terminal of one `paneward serve`, what needs a person marked,
// kept live from the record stream (SSE, resumed by Last-Event-ID after a drop). Plain
// JavaScript modules, no build step and nothing fetched from anywhere but the server itself.

import { $, hooks, openId, views } from './state.js';
import { auth, health, needToken, request, setConnection } from './api.js';
import { matchesFilter, renderGrid } from './grid.js';
import { loadHistories, noteRecord, renderTimelines, timelinesChanged } from './timeline.js';
import { addTransitions, openTerminal, renderDetail } from './terminal.js';
import { notifyHosts, notifyRecord } from './notify.js';
import './spawn.js';

/** A stream this quiet (heartbeats come every 15 s) is not trusted: it is reconnected. */
const STALE_AFTER_MS = 35_000;

let lastEventId = null;
let lastHeard = Date.now();
let stream = null;

// ---------------------------------------------------------------------------------------------
// The record stream: follow it, reconnect by Last-Event-ID, never stay silently stale

async function follow(signal) {
  for (let attempt = 0; !signal.aborted; attempt++) {
    setConnection(
      attempt === 0 ? 'connecting' : 'reconnecting',
      attempt === 0 ? 'connecting…' : `reconnecting… (from #${lastEventId ?? 0})`,
    );
    try {
      // (Re)load everything first: whatever happened while away is shown, not guessed.
      await loadAll();
      if (lastEventId === null) lastEventId = (await health()).journal.durableSeq;
      const res = await fetch('/v1/events', {
        headers: {
          accept: 'text/event-stream',
          'last-event-id': String(lastEventId),
          ...auth(),
        },
        signal,
      });
      if (res.status === 401) {
        needToken();
        return;
      }
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      attempt = 0;
      lastHeard = Date.now();
      setConnection('live', 'live');
      await readEvents(res.body, signal);
    } catch (error) {
      if (signal.aborted) return;
      // Without the token nothing can be read: wait for the person to give it.
      if (error.status === 401) return;
      setConnection('offline', `offline: ${error.message ?? error}`);
    }
    await new Promise((r) => setTimeout(r, Math.min(5000, 500 * 2 ** Math.min(attempt, 3))));
  }
}

async function readEvents(body, signal) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  while (!signal.aborted) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields = {};
      for (const line of block.split('\n')) {
        const at = line.indexOf(':');
        if (at > 0) fields[line.slice(0, at)] = line.slice(at + 1).trimStart();
      }
      lastHeard = Date.now();
      if (fields.event === 'heartbeat') continue;
      if (fields.event === 'overflow') return; // cut off: reconnect from the last id
      // Records were missed (retention, a damaged line): what is current is read again.
      if (fields.event === 'gap') {
        await loadAll();
        continue;
      }
      // The journal cannot write (or can again): said in the header, as paneward's trouble.
      if (fields.event === 'error' || fields.event === 'recovered') {
        void checkObserver();
        continue;
      }
      if (fields.id) lastEventId = Number(fields.id);
      if (fields.data) onRecord(JSON.parse(fields.data));
    }
  }
}

function restart() {
  stream?.abort();
  stream = new AbortController();
  void follow(stream.signal);
}

let hostsSeen = null;

// paneward's own load (observer_lagging): said as paneward's, never shown as an agent's state.
// On a fleet server, also whether each host can be reached.
async function checkObserver() {
  try {
    const h = await health();
    const el = $('#observer');
    // A fleet server observes nothing itself: each host's paneward reports its own.
    const said = [h.observer ? ['paneward', h.observer] : null]
      .concat(
        (h.fleet?.hosts ?? []).map((host) =>
          host.observer ? [`paneward on ${host.id}`, host.observer] : null,
        ),
      )
      .filter((x) => x !== null)
      .map(([who, o]) =>
        o.lagging
          ? `${who} is behind by ${Math.round(o.lagMs / 100) / 10} s (${o.backlog} ${o.backlog === 1 ? 'pane' : 'panes'} waiting): states may be late; the agents are not at fault`
          : o.connection !== 'connected'
            ? `${who}'s tmux client: ${o.connection}`
            : null,
      )
      .filter((x) => x !== null);
    if (h.journal?.failure) said.unshift(`paneward cannot record: ${h.journal.failure.message}`);
    el.hidden = said.length === 0;
    el.textContent = said.join(' · ');
    // A host that comes or goes makes no record: its terminals are read again when it does, and
    // the person is told (when they asked to be).
    const now = (h.fleet?.hosts ?? []).map((x) => ({ id: x.id, reachable: x.reachable }));
    if (hostsSeen !== null && JSON.stringify(now) !== JSON.stringify(hostsSeen)) {
      notifyHosts(hostsSeen, now);
      pending.add('*');
      refreshTimer ??= setTimeout(flush, 50);
    }
    hostsSeen = now;
  } catch {
    /* shown by the connection state */
  }
}
void checkObserver();
setInterval(() => void checkObserver(), 5000);

setInterval(() => {
  const el = $('#connection');
  if (el.dataset.state === 'live' && Date.now() - lastHeard > STALE_AFTER_MS) {
    setConnection('stale', 'no news: reconnecting…');
    restart();
  }
}, 5000);

// ---------------------------------------------------------------------------------------------
// What the records change

const pending = new Set();
let refreshTimer = null;

function onRecord(r) {
  if (r.kind === 'terminal.attached' || r.kind === 'terminal.detached') pending.add('*');
  else if (r.terminalId) pending.add(r.terminalId);
  if (r.terminalId) {
    noteRecord(r.terminalId, r);
    timelinesChanged();
  }
  if (r.terminalId && r.terminalId === openId()) addTransitions([r], true);
  notifyRecord(r);
  refreshTimer ??= setTimeout(flush, 50);
}

async function flush() {
  refreshTimer = null;
  const ids = [...pending];
  pending.clear();
  try {
    if (ids.includes('*')) await loadAll();
    else {
      for (const id of ids) {
        try {
          views.set(id, await request('GET', `/v1/terminals/${encodeURIComponent(id)}`));
        } catch (error) {
          if (error.status === 404) views.delete(id);
          else throw error;
        }
      }
    }
  } catch {
    /* the stream loop reports the connection */
  }
  render();
}

async function loadAll() {
  const { terminals } = await request('GET', '/v1/terminals');
  views.clear();
  for (const v of terminals) views.set(v.terminalId, v);
  timelinesChanged();
  render();
  void loadHistories();
}

// ---------------------------------------------------------------------------------------------
// Drawing

function render() {
  const list = renderGrid();
  renderTimelines(list.filter(matchesFilter));
  renderDetail();
}

hooks.render = render;
hooks.restart = restart;
$('#filter-host').addEventListener('change', render);
$('#filter-tool').addEventListener('change', render);
$('#filter-state').addEventListener('change', render);
setInterval(render, 1000);

restart();
void openTerminal();
