/**
 * Once around the whole test run: the tmux servers the tests start on sockets of their own are
 * killed by each test, but tmux leaves the socket file behind. After the run, every socket file
 * made during it whose server no longer answers is removed; a live server's, or one made
 * before the run, is left alone.
 */
import { lstatSync, readdirSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const socketDir = () =>
  join(process.env.TMUX_TMPDIR ?? tmpdir(), `tmux-${process.getuid?.() ?? 0}`);

/** Whether a server answers on the socket (a refused or failed connect: none does). */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

export function setup(): () => Promise<void> {
  const startedMs = Date.now();
  return async () => {
    const dir = socketDir();
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      try {
        const st = lstatSync(path);
        if (!st.isSocket() || st.birthtimeMs < startedMs - 1000) continue;
        if (!(await answers(path))) unlinkSync(path);
      } catch {
        // Gone already, or not ours to read.
      }
    }
  };
}
