// The grid: one row per terminal, in a stable order (by id); a change is highlighted in place.

import { $, views } from './state.js';
import {
  age,
  byId,
  howLong,
  hrefOf,
  needsPerson,
  now,
  paneGone,
  stateInWords,
  tone,
  unread,
  watchdogLeft,
} from './words.js';

export function matchesFilter(v) {
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
  const unverified = v.toolVersionVerified === false;
  const degraded = v.chatContext?.state === 'degraded';
  const reason = v.chatContext?.degradedErrorType ?? 'unknown';
  const text = `${v.toolVersion ? `${v.tool} ${v.toolVersion}` : v.tool}${unverified ? ' (unverified: not a release paneward was verified against)' : ''}${degraded ? ` (chat context degraded: ${reason})` : ''}`;
  if (td.title === text) return;
  td.title = text;
  const version = document.createElement('span');
  version.className = 'version';
  version.textContent = v.toolVersion ? ` ${v.toolVersion}` : '';
  const parts = [v.tool, version];
  if (unverified) {
    const mark = document.createElement('span');
    mark.className = 'unverified';
    mark.textContent = ' unverified';
    parts.push(mark);
  }
  // A small badge: the CLI says its chat context is in trouble (a failed compaction, ...).
  if (degraded) {
    const badge = document.createElement('span');
    badge.className = 'badge context-degraded';
    badge.textContent = 'context degraded';
    badge.title = reason;
    parts.push(' ', badge);
  }
  td.replaceChildren(...parts);
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

/** Draws the grid from `views`; answers the terminals, in order. */
export function renderGrid() {
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
  const gone = list.filter(paneGone).length;
  $('#count').textContent =
    `${list.length} terminal${list.length === 1 ? '' : 's'}` + (gone > 0 ? `, ${gone} gone` : '');
  $('#empty').hidden = list.length > 0;
  return list;
}

function addOptions(select, values) {
  for (const value of new Set(values)) {
    if (![...select.options].some((o) => o.value === value)) select.add(new Option(value, value));
  }
}
