import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MAX_PROMPT_CHARS, PromptText } from '../schemas/prompt.js';
import type { TerminalView, TurnResponse } from '../schemas/operations/index.js';
import { failureOf, type BackendFailure, type McpBackend, type SpawnArgs } from './backend.js';

/** The longest one call waits for a turn; a longer wait continues with `wait_for_turn`. */
export const MAX_WAIT_SECONDS = 3600;
/** How long `send_prompt` and `wait_for_turn` wait when not told. */
export const DEFAULT_WAIT_SECONDS = 300;
/** How often a waiting call reports progress to a client that asked for it. */
const PROGRESS_MS = 10_000;

export interface McpServerOptions {
  /** How often a waiting call reports progress (ms; default 10 s). */
  progressMs?: number;
}

// ---- what the tools take --------------------------------------------------------------------

const TerminalArg = z
  .string()
  .min(1, 'must name a terminal')
  .max(200)
  .describe(
    'The terminal: its id as list_terminals gives it (e.g. "work-1"), or the tmux pane it was attached as ("%3", "session:window.pane").',
  );

const WaitSeconds = z
  .number()
  .positive('must be a positive number of seconds')
  .max(MAX_WAIT_SECONDS, `must be at most ${MAX_WAIT_SECONDS} seconds`)
  .default(DEFAULT_WAIT_SECONDS)
  .describe(
    `How long to wait for the turn to end, in seconds (default ${DEFAULT_WAIT_SECONDS}, at most ${MAX_WAIT_SECONDS}). When it runs out the answer is result "timeout" with the turn id: the turn goes on, and wait_for_turn waits for it again.`,
  );

// ---- what the tools answer (structuredContent) ----------------------------------------------

const Verdict = z.object({
  allowed: z.enum(['yes', 'no', 'wait']),
  reason: z.string(),
});

/** One terminal as the tools describe it: where it stands, why, and what it accepts now. */
const TerminalSummary = z.object({
  terminalId: z.string(),
  target: z.string().nullable(),
  tool: z.string(),
  toolVersion: z.string().nullable(),
  /** False when the running release is not one paneward was verified against; null: unknown. */
  toolVersionVerified: z.boolean().nullable(),
  /** `ready`, `waiting` (working), `blocked` (a prompt for the operator), `unknown`, … */
  readiness: z.string(),
  /** What the screen shows: `idle`, `working`, … */
  activity: z.string(),
  blockedPrompt: z.string().nullable(),
  /** The dialog waiting for the operator as a question: answer it with answer_question. */
  question: z
    .object({
      id: z.string(),
      kind: z.string(),
      subject: z.string().nullable(),
      choices: z.array(z.object({ id: z.string(), label: z.string() })),
    })
    .nullable(),
  availability: z.string(),
  turn: z.object({ phase: z.string(), currentTurnId: z.string().nullable() }),
  lastTurn: z.object({ turnId: z.string().nullable(), outcome: z.string() }),
  session: z.object({ status: z.string(), stopReasonCode: z.string().nullable() }),
  /**
   * The chat context's health: `degraded` when the CLI says next to its prompt that the context
   * is in trouble (a failed compaction, an overflowing window), with the reason in its terms.
   */
  chatContext: z.object({
    state: z.string(),
    degradedErrorType: z.string().nullable(),
  }),
  /** The operation table: whether each operation is accepted now, and why. */
  operations: z.object({
    sendPrompt: Verdict,
    interrupt: Verdict,
    resume: Verdict,
  }),
});
type TerminalSummary = z.infer<typeof TerminalSummary>;

const TurnOutcome = z.object({
  terminalId: z.string(),
  turnId: z.string(),
  /** How the wait ended: the turn `completed` or `failed`, or `timeout` (it may still run). */
  result: z.enum(['completed', 'failed', 'timeout']),
  /** The turn's outcome: `success`, `interrupted`, `known_failure`, or `none` (not known yet). */
  outcome: z.enum(['none', 'success', 'interrupted', 'known_failure']),
  /** Why, in a sentence. */
  reason: z.string(),
  /** How the turn's completion ended (`completed`, `failed`), or null when it has not. */
  completion: z.string().nullable(),
  /**
   * What the agent answered in this turn (docs/contracts.md §6): its text, read from the CLI's
   * session record (`record`) or from the screen (`screen`); null while the turn runs or when
   * paneward keeps no payload for it. `truncated`: cut at 64 KiB, or its start had scrolled out.
   */
  reply: z
    .object({
      text: z.string(),
      source: z.enum(['record', 'screen']).nullable(),
      truncated: z.boolean(),
    })
    .nullable(),
  /** How long the turn took, in ms, once it ended. */
  durationMs: z.number().nullable(),
});
type TurnOutcome = z.infer<typeof TurnOutcome>;

