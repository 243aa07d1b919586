// The grid page's spawn form: start an agent CLI in a new tmux window (POST /v1/terminals
// {spawn}); the new terminal joins the grid through the record stream like any other.

import { $ } from './state.js';
import { request } from './api.js';

const form = $('#spawn-form');
const status = $('#spawn-status');

form?.addEventListener('submit', async (e) => {
  e.preventDefault();
  const tool = $('#spawn-tool').value;
  const cwd = $('#spawn-cwd').value.trim();
  const name = $('#spawn-name').value.trim();
  const spawn = { tool, ...(cwd ? { cwd } : {}), ...(name ? { name } : {}) };
  const button = form.querySelector('button');
  button.disabled = true;
  status.dataset.state = 'starting';
  status.textContent = `starting ${tool}…`;
  try {
    const v = await request('POST', '/v1/terminals', { spawn });
    status.dataset.state = 'done';
    status.textContent = `${v.terminalId}: ${v.readiness.status}`;
  } catch (error) {
    status.dataset.state = 'error';
    status.textContent = error.message;
  } finally {
    button.disabled = false;
  }
});
