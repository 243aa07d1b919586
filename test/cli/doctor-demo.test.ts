/**
 * `paneward doctor` after `paneward demo`, on real tmux: the demo's own data directory and tmux
 * server look healthy while it runs, and once it has stopped, doctor on a data directory nothing
 * was supervised with (the demo never writes to the default one) exits 0 and says why there is
 * no journal.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { diagnose, formatDoctor } from '../../src/cli/doctor.js';
import { startDemo } from '../../src/tooling/demo/demo.js';

const BIN = fileURLToPath(new URL('../../bin/paneward.js', import.meta.url));
const socketName = `pw-doctor-demo-${process.pid}`;
const state = mkdtempSync(join(tmpdir(), 'pw-doctor-state-'));
afterAll(() => rmSync(state, { recursive: true, force: true }));

describe('paneward doctor after paneward demo', () => {
  it('finds no problem while the demo runs, and exits 0 after it stopped', async () => {
    const demo = await startDemo({ port: 0, socketName, logLevel: 'silent' });
    let dataDir = '';
    try {
      const sup = demo.serve.supervisor!;
      dataDir = dirname(sup.journal.directory!);
      // What the demo recorded is on disk before it is read.
      await sup.journal.flush();
      const report = await diagnose({ dataDir, socketName });
      expect(report.terminals.map((t) => [t.terminalId, t.pane, t.verified])).toEqual(
        demo.terminals.map((id) => [id, 'running', 'yes']),
      );
      expect(report.problems).toEqual([]);
    } finally {
      await demo.stop();
    }
    // The user's own data directory (XDG_STATE_HOME) and the demo's socket, as they would type it.
    const run = await new Promise<{ code: number; out: string }>((resolve) =>
      execFile(
        process.execPath,
        [BIN, 'doctor', '-L', socketName],
        { env: { ...process.env, XDG_STATE_HOME: state } },
        (error, stdout, stderr) =>
          resolve({ code: error ? (error.code as number) : 0, out: stdout + stderr }),
      ),
    );
    expect(run.out).toContain(
      `No journal in ${join(state, 'paneward')}: nothing has been supervised with this data directory yet`,
    );
    expect(run.out).toContain('No problems found.');
    expect(run.code).toBe(0);
    // The demo's own folder is gone with it: no journal there either, and no problem.
    expect(formatDoctor(await diagnose({ dataDir, socketName }))).toContain('No problems found.');
  }, 180_000);
});