const Accepted = z.object({ ok: z.literal(true), terminalId: z.string(), state: TerminalSummary });

// ---- answers as text a model reads ----------------------------------------------------------

function summarize(v: TerminalView): TerminalSummary {
  return {
    terminalId: v.terminalId,
    target: v.target,
    tool: v.tool,
    toolVersion: v.toolVersion,
    toolVersionVerified: v.toolVersionVerified,
    readiness: v.readiness.status,
    activity: v.surface.businessState,
    blockedPrompt: v.surface.blockedPrompt,
    question: v.surface.question,
    availability: v.diagnostics.availability,
    turn: { phase: v.turn.phase, currentTurnId: v.turn.current?.id ?? null },
    lastTurn: { turnId: v.lastTurn.turnId, outcome: v.lastTurn.result },
    session: { status: v.session.status, stopReasonCode: v.session.stopReasonCode },
    chatContext: {
      state: v.chatContext.state,
      degradedErrorType: v.chatContext.degradedErrorType ?? null,
    },
    operations: {
      sendPrompt: v.operations.sendInput,
      interrupt: v.operations.interrupt,
      resume: v.operations.resume,
    },
  };
}

function describeTerminal(s: TerminalSummary): string {
  const name = `${s.terminalId}${s.target ? ` (pane ${s.target})` : ''}: ${s.tool}${s.toolVersion ? ` ${s.toolVersion}` : ''}${s.toolVersionVerified === false ? ' (unverified)' : ''}`;
  const turn = s.turn.currentTurnId ? `, turn ${s.turn.currentTurnId} running` : '';
  const last = s.lastTurn.turnId
    ? `; last turn ${s.lastTurn.turnId}: ${s.lastTurn.outcome}`
    : '; no turn yet';
  const blocked = s.blockedPrompt ? ` (on screen: ${s.blockedPrompt})` : '';
  const op = (name: string, v: z.infer<typeof Verdict>) => `${name}: ${v.allowed} (${v.reason})`;
  const context =
    s.chatContext.state === 'degraded'
      ? `; chat context degraded (${s.chatContext.degradedErrorType ?? 'unknown'})`
      : '';
  const q = s.question;
  const asks = q
    ? [
        `  question ${q.id} (${q.kind}${q.subject ? `: ${q.subject}` : ''}): ${
          q.choices.length === 0
            ? 'no choice paneward can give; a person must answer it in the pane'
            : q.choices.map((c) => `${c.id} = "${c.label}"`).join('; ')
        }`,
      ]
    : [];
  return [
    `${name} — ${s.readiness}${blocked}${turn}${last}${context}; session ${s.session.status}${s.session.stopReasonCode ? ` (${s.session.stopReasonCode})` : ''}`,
    `  ${op('send_prompt', s.operations.sendPrompt)}; ${op('interrupt', s.operations.interrupt)}; ${op('resume', s.operations.resume)}`,
    ...asks,
  ].join('\n');
}

function outcomeOf(terminalId: string, r: TurnResponse, timeoutSeconds: number): TurnOutcome {
  const own = r.lastTurn.turnId === r.turnId;
  const outcome = own ? r.lastTurn.result : 'none';
  let reason: string;
  if (r.result === 'timeout') {
    reason = `the turn had not ended after ${timeoutSeconds} s; it may still be running: wait again with wait_for_turn (terminal "${terminalId}", turnId "${r.turnId}") or stop it with interrupt`;
  } else if (outcome === 'success') {
    reason = 'the agent finished the turn and waits for a prompt again';
  } else if (outcome === 'interrupted') {
    reason = 'the turn was interrupted before the agent finished it';
  } else if (outcome === 'known_failure') {
    reason =
      'the agent showed a failure for this turn (an API error, say); read its screen with terminal_state';
  } else if (r.result === 'failed') {
    reason = `the turn's completion failed (${r.completion?.status ?? 'unknown'}) with no outcome on screen; read the screen with terminal_state`;
  } else {
    reason =
      'the turn ended, but its outcome could not be read from the screen; read it with terminal_state';
  }
  return {
    terminalId,
    turnId: r.turnId,
    result: r.result,
    outcome,
    reason,
    completion: r.completion?.status ?? null,
    reply: r.payload?.ended ? r.payload.reply : null,
    durationMs: r.payload?.timing.durationMs ?? null,
  };
}

