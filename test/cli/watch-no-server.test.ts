import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { EXIT } from '../../src/cli/exit.js';
import { main } from '../../src/cli/main.js';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((c) => ((out += String(c)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((c) => ((err += String(c)), true));
  try {
    return { code: await main(argv), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

describe('paneward watch with no tmux server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pw-watch-none-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('says so, with the socket and how to start one, and exits 4 instead of waiting in silence', async () => {
    const socket = `cli-none-${process.pid}`;
    const started = Date.now();
    const r = await cli('watch', '-L', socket, '--discover');
    expect(r).toEqual({
      code: EXIT.unreachable,
      out: '',
      err: `paneward: no tmux server on socket ${socket} (-L ${socket}): start one (tmux -L ${socket} new-session), or name the socket the agents run on with -L or -S\n`,
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('names a socket path the same way, also when panes are named', async () => {
    const path = join(dir, 'no.sock');
    const r = await cli('watch', '-S', path, 'work:0.0');
    expect(r.code).toBe(EXIT.unreachable);
    expect(r.err).toBe(
      `paneward: no tmux server on socket ${path} (-S): start one (tmux -S ${path} new-session), or name the socket the agents run on with -L or -S\n`,
    );
  });
});
