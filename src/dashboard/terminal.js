// One terminal: its screen, its state in words and why, what can be done; then its charts.

import { $, hooks, openId, views } from './state.js';
import { request } from './api.js';
import { howLong, reasons, seen, stateInWords, tone } from './words.js';
import { timelinesChanged } from './timeline.js';

const WITNESS_WORDS = {
  surface: 'screen',
  record: 'session record',
  hook: 'hook',
  observer: 'completion observer',
  both: 'screen and record, hook or observer',
};

/** The session-record witness in a few words: the authority and where its record is. */
function recordWords(w) {
  const where = w.record === 'stepped_aside' ? `stepped aside: ${w.why}` : w.record;
  return `${where} (authority ${w.authority})`;
}

const CHARTS = ['readiness', 'turnPhase', 'lastTurn', 'completion', 'diagnostics', 'watchdog'];
const diagrams = new Map();

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

export function addTransitions(records, prepend) {
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

export function renderDetail() {
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
    `${v.terminalId} · ${v.target ?? ''} · ${v.tool}${v.toolVersion ? ` ${v.toolVersion}` : ''}${v.toolVersionVerified === false ? ' (unverified)' : ''}`,
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
    // Which witness decided it, where the CLI's session record is read (docs/witness.md).
    ...(v.lastTurn.witness ? [['decided by', WITNESS_WORDS[v.lastTurn.witness]]] : []),
    ...(v.witness ? [['record', recordWords(v.witness)]] : []),
    ['diagnostics', v.diagnostics.availability],
    // The chat context's health, with the reason when the CLI says it is in trouble.
    ...(v.chatContext?.state === 'degraded'
      ? [['chat context', `degraded (${v.chatContext.degradedErrorType ?? 'unknown'})`]]
      : []),
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
  drawQuestion(v);
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

/**
 * The dialog waiting for the operator as a question, with one button per choice: each answers
 * that very question (its id goes with the answer, so a dialog that changed is refused).
 */
function drawQuestion(v) {
  const q = v.surface.question;
  const box = $('#question');
  box.hidden = q === null;
  if (q === null) return;
  // The gate's verdict (a session the watchdog blocked takes no answer): the buttons follow it.
  const verdict = v.operations.answer;
  setText(
    $('#question-why'),
    verdict.allowed === 'yes' ? '' : `Not now: ${verdict.reason} (${verdict.allowed}).`,
  );
  const key = `${q.id} ${q.choices.map((c) => c.id).join(' ')}`;
  if (box.dataset.key !== key) {
    box.dataset.key = key;
    drawChoices(q);
  }
  for (const b of $('#question-choices').children) b.disabled = verdict.allowed !== 'yes';
}

/** One button per choice of question `q`, each answering that very question. */
function drawChoices(q) {
  setText(
    $('#question-text'),
    `Question ${q.id} (${q.kind})${q.subject ? `: ${q.subject}` : ''}` +
      (q.choices.length === 0 ? ' — not one paneward can answer; answer it in the pane.' : ''),
  );
  $('#question-choices').replaceChildren(
    ...q.choices.map((c) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = c.label;
      b.title = c.id;
      b.dataset.choice = c.id;
      b.addEventListener('click', () =>
        act(`answered ${c.id}`, 'POST', `/v1/terminals/${encodeURIComponent(openId())}/answer`, {
          questionId: q.id,
          choice: c.id,
          via: 'dashboard',
        }),
      );
      return b;
    }),
  );
}

export async function openTerminal() {
  clearInterval(screenTimer);
  const id = openId();
  timelinesChanged();
  hooks.render();
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