function describeOutcome(o: TurnOutcome): string {
  const head = `${o.turnId} on ${o.terminalId}: ${o.result === 'timeout' ? 'timeout' : o.outcome} — ${o.reason}`;
  if (o.reply === null || o.reply.source === null) return head;
  const from = o.reply.source === 'record' ? 'its session record' : 'the screen';
  const cut = o.reply.truncated ? ', not whole' : '';
  return `${head}\n\nThe agent's reply (from ${from}${cut}):\n${o.reply.text}`;
}

/**
 * What a model can do about a refusal, after the API's own sentence: each error code the
 * operation table answers with, said as the next step to take.
 */
export function adviceFor(f: BackendFailure, where: string): string {
  const d = (f.details ?? {}) as {
    allowed?: string;
    pendingTurnId?: string;
    turnPhase?: string;
    reason?: string;
  };
  switch (f.code) {
    case 'unknown_terminal':
    case 'not_found':
      return 'call list_terminals for the ids of the terminals there are';
    case 'unknown_turn':
      return 'that turn id is none of this terminal’s: wait on the turnId send_prompt answered, or read terminal_state (lastTurn) for its latest turn';
    case 'not_ready':
      if (d.pendingTurnId || d.turnPhase === 'active') {
        return `the terminal is busy${d.pendingTurnId ? `: ${d.pendingTurnId} is running` : ''}; wait for it with wait_for_turn, or stop it with interrupt, then send again`;
      }
      if (d.allowed === 'wait') {
        return 'it should accept a prompt soon by itself: check terminal_state in a few seconds, then send again';
      }
      return 'nothing was typed; it will not accept a prompt until that changes: read terminal_state (with its screen) to see why';
    case 'refused':
      return 'nothing was done; terminal_state says which operations it accepts now';
    case 'invalid_input':
      return 'nothing was typed; fix that argument and call again';
    case 'stopped':
      return 'the terminal went away (detached, or paneward stopped); call list_terminals';
    case 'unreachable':
      return `paneward is not reachable (${where}): is \`paneward serve\` running? nothing was done`;
    case 'connection_lost':
    case 'tmux_timeout':
      return 'it may or may not have been typed: read terminal_state before sending again';
    case 'tmux_failed':
    case 'tmux_missing':
      return 'tmux refused; nothing more was typed; read terminal_state before trying again';
    case 'host_refused':
      return "the pane's host refused the fleet server's signature: nothing was done; the fleet server and that host need the same fleet token";
    case 'unauthorized':
    case 'http_401':
      return 'paneward wants a token: give `paneward mcp` --token-file or PANEWARD_TOKEN';
    default:
      return '';
  }
}

function refusal(error: unknown, where: string): CallToolResult {
  const f = failureOf(error);
  const advice = adviceFor(f, where);
  return {
    content: [{ type: 'text', text: `${f.code}: ${f.message}${advice ? ` — ${advice}` : ''}` }],
    isError: true,
  };
}

function answer<T extends Record<string, unknown>>(text: string, data: T): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: data };
}

/** The screen without the blank rows below what was drawn. */
const trimScreen = (text: string): string => text.replace(/\s+$/, '');

/** Where an MCP call can report progress, when its client asked for it. */
interface CallExtra {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification: (n: {
    method: 'notifications/progress';
    params: { progressToken: string | number; progress: number; message?: string };
  }) => Promise<void>;
}

/** Reports progress every few seconds while `work` runs (clients reset their timeout on it). */
async function withProgress<T>(
  extra: CallExtra,
  what: string,
  work: Promise<T>,
  everyMs: number,
): Promise<T> {
  const token = extra._meta?.progressToken;
  if (token === undefined) return work;
  const started = Date.now();
  const timer = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    void extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: seconds, message: `${what}: ${seconds} s` },
      })
      .catch(() => {});
  }, everyMs);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}

const SERVER_INSTRUCTIONS = `paneward supervises AI coding-agent CLIs (Claude Code, Codex, Gemini CLI, …) running in tmux panes and says truthfully whether each is ready, working, finished, interrupted, failed, blocked on a prompt for the operator, stalled or gone.
Use list_terminals to see them, spawn to start a new one and stop to end one it started, terminal_state to see one (with its screen), send_prompt to give one a task and wait for the outcome of that turn, wait_for_turn to keep waiting after a timeout, interrupt to stop a running turn, resume to restart a session the watchdog blocked.
Every answer carries the operation table: whether send_prompt, interrupt and resume are accepted now, and why. A refused call typed nothing.`;

