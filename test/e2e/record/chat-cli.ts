/**
 * Records a real OpenAI-compatible agent CLI against the fake Chat Completions server, one
 * fixture per scenario: `test/fixtures/<tool>/<scenario>.jsonl` (screens) and
 * `<scenario>.server.jsonl` (the server's request log, the ground truth).
 *
 *   npx tsx test/e2e/record/chat-cli.ts <tool> [--out DIR] [scenario ...]
 *
 * `--out DIR` writes the fixtures into DIR instead: a newer version of the CLI is recorded into
 * `test/fixtures/<tool>/<version>/`, beside the recordings of the version before it.
 *
 * The tool's facts (how to configure, start, interrupt, approve and quit it) are in
 * `src/tooling/agents/<tool>.ts`; the scenarios are the same for every CLI, each skipped where the
 * CLI cannot show it (no permission prompts, say): `chat-cli-scenarios.ts`, with the long
 * conversations in `chat-cli-context.ts`.
 */
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startRecorder, type Recorder } from '../../../src/observe/recorder.js';
import { THEN, type TmuxArg } from '../../../src/observe/tmux-argv.js';
import type { SessionRecordReader } from '../../../src/profiles/session-record.js';
import { sessionRecordReader } from '../../../src/profiles/session-records.js';
import { CHAT_AGENTS } from '../../../src/tooling/agents/index.js';
import type { ChatAgent } from '../../../src/tooling/agents/chat-agent.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import type { Protocol } from '../../../src/tooling/model-server/server.js';
import { startFakeModelServer } from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';
import { sleep, isTurn, type Ctx, type Scenario } from './chat-cli-scenario.js';
import { SCENARIOS } from './chat-cli-scenarios.js';

const COLS = 160;
const ROWS = 45;

/** The default set, in recording order (default retries only where the CLI has a setting). */
function defaultScenarios(agent: ChatAgent): string[] {
  return Object.keys(SCENARIOS).filter((name) => {
    if (name === 'error-500-default-retries') return agent.retrySetting;
    return SCENARIOS[name]!.applies?.(agent) ?? true;
  });
}

