import { z } from 'zod';
import { inWords } from '../internal/in-words.js';
import { LAUNCH_RECIPES } from '../profiles/launch.js';
import type { SpawnFields } from '../schemas/operations/index.js';
import {
  OPERATIONS,
  type OperationContract,
  type OperationName,
} from '../schemas/operations/index.js';
import { DEFAULT_WAIT_SECONDS, TerminalArg, WaitSeconds } from './summary.js';

/**
 * Every field an operation takes, flat: the fields of its input beside those of the body it
 * carries (`body`, `spawn`), without the terminal id (a tool names its terminal as `terminal`)
 * and without what the service fills in itself (the token that asked).
 */
export function fieldsOf(op: OperationContract): Record<string, z.ZodType> {
  const out: Record<string, z.ZodType> = {};
  for (const [k, field] of Object.entries(op.input.shape as Record<string, z.ZodType>)) {
    if (k === 'id' || k === 'tokenId') continue;
    if ((k === 'body' || k === 'spawn') && field instanceof z.ZodObject) {
      Object.assign(out, field.shape);
    } else out[k] = field;
  }
  return out;
}

/** Whether an operation acts on one terminal (its input names it by `id`). */
export const takesTerminal = (op: OperationContract): boolean => 'id' in op.input.shape;

/** One MCP tool: the operation it runs, and what of it a model sets. */
export interface ToolSpec {
  /** The operation the tool runs; its summary opens the tool's description. */
  operation: OperationName;
  /** Other operations it runs too (`terminal_state` reads the screen). */
  also?: readonly OperationName[];
  title: string;
  /** What a model needs to know beyond the operation's summary: when to use it, how long it takes. */
  guidance: string;
  /** The operation's fields a model sets (the others keep their defaults). */
  fields: readonly string[];
  /** The tool's own fields, which are no operation's: how long this call waits, what it shows. */
  own?: z.ZodRawShape;
  annotations: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

/** The MCP tools by name, each built on one operation's contract. */
export const TOOLS = {
  list_terminals: {
    operation: 'list',
    title: 'List terminals',
    guidance:
      "Each with its id, tmux pane, CLI, readiness (ready, waiting, blocked, unknown, stalled, failed), the turn running and the last turn's outcome, and whether it accepts a prompt now and why. Use it first to find the terminal id to pass to the other tools. Answers at once.",
    fields: [],
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  terminal_state: {
    operation: 'state',
    also: ['screen'],
    title: "A terminal's state and screen",
    guidance:
      "Where it stands (readiness, the turn running, the last turn's outcome, the watchdog's session status), why it does or does not accept a prompt, an interrupt or a resume now, and, unless screen is false, the pane's latest screen as text. Use it to look before acting, or to see why a turn failed or what a prompt for the operator asks. Answers at once.",
    fields: [],
    own: {
      screen: z
        .boolean()
        .default(true)
        .describe("Include the pane's latest screen as text (default true)."),
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  send_prompt: {
    operation: 'turns',
    title: 'Send a prompt and wait for the turn',
    guidance: `Types the prompt into the agent terminal, submits it, and waits until the agent has finished that turn; answers with the turn id, its outcome (success, interrupted, known_failure) and the agent's reply text (reply: from its session record or its screen), or result "timeout" when it had not ended within timeoutSeconds (the turn goes on: call wait_for_turn with the turn id; never send the prompt again). Refused, with nothing typed, when the terminal does not accept a prompt now (busy with another turn, waiting for the operator, gone, blocked by the watchdog): the error says why and what to do. Blocks for as long as the agent works, up to timeoutSeconds (default ${DEFAULT_WAIT_SECONDS} s).`,
    fields: ['prompt'],
    own: { timeoutSeconds: WaitSeconds },
    annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  wait_for_turn: {
    operation: 'wait',
    title: 'Wait for a turn',
    guidance:
      'The turn send_prompt started, by its turn id (e.g. "turn-3"); answers with its outcome as send_prompt does, at once when the turn is over already. Use it after send_prompt answered "timeout". Blocks up to timeoutSeconds.',
    fields: ['turnId'],
    own: { timeoutSeconds: WaitSeconds },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  interrupt: {
    operation: 'interrupt',
    title: 'Interrupt the running turn',
    guidance:
      "The agent CLI's own keys (Escape for most) stop the turn it is working on. Refused, with nothing typed, when no turn is running. The turn then ends as interrupted: wait_for_turn tells. Answers at once with the terminal's state.",
    fields: [],
    annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true },
  },
  answer_question: {
    operation: 'answer',
    title: 'Answer the question on screen',
    guidance:
      "A tool or command needs permission, a folder needs trust: terminal_state lists the question under question, with its id and the choice ids (allow_once, allow_always, deny, trust, ...). Typed only while that very question is on screen, with the CLI's own keys for that choice; then checked that the dialog closed. Refused, with nothing typed, when no question waits, another question is on screen, or the choice is not one it offers. Answers within seconds with the terminal's state.",
    fields: ['questionId', 'choice'],
    annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true },
  },
  resume: {
    operation: 'resume',
    title: 'Resume a blocked session',
    guidance:
      "When paneward's watchdog blocked it (its wall-clock budget ran out): a fresh budget, and the terminal accepts prompts again. Types nothing. Refused when the session is not blocked. Answers at once with the terminal's state.",
    fields: [],
    annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  spawn: {
    operation: 'spawn',
    title: 'Start an agent CLI',
    guidance: `Any of ${inWords(Object.keys(LAUNCH_RECIPES))}, started the way paneward's launch recipe for it says and supervised; answered with its terminal id for send_prompt once it is ready for a prompt (or blocked on a first-run dialog, which terminal_state shows). With worktree, it runs in a new git worktree of cwd on that new branch, so parallel agents do not edit the same files. Blocks while the CLI starts, usually seconds, at most readyTimeoutSeconds.`,
    fields: [
      'tool',
      'cwd',
      'name',
      'session',
      'worktree',
      'args',
      'env',
      'restart',
      'readyTimeoutSeconds',
    ],
    annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  stop: {
    operation: 'stop',
    title: 'Stop a started agent CLI',
    guidance:
      'Only for a CLI paneward started (spawn): refused for a pane it did not start, and while a turn runs (interrupt it first). removeWorktree also removes the git worktree it was started in, unless that has changes (then refused: nothing is lost). Blocks until the CLI has ended, seconds.',
    fields: ['removeWorktree'],
    annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true },
  },
} as const satisfies Record<string, ToolSpec>;
export type ToolName = keyof typeof TOOLS;

/** A tool's input: its terminal, the operation's fields it takes, then its own. */
export function inputOf(spec: ToolSpec): z.ZodRawShape {
  const op = OPERATIONS[spec.operation];
  const all = fieldsOf(op);
  const shape: Record<string, z.ZodType> = takesTerminal(op) ? { terminal: TerminalArg } : {};
  for (const k of spec.fields) {
    const field = all[k];
    if (!field) throw new Error(`operation ${spec.operation} takes no field ${k}`);
    shape[k] = field;
  }
  return { ...shape, ...spec.own };
}

/** What `registerTool` takes of a tool, but its output schema: all from the contract. */
export function toolConfig(name: ToolName): {
  title: string;
  description: string;
  inputSchema: z.ZodRawShape;
  annotations: ToolSpec['annotations'];
} {
  const spec: ToolSpec = TOOLS[name];
  return {
    title: spec.title,
    description: `${OPERATIONS[spec.operation].summary}. ${spec.guidance}`,
    inputSchema: inputOf(spec),
    annotations: spec.annotations,
  };
}

/** What the `spawn` tool hands over: the `spawn` operation's fields a model sets. */
export type SpawnArgs = Pick<z.input<typeof SpawnFields>, (typeof TOOLS.spawn.fields)[number]>;
