/**
 * The opencode plugin `paneward hooks install opencode` writes (docs/hooks.md). opencode runs
 * plugins in its own process and hands them its events; this one posts the turn's start and
 * end to the local service, without awaiting (it never holds opencode up) and never throwing.
 *
 * opencode 1.18.33 tells a turn as `session.status` busy, then for an interruption
 * `session.error` (`MessageAbortedError`) or for an API error `session.error` (`APIError`), and
 * always `session.idle` at the end: an idle with no error since busy is a finished reply. Kilo
 * 7.7.7, its fork, tells them alike.
 */
export const OPENCODE_PLUGIN_MARK =
  '// paneward hook: `paneward hooks uninstall` removes this file';

/** The plugin for opencode, or for Kilo (its fork, the same events), posting as that tool. */
export function opencodePlugin(o: {
  url: string;
  tokenFile?: string;
  /** A shipped profile's id (opencode, kilo), never a caller's string. */
  tool?: string;
}): string {
  return `${OPENCODE_PLUGIN_MARK}
import { Buffer } from 'node:buffer';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

const URL_ = ${JSON.stringify(new URL(`/v1/hooks/${o.tool ?? 'opencode'}`, o.url).href)};
const TOKEN_FILE = ${JSON.stringify(o.tokenFile ?? null)};
const NAME = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;

// Only a regular file of at most 4096 bytes, opened non-blocking (a FIFO holds nothing up).
function readToken(file) {
  let fd;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return '';
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > 4096) return '';
    const buf = Buffer.alloc(4097);
    let n = 0;
    for (let got = 1; got > 0 && n <= 4096; n += got) got = readSync(fd, buf, n, buf.length - n, null);
    return n > 4096 ? '' : buf.subarray(0, n).toString('utf8').trim();
  } catch {
    return '';
  } finally {
    closeSync(fd);
  }
}

function post(event, error) {
  try {
    const pane = process.env.TMUX_PANE ?? '';
    const tmux = process.env.TMUX ?? '';
    if (!/^%\\d+$/.test(pane) || tmux === '') return;
    const token = TOKEN_FILE ? readToken(TOKEN_FILE) : (process.env.PANEWARD_TOKEN ?? '').trim();
    const headers = { 'content-type': 'application/json', 'x-paneward': '1' };
    if (token) headers.authorization = 'Bearer ' + token;
    const body = { event, pane, tmux };
    if (typeof error === 'string' && NAME.test(error)) body.error = error;
    fetch(URL_, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(1500) }).catch(() => {});
  } catch {}
}

export const PanewardHook = async () => {
  let busy = false;
  let errored = false;
  return {
    event: async ({ event }) => {
      try {
        const p = event?.properties ?? {};
        if (event.type === 'session.status' && p.status?.type === 'busy' && !busy) {
          busy = true;
          errored = false;
          post('session.busy');
        } else if (event.type === 'session.error' && busy && !errored) {
          errored = true;
          post('session.error', p.error?.name);
        } else if (event.type === 'session.idle' && busy) {
          busy = false;
          if (!errored) post('session.idle');
        }
      } catch {}
    },
  };
};
`;
}
