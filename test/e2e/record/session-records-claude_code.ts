/**
 * Captures the session record the real Claude Code CLI writes (`~/.claude/projects/<folder>/
 * <session>.jsonl`) against the fake model server, one fixture per scenario:
 * `test/fixtures/session-records/claude_code/<scenario>.jsonl`. The record holds only the fake
 * model's text and the prompts typed here; scratch paths are replaced by `/scratch`.
 *
 *   npx tsx test/e2e/record/session-records-claude_code.ts [--out DIR] [scenario ...]
 *
 * `--out` writes the captures into DIR instead: a newer CLI version's go into
 * `test/fixtures/session-records/claude_code/<version>/`, beside the older ones.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { claudeCodeFacts, prepareClaudeCode } from '../../../src/tooling/agents/claude_code.js';
import { anthropicProtocol } from '../../../src/tooling/model-server/anthropic.js';
import type { TurnPlanInput } from '../../../src/tooling/model-server/plan.js';
import { startFakeModelServer } from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName, type AgentSession } from '../harness/session.js';

const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
if (outAt >= 0 && (!args[outAt + 1] || args[outAt + 1]!.startsWith('--'))) {
  throw new Error('--out wants a folder, e.g. test/fixtures/session-records/claude_code/2.1.332');
}
const FIXTURES = resolve(
  outAt >= 0 ? args.splice(outAt, 2)[1]! : 'test/fixtures/session-records/claude_code',
);
const SCRATCH = resolve('.tmp/record/session-records-claude_code');
const IDLE = /\? for shortcuts/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LONG = Array.from({ length: 60 }, (_, i) => `Sentence ${i + 1} of a long answer.`).join(' ');

interface Scenario {
  plans: TurnPlanInput[];
  run(s: AgentSession): Promise<void>;
}

async function submit(s: AgentSession, text: string): Promise<void> {
  await s.sendText(text);
  await sleep(400);
  await s.sendKeys('Enter');
}

const scenarios: Record<string, Scenario> = {
  /** Two plain turns that end with the model's end of turn. */
  'two-turns': {
    plans: [{ text: 'First reply from the fake model.' }, { text: 'Second reply.' }],
    async run(s) {
      await submit(s, 'say something');
      await s.waitForText(/First reply/, 30_000);
      await s.waitForText(IDLE, 30_000);
      await submit(s, 'and again');
      await s.waitForText(/Second reply/, 30_000);
      await s.waitForText(IDLE, 30_000);
    },
  },
  /** A turn with a tool call approved at the permission prompt, then the final reply. */
  'tool-use': {
    plans: [
      { text: 'I will create the file.', toolUse: claudeCodeFacts.permissionToolUse },
      { text: 'Done: the file exists.' },
    ],
    async run(s) {
      await submit(s, 'create the marker file');
      await s.waitForText(/Do you want to proceed\?/, 30_000);
      await sleep(500);
      await s.sendKeys(...claudeCodeFacts.approveKeys);
      await s.waitForText(/Done: the file exists/, 30_000);
      await s.waitForText(IDLE, 30_000);
    },
  },
  /** A reply cut short with Escape while it streams. */
  interrupted: {
    plans: [{ text: LONG, chunkDelayMs: 150 }],
    async run(s) {
      await submit(s, 'tell me a long story');
      await s.waitForText(/Sentence 3 /, 30_000);
      await s.sendKeys(...claudeCodeFacts.interruptKeys);
      await s.waitForText(/Interrupted/, 30_000);
      await s.waitForText(IDLE, 30_000);
      await sleep(1000);
    },
  },
  /** The model server answers 500 and 529 (overloaded); the CLI shows the API error. */
  'api-error': {
    plans: [
      { error: { status: 500, type: 'api_error', message: 'Internal server error' } },
      { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } },
    ],
    async run(s) {
      await submit(s, 'this request fails');
      await s.waitForText(/API Error|500/, 30_000);
      await s.waitForText(IDLE, 30_000);
      await sleep(1000);
      await submit(s, 'this one is overloaded');
      await s.waitForText(/529|verloaded/, 30_000);
      await s.waitForText(IDLE, 30_000);
      await sleep(1000);
    },
  },
};

async function capture(name: string, sc: Scenario): Promise<void> {
  const dir = join(SCRATCH, name);
  rmSync(dir, { recursive: true, force: true });
  const server = await startFakeModelServer({ protocols: [anthropicProtocol] });
  const home = join(dir, 'home');
  const cwd = join(dir, 'work');
  const launch = prepareClaudeCode({ home, cwd, baseUrl: server.url, maxRetries: 0 });
  server.enqueue(...sc.plans);
  const session = await startAgentSession({
    socketName: uniqueSocketName('witness-cap'),
    cwd: launch.cwd,
    env: launch.env,
    command: launch.command,
    cols: 160,
    rows: 45,
  });
  try {
    await session.waitForText(IDLE, claudeCodeFacts.startupTimeoutMs);
    await sc.run(session);
  } catch (e) {
    console.error(await session.capture());
    throw e;
  } finally {
    await session.close();
    await server.close();
  }
  const projects = join(home, '.claude', 'projects');
  const folders = readdirSync(projects);
  const files = folders.flatMap((f) =>
    readdirSync(join(projects, f))
      .filter((x) => x.endsWith('.jsonl'))
      .map((x) => join(projects, f, x)),
  );
  if (files.length !== 1)
    throw new Error(`${name}: ${files.length} session files: ${files.join(', ')}`);
  const text = readFileSync(files[0] as string, 'utf8')
    .split(dir)
    .join('/scratch');
  mkdirSync(FIXTURES, { recursive: true });
  writeFileSync(join(FIXTURES, `${name}.jsonl`), text);
  console.log(`${name}: ${files[0]} (${text.split('\n').length - 1} lines)`);
}

const wanted = args;
for (const [name, sc] of Object.entries(scenarios)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  await capture(name, sc);
}
