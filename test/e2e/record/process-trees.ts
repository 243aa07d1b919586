/**
 * Records the real process tree under a pane running each agent CLI, once its prompt is up:
 * `test/fixtures/process-trees/<tool>.json`. Discovery is tested against these trees.
 *
 *   npx tsx test/e2e/record/process-trees.ts [tool ...]
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readProcessTree } from '../../../src/observe/process.js';
import { CHAT_AGENTS } from '../../../src/tooling/agents/index.js';
import { REPO_ROOT, type AgentLaunch } from '../../../src/tooling/agents/chat-agent.js';
import { prepareClaudeCode } from '../../../src/tooling/agents/claude_code.js';
import { prepareCodex, stopCodexDaemons } from '../../../src/tooling/agents/codex.js';
import { prepareGeminiCli } from '../../../src/tooling/agents/gemini_cli.js';
import { anthropicProtocol } from '../../../src/tooling/model-server/anthropic.js';
import { chatCompletionsProtocol } from '../../../src/tooling/model-server/chat-completions.js';
import { geminiProtocol } from '../../../src/tooling/model-server/gemini.js';
import { openaiProtocol } from '../../../src/tooling/model-server/openai.js';
import { startFakeModelServer, type Protocol } from '../../../src/tooling/model-server/server.js';
import { startAgentSession, uniqueSocketName } from '../harness/session.js';

interface TreeSource {
  protocol: Protocol;
  /** The prompt is up. */
  ready: RegExp;
  launch(scratch: string, workDir: string, serverUrl: string): Promise<AgentLaunch>;
  after?(scratch: string): Promise<unknown> | unknown;
}

const SOURCES: Record<string, TreeSource> = {
  claude_code: {
    protocol: anthropicProtocol,
    ready: /\? for shortcuts/,
    launch: async (scratch, workDir, serverUrl) =>
      prepareClaudeCode({ home: join(scratch, 'home'), cwd: workDir, baseUrl: serverUrl }),
  },
  codex: {
    protocol: openaiProtocol,
    ready: /^› /m,
    launch: async (scratch, workDir, serverUrl) =>
      prepareCodex({ scratchDir: scratch, workDir, serverUrl }),
    after: (scratch) => stopCodexDaemons(scratch),
  },
  gemini_cli: {
    protocol: geminiProtocol,
    ready: /Type your message/,
    // As a user starts it: the launcher and the CLI it relaunches.
    launch: async (scratch, workDir, serverUrl) =>
      prepareGeminiCli({
        cwd: workDir,
        home: join(scratch, 'home'),
        baseUrl: serverUrl,
        relaunch: true,
      }),
  },
  ...Object.fromEntries(
    Object.values(CHAT_AGENTS).map((a): [string, TreeSource] => [
      a.tool,
      {
        protocol: chatCompletionsProtocol,
        ready: a.idle,
        launch: async (scratch, workDir, serverUrl) => {
          const o = { scratch, workDir, serverUrl, retries: 'default' as const };
          const launch = a.prepare(o);
          await a.setup?.(o);
          // As a user starts it: a CLI that relaunches itself (Qwen Code) does so here.
          const env = Object.fromEntries(
            Object.entries(launch.env).filter(([k]) => !k.endsWith('_NO_RELAUNCH')),
          );
          return { ...launch, env };
        },
        after: (scratch) =>
          a.stopDaemons?.({ scratch, workDir: '', serverUrl: '', retries: 'default' }),
      },
    ]),
  ),
};

/** Paths that differ per machine, replaced so the fixture reads the same everywhere. */
function portable(arg: string): string {
  return arg.split(REPO_ROOT).join('<repo>').split(tmpdir()).join('<tmp>');
}

async function record(tool: string, source: TreeSource): Promise<void> {
  const scratch = resolve('.tmp/record/process-trees', tool);
  const workDir = join(tmpdir(), 'pw-clis-trees', tool);
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const server = await startFakeModelServer({ protocols: [source.protocol] });
  const launch = await source.launch(scratch, workDir, server.url);
  const session = await startAgentSession({
    socketName: uniqueSocketName(`pw-clis-tree-${tool}`),
    cols: 160,
    rows: 45,
    cwd: launch.cwd,
    env: launch.env,
    command: launch.command,
  });
  try {
    await session.waitForText(source.ready, 90_000);
    await new Promise((r) => setTimeout(r, 3000));
    const tree = await readProcessTree(await session.panePid());
    const out = tree.map((p) => ({
      depth: depthOf(tree, p.pid),
      comm: p.comm,
      argv: p.argv.map(portable),
    }));
    const dir = resolve('test/fixtures/process-trees');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${tool}.json`), JSON.stringify(out, null, 2) + '\n');
  } finally {
    await session.close();
    await source.after?.(scratch);
    await server.close();
  }
}

function depthOf(tree: ReadonlyArray<{ pid: number; ppid: number }>, pid: number): number {
  let depth = 0;
  let current = tree.find((p) => p.pid === pid);
  while (current && tree.some((p) => p.pid === current!.ppid)) {
    depth++;
    current = tree.find((p) => p.pid === current!.ppid);
  }
  return depth;
}

const wanted = process.argv.slice(2);
for (const [tool, source] of Object.entries(SOURCES)) {
  if (wanted.length > 0 && !wanted.includes(tool)) continue;
  process.stdout.write(`process tree of ${tool}... `);
  try {
    await record(tool, source);
    process.stdout.write('done\n');
  } catch (err) {
    process.stdout.write(`FAILED: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}
