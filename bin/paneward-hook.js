#!/usr/bin/env node
// The hook `paneward hooks install` writes into an agent CLI's settings (docs/hooks.md): posts
// the CLI's event (its name, and a failure's kind) with the pane it runs in to the local
// service, and nothing else. It must never block or break the CLI: it prints nothing, always
// exits 0, and gives up after a bounded time when the service is down or slow.
//
//   paneward-hook.js <tool> --url <service URL> [--token-file <file>] [<event JSON>]
//
// The event comes as JSON on stdin (Claude Code) or as the last argument (a `notify` program).
// The token is read when the hook runs: from --token-file, else PANEWARD_TOKEN.
/* global fetch, AbortSignal */
import { Buffer } from 'node:buffer';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { URL } from 'node:url';

const GIVE_UP_MS = 2000;
const POST_TIMEOUT_MS = 1500;
const STDIN_MS = 500;
const MAX_STDIN = 1 << 20;
const MAX_TOKEN = 4096;
const NAME = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;

// Whatever happens, the CLI gets its hook back quickly and clean.
setTimeout(() => process.exit(0), GIVE_UP_MS).unref();

function option(args, name) {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

/** Stdin as text, at most MAX_STDIN bytes and STDIN_MS; '' when it is a terminal or absent. */
function readStdin() {
  if (process.stdin.isTTY) return Promise.resolve('');
  return new Promise((resolve) => {
    const chunks = [];
    let size = 0;
    const done = () => {
      clearTimeout(timer);
      process.stdin.pause();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const timer = setTimeout(done, STDIN_MS);
    process.stdin.on('data', (c) => {
      size += c.length;
      if (size <= MAX_STDIN) chunks.push(c);
      else done();
    });
    process.stdin.on('end', done);
    process.stdin.on('error', done);
  });
}

function parse(text) {
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' ? v : null;
  } catch {
    return null;
  }
}

/**
 * The token file's text: a regular file of at most MAX_TOKEN bytes only (a symbolic link to one
 * is followed), opened non-blocking so a FIFO cannot hold the hook (nor the CLI) up; '' else.
 */
function readTokenFile(file) {
  let fd;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return '';
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_TOKEN) return '';
    const buf = Buffer.alloc(MAX_TOKEN + 1);
    let n = 0;
    for (let got = 1; got > 0 && n <= MAX_TOKEN; n += got) {
      got = readSync(fd, buf, n, buf.length - n, null);
    }
    return n > MAX_TOKEN ? '' : buf.subarray(0, n).toString('utf8').trim();
  } catch {
    return '';
  } finally {
    closeSync(fd);
  }
}

function token(args) {
  const file = option(args, '--token-file');
  if (file) return readTokenFile(file);
  return (process.env.PANEWARD_TOKEN ?? '').trim();
}

async function main() {
  const args = process.argv.slice(2);
  const tool = args[0];
  const url = option(args, '--url');
  const pane = process.env.TMUX_PANE ?? '';
  const tmux = process.env.TMUX ?? '';
  // Not in a tmux pane, or not told where to post: nothing to do.
  if (!tool || !url || !/^%\d+$/.test(pane) || tmux === '') return;
  const last = args.at(-1) ?? '';
  const payload = (last.startsWith('{') ? parse(last) : null) ?? parse(await readStdin());
  if (!payload) return;
  // Claude Code names its event `hook_event_name`, Cline `hookName`; a `notify` program's JSON
  // names it `type`.
  const event = payload.hook_event_name ?? payload.hookName ?? payload.type;
  if (typeof event !== 'string' || !NAME.test(event)) return;
  const body = { event, pane, tmux };
  if (typeof payload.error === 'string' && NAME.test(payload.error)) body.error = payload.error;
  const headers = { 'content-type': 'application/json', 'x-paneward': '1' };
  const bearer = token(args);
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  await fetch(new URL(`/v1/hooks/${encodeURIComponent(tool)}`, url), {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(POST_TIMEOUT_MS),
  });
}

main()
  .catch(() => undefined)
  .finally(() => process.exit(0));
