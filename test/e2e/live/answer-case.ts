// What the live answer suite needs to know of a CLI that asks before it runs a shell command.
import type { AgentLaunch } from '../../../src/tooling/agents/chat-agent.js';
import type { Protocol } from '../../../src/tooling/model-server/server.js';

export interface LiveAnswerCase {
  /** The profile's name (`codex`), and the CLI's for the titles (`Codex`). */
  tool: string;
  label: string;
  bin: string;
  protocol: Protocol;
  /** Sets the CLI up in a fresh home against the server; how to start it. */
  prepare(o: {
    scratch: string;
    work: string;
    serverUrl: string;
  }): AgentLaunch | Promise<AgentLaunch>;
  /** What a stopped CLI left behind, ended. */
  cleanup?(scratch: string): Promise<unknown>;
  /** The model's request to run `touch FILE` in this CLI's tool. */
  shell(file: string): { name: string; input: Record<string, unknown> };
  /**
   * The choices its dialog offers, in order. Without `allow_once` (a CLI whose cursor paneward
   * cannot see, so only its refusal is offered) the allow proof is skipped and the attacks are
   * made on the refusal.
   */
  choices: string[];
  /**
   * How the turn ends once denied, as paneward reports it. `interrupted` (the default): the CLI
   * draws its cancel mark and stops there. `no_claim`: the CLI draws no mark of its refusal (the
   * tool's line and the idle prompt, no reply), so the turn ends with no outcome claimed for it.
   * `told`: the CLI tells the model the operator refused (a second request, which cannot carry
   * the command's result: it never ran) and the model's reply ends the turn, a success.
   */
  deniedResult?: 'interrupted' | 'no_claim' | 'told';
  /**
   * A CLI that asks again once refused (Kilo: `△ Reject permission`, what to do instead): the
   * choice that answers that second question, which draws no command.
   */
  denyFollowUp?: string;
  /**
   * For a highlight drawn by colour only: keys that move it off the first option before allowing
   * (as an operator at the pane might), so the answer must read where it stands and come back.
   * Each is pressed on its own; an Enter alone would then choose the option moved to.
   */
  moveHighlight?: string[];
  /**
   * Proves `allow_always` (it runs last: once given, the CLI asks no more for such commands):
   * the command runs, and the same request in the same session runs without a dialog. A CLI
   * that confirms it in a second dialog names what that dialog draws as its subject (the
   * pattern allowed), which the answer must have seen and confirmed.
   */
  allowAlways?: { confirmationSubject?: string };
  /** How long its first ready screen may take (90 s unless said). */
  startupTimeoutMs?: number;
}