/**
 * The MCP server of paneward: one tool per operation of the HTTP API that drives a terminal,
 * each answering with the API's verdicts and reasons as text and as `structuredContent`, each
 * refusal a tool error (`isError`) saying what to do next.
 */
export function createMcpServer(
  backend: McpBackend,
  version: string,
  options: McpServerOptions = {},
): McpServer {
  const progressMs = options.progressMs ?? PROGRESS_MS;
  const server = new McpServer(
    { name: 'paneward', version },
    { instructions: SERVER_INSTRUCTIONS, capabilities: { tools: {} } },
  );
  const resolve = (arg: string) => backend.resolve(arg);
  const guarded =
    <A>(body: (args: A, extra: CallExtra) => Promise<CallToolResult>) =>
    async (args: A, extra: CallExtra): Promise<CallToolResult> => {
      try {
        return await body(args, extra);
      } catch (error) {
        return refusal(error, backend.where);
      }
    };

  server.registerTool(
    'list_terminals',
    {
      title: 'List terminals',
      description:
        "Lists every agent terminal paneward supervises: its id, tmux pane, CLI, readiness (ready, waiting, blocked, unknown, stalled, failed), the turn running and the last turn's outcome, and whether it accepts a prompt now and why. Use it first to find the terminal id to pass to the other tools. Answers at once.",
      inputSchema: {},
      outputSchema: { terminals: z.array(TerminalSummary) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(async () => {
      const terminals = (await backend.list()).map(summarize);
      const text =
        terminals.length === 0
          ? 'no terminals are supervised'
          : terminals.map(describeTerminal).join('\n');
      return answer(text, { terminals });
    }),
  );

  server.registerTool(
    'terminal_state',
    {
      title: "A terminal's state and screen",
      description:
        "Reads one terminal: where it stands (readiness, the turn running, the last turn's outcome, the watchdog's session status), why it does or does not accept a prompt, an interrupt or a resume now, and, unless screen is false, the pane's latest screen as text. Use it to look before acting, or to see why a turn failed or what a prompt for the operator asks. Answers at once.",
      inputSchema: {
        terminal: TerminalArg,
        screen: z
          .boolean()
          .default(true)
          .describe("Include the pane's latest screen as text (default true)."),
      },
      outputSchema: {
        terminal: TerminalSummary,
        screen: z.string().nullable(),
        screenAt: z.number().nullable(),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(async ({ terminal, screen }: { terminal: string; screen: boolean }) => {
      const id = await resolve(terminal);
      const s = summarize(await backend.get(id));
      const shot = screen ? await backend.screen(id) : { text: null, t: null };
      const text = shot.text === null ? null : trimScreen(shot.text);
      const shown = !screen
        ? ''
        : text === null
          ? '\n(no screen captured yet)'
          : `\n--- screen ---\n${text}\n--- end of screen ---`;
      return answer(`${describeTerminal(s)}${shown}`, {
        terminal: s,
        screen: text,
        screenAt: shot.t,
      });
    }),
  );

  server.registerTool(
    'send_prompt',
    {
      title: 'Send a prompt and wait for the turn',
      description: `Types a prompt into an agent terminal, submits it, and waits until the agent has finished that turn; answers with the turn id, its outcome (success, interrupted, known_failure) and the agent's reply text (reply: from its session record or its screen), or result "timeout" when it had not ended within timeoutSeconds (the turn goes on: call wait_for_turn with the turn id; never send the prompt again). Refused, with nothing typed, when the terminal does not accept a prompt now (busy with another turn, waiting for the operator, gone, blocked by the watchdog): the error says why and what to do. Blocks for as long as the agent works, up to timeoutSeconds (default ${DEFAULT_WAIT_SECONDS} s).`,
      inputSchema: {
        terminal: TerminalArg,
        prompt: PromptText.describe(
          `The prompt, typed literally (newlines and tabs allowed; no other control characters; at most ${MAX_PROMPT_CHARS} characters).`,
        ),
        timeoutSeconds: WaitSeconds,
      },
      outputSchema: TurnOutcome.shape,
      annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    guarded(
      async (
        {
          terminal,
          prompt,
          timeoutSeconds,
        }: { terminal: string; prompt: string; timeoutSeconds: number },
        extra,
      ) => {
        const id = await resolve(terminal);
        const turnId = await backend.submit(id, prompt, false);
        let r: TurnResponse;
        try {
          r = await withProgress(
            extra,
            `waiting for ${turnId}`,
            backend.wait(id, turnId, timeoutSeconds, extra.signal),
            progressMs,
          );
        } catch (error) {
          // The prompt was typed: whatever went wrong, the answer names the turn it started.
          const f = failureOf(error);
          return {
            content: [
              {
                type: 'text',
                text: `${f.code}: ${turnId} was typed into ${id}, then waiting for it failed: ${f.message}. Do not send the prompt again; follow the turn with wait_for_turn (turnId "${turnId}") or terminal_state.`,
              },
            ],
            isError: true,
          };
        }
        const o = outcomeOf(id, r, timeoutSeconds);
        return answer(describeOutcome(o), o);
      },
    ),
  );

  server.registerTool(
    'wait_for_turn',
    {
      title: 'Wait for a turn',
      description:
        'Waits for a turn send_prompt started (by its turn id, e.g. "turn-3") to end, and answers with its outcome as send_prompt does; answers at once when the turn is over already. Use it after send_prompt answered "timeout". Blocks up to timeoutSeconds.',
      inputSchema: {
        terminal: TerminalArg,
        turnId: z
          .string()
          .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be a turn id such as turn-3')
          .describe('The turn id send_prompt answered.'),
        timeoutSeconds: WaitSeconds,
      },
      outputSchema: TurnOutcome.shape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(
      async (
        {
          terminal,
          turnId,
          timeoutSeconds,
        }: { terminal: string; turnId: string; timeoutSeconds: number },
        extra,
      ) => {
        const id = await resolve(terminal);
        const r = await withProgress(
          extra,
          `waiting for ${turnId}`,
          backend.wait(id, turnId, timeoutSeconds, extra.signal),
          progressMs,
        );
        const o = outcomeOf(id, r, timeoutSeconds);
        return answer(describeOutcome(o), o);
      },
    ),
  );

  server.registerTool(
    'interrupt',
    {
      title: 'Interrupt the running turn',
      description:
        "Sends the agent CLI's own interrupt keys (Escape for most) to stop the turn it is working on. Refused, with nothing typed, when no turn is running. The turn then ends as interrupted: wait_for_turn tells. Answers at once with the terminal's state.",
      inputSchema: { terminal: TerminalArg },
      outputSchema: Accepted.shape,
      annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    guarded(async ({ terminal }: { terminal: string }) => {
      const id = await resolve(terminal);
      await backend.interrupt(id);
      const s = summarize(await backend.get(id));
      return answer(`interrupt keys sent to ${id}\n${describeTerminal(s)}`, {
        ok: true as const,
        terminalId: id,
        state: s,
      });
    }),
  );

  server.registerTool(
    'answer_question',
    {
      title: 'Answer the question on screen',
      description:
        "Answers the question a dialog on the agent's screen asks (a tool or command needs permission, a folder needs trust) with one of its choices, as terminal_state lists them under question: its id and the choice ids (allow_once, allow_always, deny, trust, ...). Typed only while that very question is on screen, with the CLI's own keys for that choice; then checked that the dialog closed. Refused, with nothing typed, when no question waits, another question is on screen, or the choice is not one it offers. Answers within seconds with the terminal's state.",
      inputSchema: {
        terminal: TerminalArg,
        questionId: z.string().describe('the question id terminal_state shows (q-…)'),
        choice: z.string().describe("one of the question's choice ids"),
      },
      outputSchema: Accepted.shape,
      annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    guarded(
      async ({
        terminal,
        questionId,
        choice,
      }: {
        terminal: string;
        questionId: string;
        choice: string;
      }) => {
        const id = await resolve(terminal);
        const done = await backend.answer(id, questionId, choice);
        const s = summarize(await backend.get(id));
        return answer(
          `answered ${done.questionId} (${done.kind}) with ${done.choice}; the dialog closed\n${describeTerminal(s)}`,
          { ok: true as const, terminalId: id, state: s },
        );
      },
    ),
  );

  server.registerTool(
    'resume',
    {
      title: 'Resume a blocked session',
      description:
        "Resumes a session paneward's watchdog blocked (its wall-clock budget ran out): a fresh budget, and the terminal accepts prompts again. Types nothing. Refused when the session is not blocked. Answers at once with the terminal's state.",
      inputSchema: { terminal: TerminalArg },
      outputSchema: Accepted.shape,
      annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    guarded(async ({ terminal }: { terminal: string }) => {
      const id = await resolve(terminal);
      await backend.resume(id);
      const s = summarize(await backend.get(id));
      return answer(`resumed ${id}\n${describeTerminal(s)}`, {
        ok: true as const,
        terminalId: id,
        state: s,
      });
    }),
  );

  server.registerTool(
    'spawn',
    {
      title: 'Start an agent CLI',
      description:
        "Starts an agent CLI (claude_code, codex, gemini_cli, opencode, kilo, qwen_code, pi, cline, copilot, grok_cli) in a new tmux window the way paneward's launch recipe for it says, supervises it, and answers once it is ready for a prompt (or blocked on a first-run dialog, which terminal_state shows) with its terminal id for send_prompt. With worktree, it runs in a new git worktree of cwd on that new branch, so parallel agents do not edit the same files. Blocks while the CLI starts, usually seconds, at most readyTimeoutSeconds.",
      inputSchema: {
        tool: z
          .string()
          .regex(/^[a-z][a-z0-9_]{0,31}$/, 'must be a tool id such as claude_code or codex')
          .describe(
            'Which agent CLI: claude_code, codex, gemini_cli, opencode, kilo, qwen_code, pi, cline, copilot or grok_cli.',
          ),
        cwd: z
          .string()
          .startsWith('/', 'must be an absolute path')
          .optional()
          .describe("The folder it works in (absolute); default: paneward's working directory."),
        name: z
          .string()
          .min(1)
          .max(64)
          .optional()
          .describe('The tmux window name; default: the tool id.'),
        session: z
          .string()
          .min(1)
          .max(64)
          .optional()
          .describe(
            'The tmux session to open the window in (created when missing); default "paneward".',
          ),
        worktree: z
          .string()
          .min(1)
          .max(100)
          .optional()
          .describe('Run it in a new git worktree of cwd on this new branch.'),
        args: z
          .array(z.string().max(8192))
          .max(64)
          .optional()
          .describe('Extra arguments for the CLI, each passed as it is (never through a shell).'),
        env: z
          .record(z.string(), z.string().max(8192))
          .optional()
          .describe('Environment variables for the CLI (values are never shown back).'),
        restart: z
          .enum(['never', 'on-failure'])
          .optional()
          .describe(
            'Start it again, resuming its conversation where it can, when it dies (on-failure); default never.',
          ),
        readyTimeoutSeconds: z
          .number()
          .positive()
          .max(600)
          .optional()
          .describe('How long to wait for it to be ready, in seconds.'),
      },
      outputSchema: {
        terminalId: z.string(),
        state: TerminalSummary,
        spawned: z.record(z.string(), z.unknown()).nullable(),
      },
      annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    guarded(async (args: SpawnArgs) => {
      const { view, spawned } = await backend.spawn(args);
      const s = summarize(view);
      return answer(`started ${args.tool} as ${s.terminalId}\n${describeTerminal(s)}`, {
        terminalId: s.terminalId,
        state: s,
        spawned,
      });
    }),
  );

  server.registerTool(
    'stop',
    {
      title: 'Stop a started agent CLI',
      description:
        "Ends an agent CLI paneward started (spawn) with the CLI's own exit command, closes its tmux window and stops supervising it. Refused for a pane paneward did not start, and while a turn runs (interrupt it first). removeWorktree also removes the git worktree it was started in, unless that has changes (then refused: nothing is lost). Blocks until the CLI has ended, seconds.",
      inputSchema: {
        terminal: TerminalArg,
        removeWorktree: z
          .boolean()
          .optional()
          .describe(
            'Also remove the git worktree it was started in (refused when it has changes).',
          ),
      },
      outputSchema: {
        ok: z.literal(true),
        terminalId: z.string(),
        ended: z.string(),
        worktreeRemoved: z.string().nullable(),
      },
      annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    guarded(
      async ({ terminal, removeWorktree }: { terminal: string; removeWorktree?: boolean }) => {
        const id = await resolve(terminal);
        const r = await backend.stop(id, removeWorktree === undefined ? {} : { removeWorktree });
        return answer(
          `stopped ${id} (${r.ended})${r.worktreeRemoved ? `; removed worktree ${r.worktreeRemoved}` : ''}`,
          { ok: true as const, terminalId: id, ended: r.ended, worktreeRemoved: r.worktreeRemoved },
        );
      },
    ),
  );

  return server;
}
