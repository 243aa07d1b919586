// Talking to the server: JSON requests with the token, and what the header says of the connection.

import { $, hooks } from './state.js';

let token = sessionStorage.getItem('paneward.token') ?? '';

/** Headers that carry the token, when there is one. */
export const auth = () => (token ? { authorization: `Bearer ${token}` } : {});

// ---------------------------------------------------------------------------------------------
// Talking to the server

export class HttpError extends Error {
  constructor(status, error) {
    super(error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = error?.code ?? `http_${status}`;
  }
}

export async function request(method, path, body) {
  // The service refuses an action that carries neither a JSON body nor this header.
  const headers = { 'x-paneward': '1', ...auth() };
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
export async function health() {
  const res = await fetch('/healthz', {
    headers: auth(),
  });
  if (res.status === 401) needToken();
  const data = await res.json().catch(() => null);
  if (!res.ok && !(res.status === 503 && data?.journal))
    throw new HttpError(res.status, data?.error);
  return data;
}

export function needToken() {
  setConnection('unauthorized', 'a token is needed');
  $('#token-form').hidden = false;
}

$('#token-form').addEventListener('submit', (e) => {
  e.preventDefault();
  token = $('#token').value.trim();
  sessionStorage.setItem('paneward.token', token);
  $('#token-form').hidden = true;
  hooks.restart();
});

export function setConnection(state, text) {
  const el = $('#connection');
  el.dataset.state = state;
  el.textContent = text ?? state;
}
