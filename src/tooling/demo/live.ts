import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CHAT_AGENTS } from '../agents/index.js';
import type { AgentLaunch } from '../agents/chat-agent.js';
import { CLAUDE_CODE_BIN, prepareClaudeCode } from '../agents/claude_code.js';
import { codexAgent, prepareCodex, stopCodexDaemons } from '../agents/codex.js';
import { geminiCliAgent, prepareGeminiCli } from '../agents/gemini_cli.js';
import { anthropicProtocol } from '../model-server/anthropic.js';
import { chatCompletionsProtocol } from '../model-server/chat-completions.js';
import { geminiProtocol } from '../model-server/gemini.js';
import { openaiProtocol } from '../model-server/openai.js';
import { startFakeModelServer, type FakeModelServer } from '../model-server/server.js';

/** What the built-in model answers every prompt with, streamed word by word. */
export const DEMO_REPLY =
  "This answer comes from paneward's built-in model server on loopback, not from a real model. " +
  'It streams a few sentences at a steady pace, so you can watch the terminal go from ready to ' +
  'working and back, and the turn end as a success of the prompt you sent.';

/** One installed agent CLI, set up to run offline against the built-in model server. */
export interface LiveAgent {
  tool: string;
  launch: AgentLaunch;
  /** Runs after the CLI's own set-up command, where it has one. */
  setup?(): Promise<void>;
  /** Ends daemons the CLI leaves behind (by pid, only its own); resolves once they have exited. */
  cleanup?(): Promise<unknown>;
}

/** The built-in loopback model server: every protocol the CLIs speak, one steady reply. */
export function startDemoModel(): Promise<FakeModelServer> {
  return startFakeModelServer({
    protocols: [anthropicProtocol, openaiProtocol, geminiProtocol, chatCompletionsProtocol],
    defaultPlan: { text: DEMO_REPLY, delayMs: 400, chunkDelayMs: 90 },
  });
}

/**
 * The agent CLIs installed with `scripts/install-agent.sh`, each with a scratch home under
 * `scratch` that points it at `serverUrl`: onboarding done, the work folder trusted, an API
 * key it accepts. Empty when none is installed.
 */
export function installedAgents(scratch: string, serverUrl: string): LiveAgent[] {
  const out: LiveAgent[] = [];
  const dirs = (tool: string) => {
    const root = join(scratch, 'agents', tool);
    mkdirSync(root, { recursive: true });
    return { root, home: join(root, 'home'), work: join(root, 'work') };
  };
  if (existsSync(CLAUDE_CODE_BIN)) {
    const d = dirs('claude_code');
    out.push({
      tool: 'claude_code',
      launch: prepareClaudeCode({ home: d.home, cwd: d.work, baseUrl: serverUrl }),
    });
  }
  if (existsSync(codexAgent.bin)) {
    const d = dirs('codex');
    out.push({
      tool: 'codex',
      launch: prepareCodex({ scratchDir: d.root, workDir: d.work, serverUrl }),
      cleanup: () => stopCodexDaemons(d.root),
    });
  }
  if (existsSync(geminiCliAgent.bin)) {
    const d = dirs('gemini_cli');
    out.push({
      tool: 'gemini_cli',
      launch: prepareGeminiCli({ home: d.home, cwd: d.work, baseUrl: serverUrl }),
    });
  }
  for (const agent of Object.values(CHAT_AGENTS)) {
    if (!existsSync(agent.bin)) continue;
    const d = dirs(agent.tool);
    const o = { scratch: d.root, workDir: d.work, serverUrl, retries: 'capped' as const };
    out.push({
      tool: agent.tool,
      launch: agent.prepare(o),
      ...(agent.setup ? { setup: () => agent.setup!(o) } : {}),
      ...(agent.stopDaemons ? { cleanup: () => agent.stopDaemons!(o) } : {}),
    });
  }
  return out;
}
