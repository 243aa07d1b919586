/**
 * Records Gemini CLI's real screens against the fake model, one fixture pair per scenario:
 * `test/fixtures/gemini_cli/<scenario>.jsonl` (the recording) and `<scenario>.server.jsonl`
 * (the fake server's request log).
 * Usage: `npx tsx test/e2e/record/gemini_cli.ts [--size=COLSxROWS] [scenario ...]`; `--size`
 * overrides every chosen scenario's terminal size (default 120x40, or the scenario's own). The
 * scenarios are those of `gemini_cli-turns.ts`, then those of `gemini_cli-sessions.ts`.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeModelServer } from '../../../src/tooling/model-server/server.js';
import { geminiProtocol } from '../../../src/tooling/model-server/gemini.js';
import { geminiCliAgent, prepareGeminiCli } from '../../../src/tooling/agents/gemini_cli.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';
import { startRecorder, type Recorder } from '../../../src/observe/recorder.js';
import { geminiCliSessionRecord } from '../../../src/profiles/gemini_cli/session-record.js';
import { type Scenario, BANNER, READY, sleep } from './gemini_cli-scenario.js';
import { GEMINI_SESSIONS } from './gemini_cli-sessions.js';
import { GEMINI_TURNS } from './gemini_cli-turns.js';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const fixtures = join(repoRoot, 'test/fixtures/gemini_cli');
const scratch = join(repoRoot, '.tmp/record/gemini_cli');

/** Every scenario, in recording order. */
const scenarios: Record<string, Scenario> = { ...GEMINI_TURNS, ...GEMINI_SESSIONS };

async function record(
  name: string,
  scenario: Scenario,
  size?: { cols: number; rows: number },
): Promise<void> {
  mkdirSync(fixtures, { recursive: true });
  // With the session record, the folders live outside this repository: the CLIs write their
  // working folder's paths and Git state into their records.
  const dir =
    name.startsWith('record-') || scenario.outsideRepo
      ? join(tmpdir(), 'pw-record', 'gemini_cli', name)
      : join(scratch, name);
  rmSync(dir, { recursive: true, force: true });
  const serverLog = join(fixtures, `${name}.server.jsonl`);
  writeFileSync(serverLog, '');
  const server = await startFakeModelServer({ protocols: [geminiProtocol], logFile: serverLog });
  let session: AgentSession | undefined;
  let recorder: Recorder | undefined;
  try {
    const launch = prepareGeminiCli({
      cwd: join(dir, 'work'),
      home: join(dir, 'home'),
      baseUrl: server.url,
      ...(scenario.maxAttempts !== undefined ? { maxAttempts: scenario.maxAttempts } : {}),
      ...(scenario.settings ? { settings: scenario.settings } : {}),
      ...(scenario.trusted !== undefined ? { trusted: scenario.trusted } : {}),
      ...(scenario.selectAuth !== undefined ? { selectAuth: scenario.selectAuth } : {}),
      ...(scenario.relaunch ? { relaunch: true } : {}),
    });
    session = await startAgentSession({
      socketName: uniqueSocketName('pw-gemini_cli-rec'),
      cwd: launch.cwd,
      env: launch.env,
      command: launch.command,
      cols: size?.cols ?? scenario.cols ?? 120,
      rows: size?.rows ?? scenario.rows ?? 40,
      remainOnExit: scenario.remainOnExit ?? false,
    });
    recorder = startRecorder({
      transport: session.transport,
      target: session.target,
      tool: geminiCliAgent.tool,
      toolVersion: geminiCliAgent.version,
      processNames: ['gemini'],
      intervalMs: 250,
      file: join(fixtures, `${name}.jsonl`),
      // `record-<scenario>`: with the CLI's session record (docs/contracts.md §2).
      ...(!scenarios[name] && name.startsWith('record-')
        ? { sessionRecord: geminiCliSessionRecord }
        : {}),
    });
    if (!scenario.ownStartup) {
      // The prompt box is drawn before initialisation ends; keys sent before the banner can be lost.
      await session.waitForText(READY, 30_000);
      await session.waitForText(BANNER, 30_000);
      await sleep(1000);
    }
    await scenario.run({ server, session, recorder, cwd: launch.cwd });
  } finally {
    await recorder?.stop();
    await session?.close();
    await server.close();
  }
}

const args = process.argv.slice(2);
const sizeArg = args.find((a) => a.startsWith('--size='));
const sizeMatch = sizeArg ? /^--size=(\d+)x(\d+)$/.exec(sizeArg) : null;
if (sizeArg && !sizeMatch) throw new Error(`bad ${sizeArg}; expected --size=COLSxROWS`);
const size = sizeMatch ? { cols: Number(sizeMatch[1]), rows: Number(sizeMatch[2]) } : undefined;
const wanted = args.filter((a) => !a.startsWith('--'));
const names = wanted.length > 0 ? wanted : Object.keys(scenarios);
for (const name of names) {
  // `record-<scenario>` records the scenario with the session record, as record-<scenario>.jsonl.
  const scenario = scenarios[name] ?? scenarios[name.replace(/^record-/, '')];
  if (!scenario)
    throw new Error(`unknown scenario ${name}; known: ${Object.keys(scenarios).join(', ')}`);
  const t0 = Date.now();
  await record(name, scenario, size);
  console.log(`${name}: recorded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
