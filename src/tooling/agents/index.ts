import type { ChatAgent } from './chat-agent.js';
import { clineAgent } from './cline.js';
import { copilotAgent } from './copilot.js';
import { grokCliAgent } from './grok_cli.js';
import { kiloAgent } from './kilo.js';
import { opencodeAgent } from './opencode.js';
import { piAgent } from './pi.js';
import { qwenCodeAgent } from './qwen_code.js';

/** The OpenAI-compatible CLIs, by profile id: recorded and driven live the same way. */
export const CHAT_AGENTS: Record<string, ChatAgent> = {
  opencode: opencodeAgent,
  kilo: kiloAgent,
  qwen_code: qwenCodeAgent,
  pi: piAgent,
  cline: clineAgent,
  copilot: copilotAgent,
  grok_cli: grokCliAgent,
};
