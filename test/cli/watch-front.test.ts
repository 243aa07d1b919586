import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { EXIT } from '../../src/cli/exit.js';
import { main } from '../../src/cli/main.js';
import { livePrinter } from '../../src/cli/watch.js';
import type { TerminalState } from '../../src/schemas/terminal-state.js';
import { readJsonLines, replayRecording } from '../../src/replay/replay.js';

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

describe('what watch prints of a live terminal', () => {
  it('no line for the placeholder state a pipeline starts from (it printed as "0.000s"), and "detecting" for a tool not known yet', () => {
    const states: TerminalState[] = [];
    replayRecording(readJsonLines('test/fixtures/claude_code/permission-prompt.jsonl'), (s) =>
      states.push(s),
    );
    // Live, observation time is the time of day; the pipeline's first state, before any
    // sample, has none (t = 0) and the tool the terminal was attached with.
    const epoch = 1_795_735_000;
    const live = states.map((s) => ({ ...s, target: '%1', t: s.t + epoch }));
    const placeholder = {
      ...live[0]!,
      t: 0,
      tool: 'auto',
      readiness: { status: 'waiting' as const, since: null },
    };
    for (const format of ['brief', 'json'] as const) {
      const out: string[] = [];
      const print = livePrinter(format, (l) => out.push(l));
      print(live[0]!);
      print(placeholder);
      print({ ...live[1]!, tool: 'auto' });
      expect(out.length).toBe(2);
      if (format === 'brief') {
        expect(out.some((l) => /^\s*0\.000s/.test(l))).toBe(false);
        expect(out[1]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} replay %1 detecting /);
      } else {
        expect(out.map((l) => (JSON.parse(l) as TerminalState).t)).not.toContain(0);
      }
    }
  });
});
