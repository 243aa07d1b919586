// The timeline: each terminal's readiness and turns over the last hour, from the journal.

import { $, hooks, openId, views } from './state.js';
import { request } from './api.js';
import { hrefOf, tone } from './words.js';

/** The timelines are redrawn at the next render (else every few seconds, as time moves). */
let pendingTimelines = true;
export const timelinesChanged = () => {
  pendingTimelines = true;
};

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

export async function loadHistories() {
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
  hooks.render();
}

export function noteRecord(id, r) {
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

/** "−5 min", "−3 min 45 s". */
function minutesAgo(ms) {
  const m = Math.floor(ms / 60_000);
  const sec = Math.round((ms % 60_000) / 1000);
  return `−${m} min${sec ? ` ${sec} s` : ''}`;
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
        quarter === 0 ? 'now' : rangeMs > 900_000 ? clock(end - ago) : minutesAgo(ago);
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
    hooks.render();
  });
}

let timelinesDrawn = 0;
/** Draws the strips of the terminals shown (`list`), or of the open one. */
export function renderTimelines(list) {
  // Redrawn every few seconds (time moves), and at once when records came.
  if (Date.now() - timelinesDrawn < 5000 && pendingTimelines === false) return;
  timelinesDrawn = Date.now();
  pendingTimelines = false;
  if (openId() === null) $('#timelines').replaceChildren(...list.map(timelineRow));
  else {
    const v = views.get(openId());
    $('#detail-timeline').replaceChildren(...(v ? [timelineRow(v)] : []));
  }
}
