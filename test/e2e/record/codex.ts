/**
 * Records the real Codex CLI against the fake model server, one fixture per scenario:
 * `test/fixtures/codex/<scenario>.jsonl` (screens) and `<scenario>.server.jsonl` (ground truth).
 *
 *   npx tsx test/e2e/record/codex.ts [--out DIR] [scenario ...]
 *
 * `--out DIR` writes the fixtures there instead: a release other than the one whose recordings
 * are in `test/fixtures/codex/` is recorded into `test/fixtures/codex/<version>/`, so the older
 * recordings stay. With no scenario named, every scenario is recorded (not the `record-` ones):
 * those of `codex-turns.ts`, then those of `codex-sessions.ts`.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startRecorder, type Recorder } from '../../../src/observe/recorder.js';
import { codexSessionRecord } from '../../../src/profiles/codex/session-record.js';
import {
  codexAgent,
  installedDaemonPackages,
  prepareCodex,
  stopCodexDaemons,
} from '../../../src/tooling/agents/codex.js';
import { openaiProtocol } from '../../../src/tooling/model-server/openai.js';
import { startFakeModelServer } from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';
import {
  CONTEXT_WINDOW,
  EMPTY_COMPOSER,
  isTurn,
  MODEL_FOOTER,
  sleep,
  WORKING,
  type Ctx,
  type Scenario,
} from './codex-scenario.js';
import { CODEX_SESSIONS } from './codex-sessions.js';
import { CODEX_TURNS } from './codex-turns.js';

/** Where the fixtures are written: `--out DIR`, else `test/fixtures/codex/`. */
let FIXTURES = resolve('test/fixtures/codex');
const SCRATCH = resolve('.tmp/record/codex');
/** The size of the first recordings; a scenario may ask for another. */
const COLS = 120;
const ROWS = 40;

/** Every scenario, in recording order. */
const SCENARIOS: Record<string, Scenario> = { ...CODEX_TURNS, ...CODEX_SESSIONS };

async function record(
  name: string,
  scenario: Scenario,
  daemonPackages: string | null,
): Promise<void> {
  // With the session record, the folders live outside this repository: the CLIs write their
  // working folder's paths and Git state into their records.
  // Not under the temporary folder either: Codex warns that it will not put its helpers there.
  const scratch = name.startsWith('record-')
    ? join(homedir(), '.cache', 'pw-record', 'codex', name)
    : join(SCRATCH, name);
  rmSync(scratch, { recursive: true, force: true });
  // Outside this repository when the scenario needs a folder that is not in a Git project.
  const workDir = scenario.providerOnly
    ? join(tmpdir(), `paneward-record-codex-${name}`)
    : join(scratch, 'work');
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(FIXTURES, { recursive: true });
  const serverLog = join(FIXTURES, `${name}.server.jsonl`);
  // Created empty, so a scenario without model requests still has its ground truth.
  writeFileSync(serverLog, '');
  const server = await startFakeModelServer({ protocols: [openaiProtocol], logFile: serverLog });
  const launch = prepareCodex({
    scratchDir: scratch,
    workDir,
    serverUrl: server.url,
    trusted: !scenario.untrusted,
    providerOnly: scenario.providerOnly ?? false,
    // A returning user's home has the background server installed; a new user's has not.
    daemonPackages: scenario.providerOnly ? null : daemonPackages,
    ...(scenario.longContext ? { providerName: 'OpenAI', contextWindow: CONTEXT_WINDOW } : {}),
  });
  const command = scenario.viaShell
    ? [
        'bash',
        '--noprofile',
        '--norc',
        '-c',
        `${launch.command.join(' ')}; exec bash --noprofile --norc -i`,
      ]
    : launch.command;
  let session: AgentSession | undefined;
  let recorder: Recorder | undefined;
  try {
    session = await startAgentSession({
      socketName: uniqueSocketName('pw-codex'),
      cols: scenario.cols ?? COLS,
      rows: scenario.rows ?? ROWS,
      cwd: launch.cwd,
      env: { ...launch.env, PS1: '$ ' },
      command,
      remainOnExit: scenario.remainOnExit ?? false,
    });
    recorder = startRecorder({
      transport: session.transport,
      target: session.target,
      tool: codexAgent.tool,
      toolVersion: codexAgent.version,
      processNames: codexAgent.processNames,
      intervalMs: 250,
      file: join(FIXTURES, `${name}.jsonl`),
      // `record-<scenario>`: with the CLI's session record (docs/contracts.md §2).
      ...(!SCENARIOS[name] && name.startsWith('record-')
        ? { sessionRecord: codexSessionRecord }
        : {}),
    });
    const s = session;
    const r = recorder;
    let sessionUp = false;
    const ctx: Ctx = {
      server,
      session: s,
      recorder: r,
      scratch,
      async submit(text) {
        await ctx.idle();
        await s.sendText(text);
        await s.waitForText(
          new RegExp(`^› ${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'),
          5000,
        );
        await sleep(300);
        r.input(text);
        await s.sendKeys(...codexAgent.submitKeys);
      },
      async turnsEnded(count, timeoutMs = 60_000) {
        await server.waitFor(isTurn, { count, timeoutMs });
      },
      async idle(timeoutMs = 30_000) {
        // The box is drawn before it takes input: require the same idle screen for 1.5 s, once
        // the session is up (the model footer drawn at least once).
        const deadline = Date.now() + timeoutMs;
        let last = '';
        let since = Date.now();
        for (;;) {
          const screen = await s.capture();
          if (MODEL_FOOTER.test(screen)) sessionUp = true;
          const ready = sessionUp && EMPTY_COMPOSER.test(screen) && !WORKING.test(screen);
          if (screen !== last || !ready) {
            last = screen;
            since = Date.now();
          } else if (Date.now() - since >= 1500) {
            return screen;
          }
          if (Date.now() > deadline)
            throw new Error(`codex not idle within ${timeoutMs} ms:\n${screen}`);
          await sleep(100);
        }
      },
    };
    await scenario.run(ctx);
  } finally {
    await recorder?.stop();
    await session?.close();
    await stopCodexDaemons(scratch);
    await server.close();
  }
}

async function main(): Promise<void> {
  const requested = process.argv.slice(2);
  const out = requested.indexOf('--out');
  if (out >= 0) {
    const dir = requested[out + 1];
    if (dir === undefined || dir.startsWith('--')) throw new Error('--out: needs a folder');
    FIXTURES = resolve(dir);
    requested.splice(out, 2);
  }
  const selected = requested.length > 0 ? requested : Object.keys(SCENARIOS);
  // `record-<scenario>` records the scenario with the session record, as record-<scenario>.jsonl.
  const scenarioOf = (n: string) => SCENARIOS[n] ?? SCENARIOS[n.replace(/^record-/, '')];
  for (const name of selected) {
    if (!scenarioOf(name))
      throw new Error(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(', ')}`);
  }
  const daemonPackages = await installedDaemonPackages();
  for (const name of selected) {
    process.stdout.write(`recording ${name}... `);
    await record(name, scenarioOf(name)!, daemonPackages);
    process.stdout.write('done\n');
  }
}

await main();
