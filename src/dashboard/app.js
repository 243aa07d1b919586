// The paneward dashboard: every terminal of one `paneward serve`, what needs a person first,
// kept live from the record stream (SSE, resumed by Last-Event-ID after a drop). Plain
// JavaScript, no build step and nothing fetched from anywhere but the server itself.

const CHARTS = ['readiness', 'turnPhase', 'lastTurn', 'completion', 'diagnostics', 'watchdog'];
/** A stream this quiet (heartbeats come every 15 s) is not trusted: it is reconnected. */
const STALE_AFTER_MS = 35_000;

const $ = (sel) => document.querySelector(sel);
const views = new Map();
const diagrams = new Map();
let token = sessionStorage.getItem('paneward.token') ?? '';
let lastEventId = null;
let lastHeard = Date.now();
let stream = null;
const seen = JSON.parse(localStorage.getItem('paneward.seen') ?? '{}');

// ---------------------------------------------------------------------------------------------
// Talking to the server

class HttpError extends Error {
  constructor(status, error) {
    super(error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = error?.code ?? `http_${status}`;
  }
}

async function request(method, path, body) {
  // The service refuses an action that carries neither a JSON body nor this header.
  const headers = { 'x-paneward': '1', ...(token ? { authorization: `Bearer ${token}` } : {}) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 401) needToken();
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new HttpError(res.status, data?.error);
  return data;
}

// /healthz answers 503 (with the same body) while the journal cannot write: still an answer.
async function health() {
  const res = await fetch('/healthz', {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  if (res.status === 401) needToken();
  const data = await res.json().catch(() => null);
  if (!res.ok && !(res.status === 503 && data?.journal))
    throw new HttpError(res.status, data?.error);
  return data;
}

function needToken() {
  setConnection('unauthorized', 'a token is needed');
  $('#token-form').hidden = false;
}

$('#token-form').addEventListener('submit', (e) => {
  e.preventDefault();
  token = $('#token').value.trim();
  sessionStorage.setItem('paneward.token', token);
  $('#token-form').hidden = true;
  restart();
});

function setConnection(state, text) {
  const el = $('#connection');
  el.dataset.state = state;
  el.textContent = text ?? state;
}

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
          ...(token ? { authorization: `Bearer ${token}` } : {}),
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
          ? `${who} is behind by ${Math.round(o.lagMs / 100) / 10} s (${o.backlog} panes waiting): states may be late; the agents are not at fault`
          : o.connection !== 'connected'
            ? `${who}'s tmux client: ${o.connection}`
            : null,
      )
      .filter((x) => x !== null);
    if (h.journal?.failure) said.unshift(`paneward cannot record: ${h.journal.failure.message}`);
    el.hidden = said.length === 0;
    el.textContent = said.join(' · ');
    // A host that comes or goes makes no record: its terminals are read again when it does.
    const hosts = JSON.stringify((h.fleet?.hosts ?? []).map((x) => [x.id, x.reachable]));
    if (hostsSeen !== null && hosts !== hostsSeen) {
      pending.add('*');
      refreshTimer ??= setTimeout(flush, 50);
    }
    hostsSeen = hosts;
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
/** The timelines are redrawn at the next render (else every few seconds, as time moves). */
let pendingTimelines = true;

function onRecord(r) {
  if (r.kind === 'terminal.attached' || r.kind === 'terminal.detached') pending.add('*');
  else if (r.terminalId) pending.add(r.terminalId);
  if (r.terminalId) {
    noteRecord(r.terminalId, r);
    pendingTimelines = true;
  }
  if (r.terminalId && r.terminalId === openId()) addTransitions([r], true);
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
  pendingTimelines = true;
  render();
  void loadHistories();
}

// ---------------------------------------------------------------------------------------------
// Words for states

const now = () => Date.now() / 1000;

function age(seconds) {
  if (!Number.isFinite(seconds) || seconds < 0) return '';
  if (seconds < 60) return `${Math.floor(seconds)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86400)} d`;
}

/** The colour family of a value (see the legend): ready, working, blocked, failed, unknown. */
function tone(value) {
  if (value === 'ready' || value === 'success') return 'ready';
  if (value === 'waiting' || value === 'active' || value === 'working') return 'working';
  if (value === 'blocked' || value === 'interrupted') return 'blocked';
  if (value === 'failed' || value === 'stalled' || value === 'known_failure') return 'failed';
  return 'unknown';
}

function unread(v) {
  return (
    v.lastTurn.result !== 'none' &&
    v.lastTurn.at !== null &&
    v.lastTurn.at > (seen[v.terminalId] ?? 0)
  );
}

/** What needs a person: a prompt waiting, a failure, a stall, a blocked session. */
function needsPerson(v) {
  return (
    ['blocked', 'failed', 'stalled'].includes(v.readiness.status) || v.session.status === 'blocked'
  );
}

/** "idle 14 min", "working 3 min", "blocked 20 s". */
function howLong(v) {
  const t = now();
  if (v.turn.phase === 'active' && v.turn.since !== null) return `working ${age(t - v.turn.since)}`;
  if (v.readiness.since === null) return '';
  const word = v.readiness.status === 'ready' ? 'idle' : v.readiness.status;
  return `${word} ${age(t - v.readiness.since)}`;
}

function watchdogLeft(v) {
  const w = v.watchdog;
  if (w.state === 'armed' && w.sessionStartedAt !== null) {
    return `${age(w.budgetSeconds - (now() - w.sessionStartedAt))} left`;
  }
  return w.state === 'disabled' ? '' : w.state;
}

/** The state of a terminal in one sentence a person reads. */
function stateInWords(v) {
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
function reasons(v) {
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

// ---------------------------------------------------------------------------------------------
// The grid: one row per terminal, in a stable order (by id); a change is highlighted in place

function matchesFilter(v) {
  const host = $('#filter-host').value;
  const tool = $('#filter-tool').value;
  const state = $('#filter-state').value;
  if (host && v.host?.id !== host) return false;
  if (tool && v.tool !== tool) return false;
  if (!state) return true;
  if (state === 'attention') return needsPerson(v);
  if (state === 'working') return v.turn.phase === 'active';
  return v.readiness.status === state;
}

const hrefOf = (id) => `#/t/${encodeURIComponent(id)}`;
const byId = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
/** For how long a changed row stays highlighted, in ms. */
const CHANGED_MS = 4000;
const rows = new Map();

function setCell(td, text, cls) {
  if (td.textContent !== text) td.textContent = text;
  if (td.title !== text) td.title = text;
  const name = cls ?? '';
  if (td.className !== name) td.className = name;
}

/** The tool, and its version (left out where the page is narrow). */
function setTool(td, v) {
  const text = v.toolVersion ? `${v.tool} ${v.toolVersion}` : v.tool;
  if (td.title === text) return;
  td.title = text;
  const version = document.createElement('span');
  version.className = 'version';
  version.textContent = v.toolVersion ? ` ${v.toolVersion}` : '';
  td.replaceChildren(v.tool, version);
}

function rowFor(id) {
  let row = rows.get(id);
  if (!row) {
    const tr = document.createElement('tr');
    tr.dataset.id = id;
    const first = document.createElement('td');
    const a = document.createElement('a');
    a.href = hrefOf(id);
    a.className = 'row-link';
    a.textContent = id;
    first.append(a);
    tr.append(first);
    const names = ['target', 'tool', 'readiness', 'phase', 'last', 'for', 'watchdog', 'why'];
    const cells = {};
    for (const name of names) {
      const td = document.createElement('td');
      cells[name] = td;
      tr.append(td);
    }
    row = { tr, cells, key: null, changedAt: 0 };
    rows.set(id, row);
  }
  return row;
}

function render() {
  const list = [...views.values()].sort((a, b) => byId(a.terminalId, b.terminalId));
  addOptions(
    $('#filter-tool'),
    list.map((v) => v.tool),
  );
  // A fleet server's terminals name their host: then they can be filtered by it.
  const hosts = list.flatMap((v) => (v.host ? [v.host.id] : []));
  addOptions($('#filter-host'), hosts);
  $('#filter-host-label').hidden = hosts.length === 0;
  for (const id of rows.keys()) if (!views.has(id)) rows.delete(id);
  const shown = [];
  for (const v of list) {
    const row = rowFor(v.terminalId);
    const { tr, cells } = row;
    // What a person watches for: a change of any of these is highlighted for a few seconds.
    const key = [v.readiness.status, v.turn.phase, v.lastTurn.result, v.lastTurn.turnId].join();
    if (row.key !== null && row.key !== key) row.changedAt = Date.now();
    row.key = key;
    tr.classList.toggle('changed', Date.now() - row.changedAt < CHANGED_MS);
    tr.classList.toggle('attention', needsPerson(v));
    tr.classList.toggle('unread', unread(v));
    const last =
      v.lastTurn.result === 'none'
        ? ''
        : `${v.lastTurn.result} ${v.lastTurn.at ? `${age(now() - v.lastTurn.at)} ago` : ''}`.trim();
    setCell(cells.target, v.target ?? '', 'col-target');
    setTool(cells.tool, v);
    setCell(cells.readiness, v.readiness.status, `state s-${tone(v.readiness.status)}`);
    setCell(cells.phase, v.turn.phase, `state s-${tone(v.turn.phase)}`);
    setCell(cells.last, last, `state s-${tone(v.lastTurn.result)}`);
    setCell(cells.for, howLong(v), 'col-for');
    setCell(cells.watchdog, watchdogLeft(v), 'col-watchdog');
    const why = v.operations.sendInput.allowed === 'yes' ? '' : v.operations.sendInput.reason;
    setCell(cells.why, why, 'why');
    // The link covers the row: its title is what a pointer over the row is told.
    const link = tr.querySelector('a.row-link');
    const title = `${v.terminalId}: ${stateInWords(v)}${why ? ` (${why})` : ''}`;
    if (link.title !== title) link.title = title;
    if (matchesFilter(v)) shown.push(tr);
  }
  const body = $('#grid tbody');
  // Rows are moved only when the set or the order differs: never under the pointer otherwise.
  const current = [...body.children];
  if (current.length !== shown.length || current.some((tr, i) => tr !== shown[i])) {
    body.replaceChildren(...shown);
  }
  const attention = list.filter(needsPerson);
  const line = $('#attention');
  line.hidden = attention.length === 0;
  line.replaceChildren(
    `${attention.length} need${attention.length === 1 ? 's' : ''} a person: `,
    ...attention.flatMap((v, i) => {
      const a = document.createElement('a');
      a.href = hrefOf(v.terminalId);
      a.textContent = `${v.terminalId} (${v.session.status === 'blocked' ? 'session blocked' : v.readiness.status})`;
      return i === 0 ? [a] : [', ', a];
    }),
  );
  $('#count').textContent = `${list.length} terminal${list.length === 1 ? '' : 's'}`;
  $('#empty').hidden = list.length > 0;
  renderTimelines();
  renderDetail();
}

function addOptions(select, values) {
  for (const value of new Set(values)) {
    if (![...select.options].some((o) => o.value === value)) select.add(new Option(value, value));
  }
}

$('#filter-host').addEventListener('change', render);
$('#filter-tool').addEventListener('change', render);
$('#filter-state').addEventListener('change', render);
setInterval(render, 1000);

// ---------------------------------------------------------------------------------------------
// The last hour: readiness and turns of each terminal, from the journal

const HOUR_MS = 3_600_000;
/** How much of the hour the strips show (a person may zoom in on the latest minutes). */
let rangeMs = HOUR_MS;
/** Per terminal: its records of the last hour (oldest first) and whether they reach back. */
const histories = new Map();
let historiesLoading = false;

async function loadHistory(id) {
  const since = new Date(Date.now() - HOUR_MS).toISOString();
  const limit = 2000;
  const { records, completeSince } = await request(
    'GET',
    `/v1/terminals/${encodeURIComponent(id)}/history?since=${encodeURIComponent(since)}&limit=${limit}`,
  );
  // Before `completeSince` some records may be missing: that time is not drawn as known.
  const from = Date.parse(completeSince ?? since);
  histories.set(id, { records, from: from > Date.parse(since) ? from : null });
}

async function loadHistories() {
  if (historiesLoading) return;
  historiesLoading = true;
  try {
    for (const id of views.keys()) {
      try {
        await loadHistory(id);
      } catch {
        /* shown by the connection state */
      }
    }
  } finally {
    historiesLoading = false;
  }
  pendingTimelines = true;
  render();
}

function noteRecord(id, r) {
  const h = histories.get(id);
  if (!h) return;
  if (h.records.length > 0 && h.records[h.records.length - 1].seq >= r.seq) return;
  h.records.push(r);
  const cut = Date.now() - HOUR_MS;
  while (h.records.length > 0 && Date.parse(h.records[0].at) < cut - 60_000) h.records.shift();
}

/** Readiness spans and turns over [start, end] (ms) from a terminal's records and its state. */
function timelineOf(v, h, start, end) {
  const spans = [];
  const turns = [];
  let state = null;
  let at = start;
  let known = h.from ?? start;
  for (const r of h.records) {
    const t = Date.parse(r.at);
    if (r.kind === 'terminal.attached' && !r.readopted) {
      // Nothing was watched before it was attached.
      known = Math.max(known, t);
      state = null;
      at = t;
    }
    if (r.kind === 'state') {
      for (const tr of r.transitions) {
        if (tr.machine !== 'readiness') continue;
        if (state === null) spans.push({ from: Math.max(at, known), to: t, state: tr.from });
        else spans.push({ from: at, to: t, state });
        state = tr.to;
        at = t;
      }
    }
    if (r.kind === 'turn.started' || r.kind === 'turn.reopened') {
      turns.push({ id: r.turnId, from: t, to: null, outcome: null });
    }
    if (r.kind === 'turn.ended') {
      const turn = turns.findLast((x) => x.id === r.turnId && x.to === null);
      if (turn) Object.assign(turn, { to: t, outcome: r.outcome });
      else turns.push({ id: r.turnId, from: known, to: t, outcome: r.outcome });
    }
  }
  // Up to now: the state as it is.
  spans.push({
    from: state === null ? Math.max(at, known) : at,
    to: end,
    state: v.readiness.status,
  });
  if (v.turn.current && !turns.some((x) => x.id === v.turn.current.id && x.to === null)) {
    turns.push({
      id: v.turn.current.id,
      from: v.turn.current.startedAt * 1000,
      to: null,
      outcome: null,
    });
  }
  for (const turn of turns) {
    if (turn.to === null) {
      const running = v.turn.current?.id === turn.id;
      turn.to = end;
      turn.outcome = running ? 'active' : 'unknown';
    }
  }
  return {
    known,
    spans: spans.filter((s) => s.to > start && s.to > s.from),
    turns: turns.filter((x) => x.to > start),
  };
}

const SVG = 'http://www.w3.org/2000/svg';
function svgEl(name, attrs, title) {
  const el = document.createElementNS(SVG, name);
  for (const [k, val] of Object.entries(attrs)) el.setAttribute(k, String(val));
  if (title) {
    const t = document.createElementNS(SVG, 'title');
    t.textContent = title;
    el.append(t);
  }
  return el;
}

const clock = (ms) => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

/** One terminal's hour as an SVG strip: readiness above, turns below, time left to right. */
function timelineSvg(v, h) {
  const end = Date.now();
  const start = end - rangeMs;
  const W = 3600;
  const x = (t) => ((Math.max(start, Math.min(end, t)) - start) / rangeMs) * W;
  const svg = svgEl('svg', {
    viewBox: `0 0 ${W} 40`,
    preserveAspectRatio: 'none',
    class: 'timeline',
    role: 'img',
    'aria-label': `${v.terminalId}: readiness and turns over the last ${rangeMs / 60_000} min`,
  });
  const line = timelineOf(v, h, start, end);
  if (line.known > start) {
    svg.append(
      svgEl(
        'rect',
        { x: 0, y: 0, width: x(line.known), height: 40, class: 'tl-gap' },
        `no record before ${clock(line.known)}`,
      ),
    );
  }
  for (const s of line.spans) {
    svg.append(
      svgEl(
        'rect',
        {
          x: x(s.from),
          y: 2,
          width: Math.max(2, x(s.to) - x(s.from)),
          height: 18,
          class: `tl s-${tone(s.state)}`,
          'data-state': s.state,
        },
        `${s.state} ${clock(s.from)}–${clock(s.to)}`,
      ),
    );
  }
  for (const turn of line.turns) {
    svg.append(
      svgEl(
        'rect',
        {
          x: x(turn.from),
          y: 24,
          width: Math.max(4, x(turn.to) - x(turn.from)),
          height: 14,
          class: `tl turn s-${tone(turn.outcome)}`,
          'data-turn': turn.id,
        },
        `${turn.id}: ${turn.outcome} ${clock(turn.from)}–${clock(turn.to)}`,
      ),
    );
  }
  return svg;
}

function timelineRow(v) {
  const div = document.createElement('div');
  div.className = 'timeline-row';
  div.dataset.id = v.terminalId;
  const a = document.createElement('a');
  a.href = hrefOf(v.terminalId);
  a.textContent = v.terminalId;
  const h = histories.get(v.terminalId);
  const axis = document.createElement('div');
  axis.className = 'axis';
  const end = Date.now();
  axis.append(
    ...[4, 3, 2, 1, 0].map((quarter) => {
      const span = document.createElement('span');
      const ago = (quarter * rangeMs) / 4;
      span.textContent =
        quarter === 0 ? 'now' : rangeMs > 900_000 ? clock(end - ago) : `−${ago / 60_000} min`;
      return span;
    }),
  );
  const strip = document.createElement('div');
  strip.className = 'strip';
  if (h) strip.append(timelineSvg(v, h), axis);
  else strip.textContent = 'loading…';
  div.append(a, strip);
  return div;
}

for (const select of document.querySelectorAll('select.range')) {
  select.addEventListener('change', () => {
    rangeMs = Number(select.value) * 60_000;
    for (const other of document.querySelectorAll('select.range')) other.value = select.value;
    pendingTimelines = true;
    render();
  });
}

let timelinesDrawn = 0;
function renderTimelines() {
  // Redrawn every few seconds (time moves), and at once when records came.
  if (Date.now() - timelinesDrawn < 5000 && pendingTimelines === false) return;
  timelinesDrawn = Date.now();
  pendingTimelines = false;
  const list = [...views.values()]
    .filter(matchesFilter)
    .sort((a, b) => byId(a.terminalId, b.terminalId));
  if (openId() === null) $('#timelines').replaceChildren(...list.map(timelineRow));
  else {
    const v = views.get(openId());
    $('#detail-timeline').replaceChildren(...(v ? [timelineRow(v)] : []));
  }
}

// ---------------------------------------------------------------------------------------------
// One terminal: its screen, its state in words and why, what can be done; then its charts

function openId() {
  const m = /^#\/t\/(.+)$/.exec(location.hash);
  return m ? decodeURIComponent(m[1]) : null;
}

function currentStates(v) {
  return {
    readiness: v.readiness.status,
    turnPhase: v.turn.phase,
    lastTurn: v.lastTurn.result,
    completion: v.completion?.status ?? null,
    diagnostics: v.diagnostics.availability,
    watchdog: v.watchdog.state,
  };
}

/** The seed drawing of a chart (`<name>.seed.svg`, where it has extensions) or the whole one. */
async function diagram(name, withExtensions) {
  const key = `${name}:${withExtensions}`;
  if (!diagrams.has(key)) {
    let text = '';
    if (!withExtensions) {
      const seed = await fetch(`/diagrams/${name}.seed.svg`);
      if (seed.ok) text = await seed.text();
    }
    if (!text) {
      const res = await fetch(`/diagrams/${name}.svg`);
      text = res.ok ? await res.text() : '';
    }
    diagrams.set(key, text);
  }
  return diagrams.get(key);
}

let drawing = null;
async function drawCharts(v) {
  const box = $('#charts');
  const ext = $('#show-ext').checked;
  const wanted = `${v.terminalId}:${ext}`;
  if (box.dataset.for !== wanted && drawing !== wanted) {
    drawing = wanted;
    const divs = [];
    for (const name of CHARTS) {
      const div = document.createElement('div');
      div.className = 'chart';
      div.dataset.chart = name;
      div.innerHTML = `<h4>${name}</h4>${await diagram(name, ext)}`;
      // Drawn at one CSS pixel per point: 12 px labels, whatever the chart's width (it scrolls).
      const svg = div.querySelector('svg');
      const vb = svg?.viewBox.baseVal;
      if (svg && vb && vb.width > 0) {
        svg.setAttribute('width', `${vb.width}px`);
        svg.setAttribute('height', `${vb.height}px`);
      }
      divs.push(div);
    }
    if (drawing !== wanted) return;
    box.replaceChildren(...divs);
    box.dataset.for = wanted;
    drawing = null;
  }
  const states = currentStates(v);
  for (const div of box.querySelectorAll('.chart')) {
    const state = states[div.dataset.chart];
    div.dataset.state = state ?? '';
    for (const node of div.querySelectorAll('g.node')) {
      node.classList.toggle('current', node.querySelector('title')?.textContent === state);
    }
  }
}
$('#show-ext').addEventListener('change', () => {
  const v = views.get(openId());
  if (v) void drawCharts(v);
});

function cell(text, cls) {
  const td = document.createElement('td');
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

function addTransitions(records, prepend) {
  const list = [];
  for (const r of records) {
    const time = new Date(r.at).toLocaleTimeString();
    const evidence = r.evidence
      ? `${r.evidence.rule}${r.evidence.screenHash ? ` #${r.evidence.screenHash.slice(0, 8)}` : ''}`
      : '';
    const changes = r.kind === 'state' ? r.transitions : [];
    for (const t of changes) {
      const tr = document.createElement('tr');
      tr.append(
        cell(String(r.seq)),
        cell(time),
        cell(t.machine),
        cell(`${t.from} → ${t.to}`),
        cell(t.event),
        cell(t.rule ?? ''),
        cell(evidence),
      );
      list.push(tr);
    }
    if (r.kind.startsWith('turn.') || r.kind === 'anomaly' || r.kind.startsWith('watchdog.')) {
      const tr = document.createElement('tr');
      const what = r.kind === 'anomaly' ? r.anomaly : (r.outcome ?? r.reason ?? '');
      tr.append(
        cell(String(r.seq)),
        cell(time),
        cell(r.kind),
        cell(r.turnId ?? ''),
        cell(what),
        cell(''),
        cell(''),
      );
      list.push(tr);
    }
  }
  const body = $('#transitions tbody');
  if (prepend) body.prepend(...list.reverse());
  else body.replaceChildren(...list.reverse());
  while (body.rows.length > 80) body.deleteRow(-1);
}

let screenTimer = null;
async function refreshScreen(id) {
  try {
    const s = await request('GET', `/v1/terminals/${encodeURIComponent(id)}/screen`);
    $('#screen').textContent = s.text ?? '(no capture yet)';
  } catch (error) {
    $('#screen').textContent =
      error.code === 'screens_disabled' ? '(this server does not show screens)' : '';
  }
}

function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/** A button the gate refuses is disabled, and says why (on it and beside it). */
function gateButton(button, verdict, label) {
  const refused = verdict.allowed !== 'yes';
  button.disabled = refused;
  button.dataset.allowed = verdict.allowed;
  button.title = refused ? `${label}: not now: ${verdict.reason}` : verdict.reason;
  return refused ? `${label}: not now: ${verdict.reason}` : null;
}

function renderDetail() {
  const id = openId();
  $('#grid-view').hidden = id !== null;
  $('#detail-view').hidden = id === null;
  if (id === null) return;
  const v = views.get(id);
  if (!v) {
    setText($('#detail-title'), `${id} (not attached)`);
    return;
  }
  setText(
    $('#detail-title'),
    `${v.terminalId} · ${v.target ?? ''} · ${v.tool}${v.toolVersion ? ` ${v.toolVersion}` : ''}`,
  );
  const words = $('#state-words');
  setText(words, stateInWords(v));
  words.className = `state-words s-${tone(v.turn.phase === 'active' ? 'active' : v.readiness.status)}`;
  const why = reasons(v);
  const list = $('#state-why');
  if ([...list.children].map((li) => li.textContent).join('\n') !== why.join('\n')) {
    list.replaceChildren(
      ...why.map((text) => {
        const li = document.createElement('li');
        li.textContent = text;
        return li;
      }),
    );
  }
  const facts = [
    ['readiness', v.readiness.status],
    ['phase', v.turn.phase],
    ['turn', v.turn.current ? `${v.turn.current.id} (${v.turn.current.source})` : '-'],
    [
      'last result',
      v.lastTurn.result === 'none' ? '-' : `${v.lastTurn.result} ${v.lastTurn.turnId}`,
    ],
    ['diagnostics', v.diagnostics.availability],
    ['session', v.session.status],
    ['for', howLong(v)],
  ];
  const summary = $('#detail-summary');
  const text = facts.map(([k, val]) => `${k} ${val}`).join(' ');
  if (summary.dataset.text !== text) {
    summary.dataset.text = text;
    summary.replaceChildren(
      ...facts.map(([k, val]) => {
        const span = document.createElement('span');
        span.innerHTML = `<span class="muted">${k}</span> `;
        const b = document.createElement('b');
        b.textContent = val;
        b.className = `state s-${tone(val.split(' ')[0])}`;
        span.append(b);
        return span;
      }),
    );
  }
  const send = v.operations.sendInput;
  const force = $('#force').checked;
  gateButton($('#send'), send, 'Send');
  // `force` overrides a refusal the API lets it override (never a pane that reads no input).
  if (force && send.allowed !== 'yes' && !send.reason.startsWith('the pane reads no input'))
    $('#send').disabled = false;
  setText(
    $('#send-why'),
    send.allowed === 'yes' ? '' : `Not now: ${send.reason} (${send.allowed}).`,
  );
  const refusals = [
    gateButton($('#interrupt'), v.operations.interrupt, 'Interrupt'),
    gateButton($('#resume'), v.operations.resume, 'Resume'),
    gateButton($('#detach'), v.operations.detach, 'Detach'),
  ].filter((x) => x !== null);
  const actionsWhy = $('#actions-why');
  if ([...actionsWhy.children].map((li) => li.textContent).join('\n') !== refusals.join('\n')) {
    actionsWhy.replaceChildren(
      ...refusals.map((r) => {
        const li = document.createElement('li');
        li.textContent = r;
        return li;
      }),
    );
  }
  void drawCharts(v);
}

async function openTerminal() {
  clearInterval(screenTimer);
  const id = openId();
  pendingTimelines = true;
  render();
  if (id === null) return;
  const v = views.get(id);
  if (v && v.lastTurn.at !== null) {
    seen[id] = v.lastTurn.at;
    localStorage.setItem('paneward.seen', JSON.stringify(seen));
  }
  $('#action-result').textContent = '';
  $('#transitions tbody').replaceChildren();
  $('#screen').textContent = '';
  void refreshScreen(id);
  screenTimer = setInterval(() => refreshScreen(id), 2000);
  try {
    const { records } = await request(
      'GET',
      `/v1/terminals/${encodeURIComponent(id)}/history?limit=60`,
    );
    addTransitions(records, false);
  } catch {
    /* shown by the connection state */
  }
}

window.addEventListener('hashchange', () => void openTerminal());
$('#force').addEventListener('change', renderDetail);

async function act(what, method, path, body) {
  const out = $('#action-result');
  out.dataset.kind = '';
  out.textContent = `${what}…`;
  try {
    const r = await request(method, path, body);
    out.textContent = `${what}: ${r?.turnId ?? 'done'}`;
    return r;
  } catch (error) {
    out.dataset.kind = 'error';
    out.textContent = `${what} refused: ${error.message}`;
    return null;
  }
}

$('#send-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const id = openId();
  const text = $('#prompt').value;
  if (!id || !text.trim()) return;
  const r = await act('sent', 'POST', `/v1/terminals/${encodeURIComponent(id)}/input`, {
    text,
    force: $('#force').checked,
  });
  if (r) $('#prompt').value = '';
});
$('#interrupt').addEventListener('click', () =>
  act('interrupted', 'POST', `/v1/terminals/${encodeURIComponent(openId())}/interrupt`),
);
$('#resume').addEventListener('click', () =>
  act('resumed', 'POST', `/v1/terminals/${encodeURIComponent(openId())}/resume`),
);
$('#detach').addEventListener('click', async () => {
  const id = openId();
  if (!id || !confirm(`Stop supervising ${id}?`)) return;
  if (await act('detached', 'DELETE', `/v1/terminals/${encodeURIComponent(id)}`))
    location.hash = '#/';
});

restart();
void openTerminal();
