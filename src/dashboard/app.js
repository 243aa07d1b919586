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

function onRecord(r) {
  if (r.kind === 'terminal.attached' || r.kind === 'terminal.detached') pending.add('*');
  else if (r.terminalId) pending.add(r.terminalId);
  if (r.terminalId && r.terminalId === openId() && r.kind === 'state') addTransitions([r], true);
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
  render();
}

// ---------------------------------------------------------------------------------------------
// The grid

const now = () => Date.now() / 1000;

function age(seconds) {
  if (!Number.isFinite(seconds) || seconds < 0) return '';
  if (seconds < 60) return `${Math.floor(seconds)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86400)} d`;
}

function unread(v) {
  return (
    v.lastTurn.result !== 'none' &&
    v.lastTurn.at !== null &&
    v.lastTurn.at > (seen[v.terminalId] ?? 0)
  );
}

/** What needs a person comes first: a prompt waiting, a failure, a stall, a blocked session, news. */
function priority(v) {
  if (v.readiness.status === 'blocked') return 0;
  if (v.readiness.status === 'failed') return 1;
  if (v.readiness.status === 'stalled') return 2;
  if (v.session.status === 'blocked') return 3;
  if (unread(v) && v.turn.phase !== 'active') return 4;
  if (v.turn.phase === 'active') return 5;
  if (v.readiness.status === 'ready') return 6;
  return 7;
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

function matchesFilter(v) {
  const host = $('#filter-host').value;
  const tool = $('#filter-tool').value;
  const state = $('#filter-state').value;
  if (host && v.host?.id !== host) return false;
  if (tool && v.tool !== tool) return false;
  if (!state) return true;
  if (state === 'attention') return priority(v) <= 4;
  if (state === 'working') return v.turn.phase === 'active';
  return v.readiness.status === state;
}

function cell(text, cls) {
  const td = document.createElement('td');
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

function render() {
  const list = [...views.values()].sort(
    (a, b) => priority(a) - priority(b) || a.terminalId.localeCompare(b.terminalId),
  );
  addOptions(
    $('#filter-tool'),
    list.map((v) => v.tool),
  );
  // A fleet server's terminals name their host: then they can be filtered by it.
  const hosts = list.flatMap((v) => (v.host ? [v.host.id] : []));
  addOptions($('#filter-host'), hosts);
  $('#filter-host-label').hidden = hosts.length === 0;
  const body = $('#grid tbody');
  body.replaceChildren(
    ...list.filter(matchesFilter).map((v) => {
      const tr = document.createElement('tr');
      tr.dataset.id = v.terminalId;
      if (priority(v) <= 3) tr.classList.add('attention');
      if (unread(v)) tr.classList.add('unread');
      const last =
        v.lastTurn.result === 'none'
          ? ''
          : `${v.lastTurn.result} ${v.lastTurn.at ? `${age(now() - v.lastTurn.at)} ago` : ''}`;
      tr.append(
        cell(v.terminalId),
        cell(v.target ?? ''),
        cell(v.toolVersion ? `${v.tool} ${v.toolVersion}` : v.tool),
        cell(v.readiness.status, `state state-${v.readiness.status}`),
        cell(v.turn.phase, `state state-${v.turn.phase}`),
        cell(last, `state state-${v.lastTurn.result}`),
        cell(howLong(v)),
        cell(watchdogLeft(v)),
        cell(v.operations.sendInput.allowed === 'yes' ? '' : v.operations.sendInput.reason, 'why'),
      );
      tr.addEventListener(
        'click',
        () => (location.hash = `#/t/${encodeURIComponent(v.terminalId)}`),
      );
      return tr;
    }),
  );
  $('#count').textContent = `${list.length} terminal${list.length === 1 ? '' : 's'}`;
  $('#empty').hidden = list.length > 0;
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
// One terminal: its charts live, its transitions, its screen, and what can be done

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

async function diagram(name) {
  if (!diagrams.has(name)) {
    const res = await fetch(`/diagrams/${name}.svg`);
    diagrams.set(name, res.ok ? await res.text() : '');
  }
  return diagrams.get(name);
}

async function drawCharts(v) {
  const box = $('#charts');
  if (box.dataset.for !== v.terminalId) {
    box.dataset.for = v.terminalId;
    box.replaceChildren();
    for (const name of CHARTS) {
      const div = document.createElement('div');
      div.className = 'chart';
      div.dataset.chart = name;
      div.innerHTML = `<h4>${name}</h4>${await diagram(name)}`;
      div.title = 'click to enlarge';
      div.addEventListener('click', () => div.classList.toggle('wide'));
      box.append(div);
    }
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

function addTransitions(records, prepend) {
  const rows = [];
  for (const r of records) {
    const time = new Date(r.at).toLocaleTimeString();
    const evidence = r.evidence
      ? `${r.evidence.rule}${r.evidence.screenHash ? ` #${r.evidence.screenHash.slice(0, 8)}` : ''}`
      : '';
    const list = r.kind === 'state' ? r.transitions : [];
    for (const t of list) {
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
      rows.push(tr);
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
      rows.push(tr);
    }
  }
  const body = $('#transitions tbody');
  if (prepend) body.prepend(...rows.reverse());
  else body.replaceChildren(...rows.reverse());
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

function renderDetail() {
  const id = openId();
  $('#grid-view').hidden = id !== null;
  $('#detail-view').hidden = id === null;
  if (id === null) return;
  const v = views.get(id);
  if (!v) {
    $('#detail-title').textContent = `${id} (not attached)`;
    return;
  }
  $('#detail-title').textContent =
    `${v.terminalId} · ${v.target ?? ''} · ${v.tool}${v.toolVersion ? ` ${v.toolVersion}` : ''}`;
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
  $('#detail-summary').replaceChildren(
    ...facts.map(([k, val]) => {
      const span = document.createElement('span');
      span.innerHTML = `<span class="muted">${k}</span> `;
      const b = document.createElement('b');
      b.textContent = val;
      b.className = `state state-${val}`;
      span.append(b);
      return span;
    }),
  );
  const send = v.operations.sendInput;
  $('#send').disabled = send.allowed !== 'yes' && !$('#force').checked;
  $('#send').dataset.allowed = send.allowed;
  $('#send-why').textContent =
    send.allowed === 'yes' ? '' : `Not now: ${send.reason} (${send.allowed}).`;
  $('#interrupt').disabled = v.operations.interrupt.allowed !== 'yes';
  $('#resume').disabled = v.operations.resume.allowed !== 'yes';
  void drawCharts(v);
}

async function openTerminal() {
  clearInterval(screenTimer);
  const id = openId();
  render();
  if (id === null) return;
  const v = views.get(id);
  if (v && v.lastTurn.at !== null) {
    seen[id] = v.lastTurn.at;
    localStorage.setItem('paneward.seen', JSON.stringify(seen));
  }
  $('#action-result').textContent = '';
  $('#transitions tbody').replaceChildren();
  try {
    const { records } = await request(
      'GET',
      `/v1/terminals/${encodeURIComponent(id)}/history?limit=60`,
    );
    addTransitions(records, false);
  } catch {
    /* shown by the connection state */
  }
  void refreshScreen(id);
  screenTimer = setInterval(() => refreshScreen(id), 2000);
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
