/**
 * Records the real Claude Code CLI against the fake model server, one fixture per scenario:
 * `test/fixtures/claude_code/<scenario>.jsonl` (screens) and `<scenario>.server.jsonl` (ground truth).
 *
 *   npx tsx test/e2e/record/claude_code.ts [--size COLSxROWS] [--out DIR] [scenario ...]
 *
 * `--size` overrides every selected scenario's terminal size (default 160x45, or the scenario's own).
 * `--out` writes the fixtures into DIR instead: a newer CLI version's recordings go into
 * `test/fixtures/claude_code/<version>/`, beside the older ones. The scenarios are in
 * `claude_code-scenarios.ts`.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startRecorder, type Recorder } from '../../../src/observe/recorder.js';
import { claudeCodeSessionRecord } from '../../../src/profiles/claude_code/session-record.js';
import { claudeCodeFacts, prepareClaudeCode } from '../../../src/tooling/agents/claude_code.js';
import { anthropicProtocol } from '../../../src/tooling/model-server/anthropic.js';
import { startFakeModelServer } from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';
import { IDLE, sleep, type Ctx, type Scenario } from './claude_code-scenario.js';
import { SCENARIOS } from './claude_code-scenarios.js';

const FIXTURES = resolve('test/fixtures/claude_code');
const SCRATCH = resolve('.tmp/record/claude_code');
const DEFAULT_SIZE = { cols: 160, rows: 45 };

async function record(
  name: string,
  scenario: Scenario,
  sizeOverride: { cols: number; rows: number } | null,
  recordPieces: boolean,
  outDir: string,
): Promise<void> {
  const { cols, rows } = sizeOverride ?? scenario.size ?? DEFAULT_SIZE;
  // With the session record, the folders live outside this repository: the CLIs write their
  // working folder's paths and Git state into their records.
  const scratch = recordPieces
    ? join(tmpdir(), 'pw-record', 'claude_code', name)
    : join(SCRATCH, name);
  rmSync(scratch, { recursive: true, force: true });
  const file = join(outDir, `${name}.jsonl`);
  const serverLog = join(outDir, `${name}.server.jsonl`);
  writeFileSync(serverLog, '');
  const server = await startFakeModelServer({ protocols: [anthropicProtocol], logFile: serverLog });
  let session: AgentSession | null = null;
  let recorder: Recorder | null = null;
  try {
    const launch = prepareClaudeCode({
      home: join(scratch, 'home'),
      cwd: join(scratch, 'work'),
      baseUrl: server.url,
      maxRetries: scenario.maxRetries ?? 0,
      trustFolder: scenario.trustFolder ?? true,
      permissionMode: scenario.permissionMode === undefined ? 'default' : scenario.permissionMode,
      autoNudgeSeen: scenario.autoNudgeSeen ?? true,
    });
    const command = scenario.viaShell
      ? ['bash', '--norc', '-c', '"$0"; exec bash --norc -i', ...launch.command]
      : launch.command;
    const launchedAt = Date.now();
    session = await startAgentSession({
      socketName: uniqueSocketName('pw-claude_code-rec'),
      cols,
      rows,
      cwd: launch.cwd,
      env: launch.env,
      command,
      remainOnExit: true,
    });
    recorder = startRecorder({
      transport: session.transport,
      target: session.target,
      tool: claudeCodeFacts.tool,
      toolVersion: claudeCodeFacts.version,
      processNames: ['claude'],
      intervalMs: 250,
      file,
      // `record-<scenario>`: with the CLI's session record (docs/contracts.md §2).
      ...(recordPieces ? { sessionRecord: claudeCodeSessionRecord } : {}),
    });
    const s = session;
    const r = recorder;
    let startupMs: number | null = null;
    const ctx: Ctx = {
      server,
      session: s,
      recorder: r,
      async submit(text, recorded = text) {
        await s.sendText(text);
        await sleep(300);
        r.input(recorded);
        await s.sendKeys(...claudeCodeFacts.submitKeys);
      },
      async turnsEnded(count, timeoutMs = 60_000) {
        await server.waitFor((e) => e.streaming, { count, timeoutMs });
      },
      async idle(timeoutMs = claudeCodeFacts.startupTimeoutMs) {
        const screen = await s.waitForText(IDLE, timeoutMs);
        startupMs ??= Date.now() - launchedAt;
        return screen;
      },
    };
    await scenario.run(ctx);
    console.log(`${name}: ok at ${cols}x${rows} (start-up to idle prompt ${startupMs} ms)`);
  } finally {
    await recorder?.stop();
    await session?.close();
    await server.close();
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  let size: { cols: number; rows: number } | null = null;
  const at = args.indexOf('--size');
  if (at >= 0) {
    const m = /^(\d+)x(\d+)$/.exec(args[at + 1] ?? '');
    if (!m) throw new Error('--size wants COLSxROWS, e.g. 80x24');
    size = { cols: Number(m[1]), rows: Number(m[2]) };
    args.splice(at, 2);
  }
  let outDir = FIXTURES;
  const outAt = args.indexOf('--out');
  if (outAt >= 0) {
    const dir = args[outAt + 1];
    if (!dir || dir.startsWith('--'))
      throw new Error('--out wants a folder, e.g. test/fixtures/claude_code/2.1.332');
    outDir = resolve(dir);
    args.splice(outAt, 2);
  }
  const names = args;
  const selected = names.length > 0 ? names : Object.keys(SCENARIOS);
  // `record-<scenario>` records the scenario with the session record, as record-<scenario>.jsonl.
  const scenarioOf = (n: string) => SCENARIOS[n] ?? SCENARIOS[n.replace(/^record-/, '')];
  const unknown = selected.filter((n) => !scenarioOf(n));
  if (unknown.length > 0) throw new Error(`unknown scenario(s): ${unknown.join(', ')}`);
  mkdirSync(outDir, { recursive: true });
  for (const name of selected) {
    const pieces = !SCENARIOS[name] && name.startsWith('record-');
    await record(name, scenarioOf(name)!, size, pieces, outDir);
  }
}

await main();
