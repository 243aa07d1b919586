import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  agentBin,
  baseEnv,
  type AgentLaunch,
  type ChatAgent,
  type ChatLaunchOptions,
} from './chat-agent.js';

function prepare(o: ChatLaunchOptions): AgentLaunch {
  const home = join(o.scratch, 'home');
  const dir = join(home, '.pi', 'agent');
  mkdirSync(dir, { recursive: true });
  mkdirSync(o.workDir, { recursive: true });
  writeFileSync(
    join(dir, 'models.json'),
    JSON.stringify(
      {
        providers: {
          fake: {
            baseUrl: `${o.serverUrl}/v1`,
            api: 'openai-completions',
            apiKey: 'x',
            compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
            models: [{ id: 'fake-model', contextWindow: 128000, maxTokens: 4096 }],
          },
        },
      },
      null,
      2,
    ),
  );
  writeFileSync(
    join(dir, 'settings.json'),
    JSON.stringify(
      {
        defaultProvider: 'fake',
        defaultModel: 'fake-model',
        enableInstallTelemetry: false,
        ...(o.retries === 'capped'
          ? { retry: { enabled: true, maxRetries: 1, baseDelayMs: 500 } }
          : {}),
      },
      null,
      2,
    ),
  );
  return {
    command: [piAgent.bin],
    cwd: o.workDir,
    env: { ...baseEnv(home), PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' },
  };
}

/** pi 0.73.1 (`@mariozechner/pi-coding-agent`, pure JS). It has no permission prompts. */
export const piAgent: ChatAgent = {
  tool: 'pi',
  version: '0.73.1',
  bin: agentBin('pi', 'pi'),
  processNames: ['pi'],
  prepare,
  idle: /ctrl\+c\/ctrl\+d clear\/exit/,
  busy: /Working\.\.\.|Retrying \(/,
  typed: (text) => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
  submitKeys: ['Enter'],
  interrupt: [{ keys: ['Escape'] }],
  exit: [{ keys: ['C-d'] }],
  permission: null,
  // `retry.maxRetries` (3 by default) then "Error: Retry failed after N attempts".
  givesUp: { capped: true, default: true },
  retrySetting: true,
  startupTimeoutMs: 60_000,
};