async function record(
  agent: ChatAgent,
  name: string,
  scenario: Scenario,
  fixtures: string,
): Promise<void> {
  // With the session record, the folders live outside this repository: the CLIs write their
  // working folder's paths and Git state into their records.
  const scratch = withRecord(name)
    ? join(tmpdir(), 'pw-record', agent.tool, name)
    : resolve('.tmp/record', agent.tool, name);
  rmSync(scratch, { recursive: true, force: true });
  rmSync(join(tmpdir(), 'pw-clis-rec', agent.tool, name), { recursive: true, force: true });
  mkdirSync(fixtures, { recursive: true });
  const serverLog = join(fixtures, `${name}.server.jsonl`);
  writeFileSync(serverLog, '');
  // With PW_RECORD_BODIES set, every request body is kept in the scratch folder to inspect.
  const bodies = process.env.PW_RECORD_BODIES ? join(scratch, 'bodies.jsonl') : null;
  const protocol: Protocol = bodies
    ? {
        ...chatCompletionsProtocol,
        handle: (c) => {
          appendFileSync(bodies, JSON.stringify({ path: c.url.pathname, body: c.body }) + '\n');
          return chatCompletionsProtocol.handle(c);
        },
      }
    : chatCompletionsProtocol;
  mkdirSync(scratch, { recursive: true });
  const server = await startFakeModelServer({ protocols: [protocol], logFile: serverLog });
  const options = {
    scratch,
    // Outside this repository, so no CLI shows its Git state.
    workDir: join(tmpdir(), 'pw-clis-rec', agent.tool, name),
    serverUrl: server.url,
    retries: scenario.retries ?? 'capped',
    fresh: scenario.fresh ?? false,
  } as const;
  const prepared = agent.prepare(options);
  const launch = { ...prepared, command: [...prepared.command, ...(scenario.args ?? [])] };
  await agent.setup?.(options);
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
      socketName: uniqueSocketName(`pw-clis-rec-${agent.tool}`),
      cols: scenario.cols ?? COLS,
      rows: scenario.rows ?? ROWS,
      cwd: launch.cwd,
      env: { ...launch.env, ...scenario.env, PS1: '$ ' },
      command,
      remainOnExit: scenario.remainOnExit ?? false,
    });
    recorder = startRecorder({
      transport: session.transport,
      target: session.target,
      tool: agent.tool,
      toolVersion: agent.version,
      processNames: agent.processNames,
      intervalMs: 250,
      file: join(fixtures, `${name}.jsonl`),
      ...(withRecord(name) ? { sessionRecord: withRecord(name)! } : {}),
    });
    const s = session;
    const r = recorder;
    const ctx: Ctx = {
      agent,
      server,
      session: s,
      recorder: r,
      async keys(steps) {
        for (const step of steps) {
          if ('text' in step) await s.sendText(step.text);
          else await s.sendKeys(...step.keys);
          if (step.pauseMs) await sleep(step.pauseMs);
          if (process.env.PW_RECORD_DEBUG) {
            const tail = (await s.capture())
              .split('\n')
              .filter((l) => l.trim())
              .slice(-2);
            process.stdout.write(`\n[${JSON.stringify(step)}] ${tail.join(' | ')}\n`);
          }
        }
      },
      async pasteWithSubmit(text) {
        await ctx.idle(agent.startupTimeoutMs);
        const buffer = `record-${process.pid}`;
        await s.transport.run(['load-buffer', '-b', buffer, '-'], { input: text });
        r.input(text);
        const paste: TmuxArg[] = ['paste-buffer', '-p', '-r', '-d', '-b', buffer, '-t', s.target];
        await s.transport.run([...paste, THEN, 'send-keys', '-t', s.target, ...agent.submitKeys]);
      },
      async submit(text) {
        await ctx.idle(agent.startupTimeoutMs);
        await s.sendText(text);
        await s.waitForText(agent.typed(text), 10_000);
        await sleep(400);
        r.input(text);
        await s.sendKeys(...agent.submitKeys);
      },
      async turnsEnded(count, timeoutMs = 90_000) {
        await server.waitFor(isTurn, { count, timeoutMs });
      },
      async streaming(count) {
        // Polled: the server wakes its waiters only when a request ends.
        const deadline = Date.now() + 60_000;
        while (server.log().filter((e) => isTurn(e) && e.firstByteAt !== null).length < count) {
          if (Date.now() > deadline) throw new Error(`turn request ${count} never streamed`);
          await sleep(50);
        }
      },
      async idle(timeoutMs = 30_000) {
        const deadline = Date.now() + timeoutMs;
        let last = '';
        let since = Date.now();
        for (;;) {
          const screen = await s.capture();
          const notice = agent.notices?.find((n) => n.text.test(screen));
          if (notice) await ctx.keys(notice.keys);
          // Busy markers are read near the bottom only: a reply may quote them (quoted-chrome).
          const tail = screen
            .split('\n')
            .filter((l) => l.trim() !== '')
            .slice(-10)
            .join('\n');
          const ready = agent.idle.test(screen) && !agent.busy.test(tail);
          if (screen !== last || !ready) {
            last = screen;
            since = Date.now();
          } else if (Date.now() - since >= 1500) {
            return screen;
          }
          if (Date.now() > deadline)
            throw new Error(`${agent.tool} not idle within ${timeoutMs} ms:\n${screen}`);
          await sleep(100);
        }
      },
    };
    await scenario.run(ctx);
  } finally {
    await recorder?.stop();
    await session?.close();
    const stopped = (await agent.stopDaemons?.(options)) ?? [];
    if (stopped.length > 0) process.stdout.write(`(stopped daemons ${stopped.join(', ')}) `);
    await server.close();
  }
}

/**
 * `record-<scenario>` records the scenario with the CLI's session record as well (its pieces in
 * the recording, docs/contracts.md §2), into `record-<scenario>.jsonl`.
 */
const RECORD_PREFIX = 'record-';

function scenarioOf(name: string): Scenario | undefined {
  return SCENARIOS[name] ?? SCENARIOS[name.slice(RECORD_PREFIX.length)];
}

function withRecord(name: string): SessionRecordReader | undefined {
  return name.startsWith(RECORD_PREFIX) && !SCENARIOS[name]
    ? sessionRecordReader(CHAT_AGENTS[process.argv[2] ?? '']?.tool ?? '')
    : undefined;
}

async function main(): Promise<void> {
  const [tool, ...rest] = process.argv.slice(2);
  const agent = tool ? CHAT_AGENTS[tool] : undefined;
  if (!agent) {
    throw new Error(
      `usage: chat-cli.ts <${Object.keys(CHAT_AGENTS).join('|')}> [--out DIR] [scenario ...]`,
    );
  }
  const outAt = rest.indexOf('--out');
  const out = outAt >= 0 ? rest[outAt + 1] : undefined;
  if (outAt >= 0 && (out === undefined || out.startsWith('-'))) {
    throw new Error('--out needs a folder: --out test/fixtures/<tool>/<version>');
  }
  const fixtures = out ? resolve(out) : resolve('test/fixtures', agent.tool);
  const requested = outAt >= 0 ? rest.filter((_, i) => i !== outAt && i !== outAt + 1) : rest;
  const selected = requested.length > 0 ? requested : defaultScenarios(agent);
  for (const name of selected) {
    if (!scenarioOf(name)) {
      throw new Error(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(', ')}`);
    }
  }
  for (const name of selected) {
    process.stdout.write(`recording ${agent.tool} ${name}... `);
    const started = Date.now();
    try {
      await record(agent, name, scenarioOf(name)!, fixtures);
      process.stdout.write(`done (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
    } catch (err) {
      process.stdout.write(`FAILED: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    }
  }
}

await main();
