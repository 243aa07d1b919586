/**
 * Format output that lost its tab separators (how tmux 3.3a prints for a client that takes no
 * UTF-8) is an error that says so, never "no panes": a real tmux, reached through a wrapper that
 * drops paneward's `-u` and every locale variable, prints it that way.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPanes } from '../../src/observe/discover.js';
import { createExecaTransport } from '../../src/observe/execa-transport.js';
import { probePane } from '../../src/observe/probe.js';
import type { TmuxTransport } from '../../src/observe/transport.js';
import { createSupervisor, type Supervisor } from '../../src/supervisor/supervisor.js';
import { uniqueSocketName } from '../e2e/harness/session.js';

describe('tmux format output without its separators', () => {
  const socketName = uniqueSocketName('loc-garbled');
  let dir = '';
  let garbled: TmuxTransport;
  let sup: Supervisor | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pw-garbled-'));
    const wrapper = join(dir, 'tmux-no-utf8');
    writeFileSync(
      wrapper,
      [
        '#!/bin/sh',
        '[ "$1" = -u ] && shift',
        'exec env -u LANG -u LC_ALL -u LC_CTYPE tmux "$@"',
        '',
      ].join('\n'),
    );
    chmodSync(wrapper, 0o755);
    await execa('tmux', [
      ...['-L', socketName, '-f', '/dev/null', 'new-session', '-d', '-s', 'wörk'],
      ...['sh', '-c', 'exec cat'],
    ]);
    garbled = createExecaTransport({ socketName, tmuxBinary: wrapper });
  });

  afterAll(async () => {
    await sup?.stop();
    await garbled?.close();
    await execa('tmux', ['-L', socketName, 'kill-server'], { reject: false });
    rmSync(dir, { recursive: true, force: true });
  });

  it('makes listing the panes fail, naming what tmux answered', async () => {
    await expect(listPanes(garbled)).rejects.toMatchObject({
      code: 'tmux_failed',
      message: expect.stringMatching(
        /^tmux list-panes answered "%0_w_rk_0_0_\d+_0_[a-z]+_cat" without its tab separators/,
      ),
    });
    // The same server through paneward's own transport: read whole.
    const transport = createExecaTransport({ socketName });
    expect((await listPanes(transport)).map((p) => p.target)).toEqual(['wörk:0.0']);
  });

  it("makes a pane's probe an error that says the separators are gone", async () => {
    const probe = await probePane(garbled, 'wörk:0.0', { processNames: ['cat'] });
    expect(probe.transport).toBe('probe_error');
    expect(probe.error?.message).toMatch(
      /^tmux display-message answered "%0_\d+_0_80_24_cat" without its tab separators/,
    );
  });

  it('spawn: a CLI whose pane cannot be read is not left running; the error says why', async () => {
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    symlinkSync('/bin/cat', join(bin, 'claude'));
    const spawner = createSupervisor({ transport: garbled, dataDir: null });
    try {
      await expect(
        spawner.spawn({
          tool: 'claude_code',
          session: 'spawned',
          cwd: dir,
          env: { PATH: `${bin}:/usr/bin:/bin` },
          readyTimeoutSeconds: 5,
        }),
      ).rejects.toThrow(/without its tab separators/);
    } finally {
      await spawner.stop();
    }
    const sessions = await execa('tmux', [
      '-L',
      socketName,
      'list-sessions',
      '-F',
      '#{session_name}',
    ]);
    expect(sessions.stdout).toBe('wörk');
  });

  it("tells continuous discovery's failure once, instead of finding nothing", async () => {
    sup = createSupervisor({ transport: garbled, dataDir: null });
    const told: string[] = [];
    sup.discoverContinuously(0.2, (e) => told.push((e as Error).message));
    await new Promise((r) => setTimeout(r, 1500));
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/without its tab separators/);
    expect(sup.ids()).toEqual([]);
  });
});
