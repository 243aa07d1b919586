/**
 * Version drift with the real Claude Code: the pinned build, installed as a package that says
 * it is a release paneward has not verified (2.2.0). By default paneward reads the version from
 * the running CLI, reads its screens with the newest vocabulary and marks the terminal
 * unverified (`toolVersionVerified: false`); a prompt's turn ends in a success as with a
 * verified release. It records an anomaly naming the tool and version, and `paneward doctor`
 * reports it. Under the strict gate (`verifiedOnly`, `--verified-only`) the same pane is not
 * read at all: never ready.
 */
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupervisor, type Supervisor } from '../../../src/index.js';
import { verifiedVersionsOf } from '../../../src/profiles/index.js';
import type { TerminalState } from '../../../src/schemas/terminal-state.js';
import { CLAUDE_CODE_BIN, prepareClaudeCode } from '../../../src/tooling/agents/claude_code.js';
import { anthropicProtocol } from '../../../src/tooling/model-server/anthropic.js';
import {
  startFakeModelServer,
  type FakeModelServer,
} from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';

const BIN = fileURLToPath(new URL('../../../bin/paneward.js', import.meta.url));
const SCRATCH = resolve('.tmp/e2e-drift-claude');
const NEWER = '2.2.0';
const missing = !existsSync(CLAUDE_CODE_BIN);

/** The installed package again, as release 2.2.0: same executable (a hard link), new number. */
function newerInstall(): string {
  const real = resolve(dirname(CLAUDE_CODE_BIN), '../@anthropic-ai/claude-code');
  const pkg = join(SCRATCH, 'install/node_modules/@anthropic-ai/claude-code');
  mkdirSync(join(pkg, 'bin'), { recursive: true });
  const meta = JSON.parse(readFileSync(join(real, 'package.json'), 'utf8')) as object;
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ ...meta, version: NEWER }));
  linkSync(join(real, 'bin/claude.exe'), join(pkg, 'bin/claude.exe'));
  return join(pkg, 'bin/claude.exe');
}

describe.skipIf(missing && !process.env.CI)('a Claude Code newer than the verified one', () => {
  const socketName = uniqueSocketName('pw-drift');
  const dataDir = join(SCRATCH, 'data');
  let model: FakeModelServer;
  let agent: AgentSession;
  let sup: Supervisor;

  beforeAll(async () => {
    if (missing) throw new Error(`Claude Code is not installed at ${CLAUDE_CODE_BIN}`);
    rmSync(SCRATCH, { recursive: true, force: true });
    model = await startFakeModelServer({ protocols: [anthropicProtocol] });
    const launch = prepareClaudeCode({
      home: join(SCRATCH, 'home'),
      cwd: join(SCRATCH, 'work'),
      baseUrl: model.url,
      bin: newerInstall(),
    });
    agent = await startAgentSession({ socketName, cols: 160, rows: 45, ...launch });
    await agent.waitForText(/❯/, 60_000);
  }, 90_000);

  afterAll(async () => {
    await sup?.stop();
    await agent?.close();
    await model?.close();
    rmSync(SCRATCH, { recursive: true, force: true });
  });

  const until = (id: string, pred: (s: TerminalState) => boolean, ms = 15_000) =>
    firstValueFrom(sup.state$(id).pipe(filter(pred), timeout(ms)));

  it('reads the version from the running CLI, reads its screens, and marks it unverified', async () => {
    sup = createSupervisor({ socketName, dataDir, config: { pollIntervalSeconds: 0.25 } });
    const id = await sup.attach({ target: agent.target, tool: 'claude_code', id: 'drift' });
    const s = await until(id, (v) => v.toolVersion === NEWER && v.readiness.status === 'ready');
    expect(s.tool).toBe('claude_code');
    expect(s.toolVersionVerified).toBe(false);
    expect(s.surface.acceptingInput).toBe('yes');
    // A turn is read to its end as with a verified release.
    const turnId = await sup.submit(id, 'say hello');
    const done = await until(
      id,
      (v) => v.lastTurn.turnId === turnId && v.lastTurn.result !== 'none',
      60_000,
    );
    expect(done.lastTurn.result).toBe('success');
    expect(done.toolVersionVerified).toBe(false);
    await sup.stop();
  });

  it('paneward doctor names the pane, the CLI, its version, and says it is not verified', async () => {
    const args = [BIN, 'doctor', '--data-dir', dataDir, '-L', socketName];
    const run = await execa(process.execPath, args, { reject: false });
    expect(run.exitCode).toBe(1);
    // The pane is there and runs Claude Code, whose package says 2.2.0.
    const verified = verifiedVersionsOf('claude_code').join(', ');
    expect(run.stdout).toMatch(
      new RegExp(
        `drift\\s+\\S+\\s+running\\s+claude_code\\s+2\\.2\\.0\\s+no \\(newer; verified ${verified.replace(/\./g, '\\.')}\\)`,
      ),
    );
    expect(run.stdout).toContain('read with the newest vocabulary, not verified');
    const json = await execa(process.execPath, [...args, '--json'], { reject: false });
    const report = JSON.parse(json.stdout) as {
      terminals: Array<{ terminalId: string; verified: string; unrecognisedFrames: number }>;
    };
    expect(report.terminals).toEqual([
      expect.objectContaining({ terminalId: 'drift', verified: 'newer', pane: 'running' }),
    ]);
    const journal = await execa(process.execPath, [BIN, 'journal', '--data-dir', dataDir]);
    expect(journal.stdout).toContain(
      `version_unverified claude_code 2.2.0 (verified: ${verified}; screens read: nearest_vocabulary)`,
    );
    // Three CLI runs: from the sources (through tsx) when the build is older than them.
  }, 90_000);

  it('under verifiedOnly (--verified-only) the same pane is not read: never ready', async () => {
    sup = createSupervisor({
      socketName,
      dataDir,
      verifiedOnly: true,
      config: { pollIntervalSeconds: 0.25 },
    });
    const states: TerminalState[] = [];
    const all = sup.state$('drift').subscribe((v) => states.push(v));
    await until('drift', (v) => v.toolVersion === NEWER);
    await new Promise((r) => setTimeout(r, 4000));
    all.unsubscribe();
    // Not even before the version was known: it is read before the first frame.
    expect(states.map((v) => v.readiness.status)).not.toContain('ready');
    expect(sup.get('drift').surface.uiContext).toBe('unrecognised');
    expect(sup.get('drift').toolVersionVerified).toBe(false);
  });
});
