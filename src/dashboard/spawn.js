// The grid page's spawn form: start an agent CLI in a new tmux window (POST /v1/terminals
// {spawn}); the new terminal joins the grid through the record stream like any other. A server
// may offer a folder and an environment per tool (GET /v1/spawn-presets: `paneward demo` offers
// each installed CLI's offline set-up); choosing a tool fills them in, and both can be edited.

import { $ } from './state.js';
import { request } from './api.js';

const form = $('#spawn-form');
const status = $('#spawn-status');
const toolSelect = $('#spawn-tool');
const cwdInput = $('#spawn-cwd');
const envInput = $('#spawn-env');

let presets = {};

/** `KEY=VALUE` lines (blank lines and `#` comments skipped) as an object; throws naming the line. */
export function parseEnv(text) {
  const env = {};
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const eq = line.indexOf('=');
    if (eq <= 0) {
      throw new Error(`environment, line ${i + 1}: "${line}" is not KEY=VALUE`);
    }
    env[line.slice(0, eq)] = line.slice(eq + 1);
  });
  return env;
}

/** Fills the folder and environment with the server's preset for the chosen tool, if it has one. */
function applyPreset() {
  const p = presets[toolSelect.value];
  if (!p) return;
  cwdInput.value = p.cwd ?? '';
  envInput.value = Object.entries(p.env ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
  envInput.rows = Math.min(12, Math.max(3, envInput.value.split('\n').length));
}

async function loadPresets() {
  try {
    presets = (await request('GET', '/v1/spawn-presets')).presets ?? {};
  } catch {
    presets = {};
  }
  // The first tool with a preset is the one offered.
  const first = Object.keys(presets)[0];
  if (first && !presets[toolSelect.value]) toolSelect.value = first;
  for (const o of toolSelect.options) o.dataset.preset = presets[o.value] ? 'yes' : 'no';
  applyPreset();
  form.dataset.presets = String(Object.keys(presets).length);
}

toolSelect?.addEventListener('change', applyPreset);
if (form) void loadPresets();

form?.addEventListener('submit', async (e) => {
  e.preventDefault();
  const tool = toolSelect.value;
  const cwd = cwdInput.value.trim();
  const name = $('#spawn-name').value.trim();
  let env;
  try {
    env = parseEnv(envInput.value);
  } catch (error) {
    status.dataset.state = 'error';
    status.textContent = error.message;
    return;
  }
  const spawn = {
    tool,
    ...(cwd ? { cwd } : {}),
    ...(name ? { name } : {}),
    ...(Object.keys(env).length > 0 ? { env } : {}),
  };
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
