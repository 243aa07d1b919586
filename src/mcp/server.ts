import { inWords } from '../internal/in-words.js';
import { LAUNCH_RECIPES } from '../profiles/launch.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MAX_PROMPT_CHARS, PromptText } from '../schemas/prompt.js';
import type { TurnResponse } from '../schemas/operations/index.js';
import { failureOf, type McpBackend, type SpawnArgs } from './backend.js';
import { answer, refusal, trimScreen, withProgress, type CallExtra } from './replies.js';
import {
  Accepted,
  DEFAULT_WAIT_SECONDS,
  describeOutcome,
  describeTerminal,
  outcomeOf,
  SERVER_INSTRUCTIONS,
  summarize,
  TerminalArg,
  TerminalSummary,
  TurnOutcome,
  WaitSeconds,
} from './summary.js';

/** How often a waiting call reports progress to a client that asked for it. */
const PROGRESS_MS = 10_000;

export interface McpServerOptions {
  /** How often a waiting call reports progress (ms; default 10 s). */
  progressMs?: number;
}

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
      description: `Starts an agent CLI (${Object.keys(LAUNCH_RECIPES).join(', ')}) in a new tmux window the way paneward's launch recipe for it says, supervises it, and answers once it is ready for a prompt (or blocked on a first-run dialog, which terminal_state shows) with its terminal id for send_prompt. With worktree, it runs in a new git worktree of cwd on that new branch, so parallel agents do not edit the same files. Blocks while the CLI starts, usually seconds, at most readyTimeoutSeconds.`,
      inputSchema: {
        tool: z
          .string()
          .regex(/^[a-z][a-z0-9_]{0,31}$/, 'must be a tool id such as claude_code or codex')
          .describe(`Which agent CLI: ${inWords(Object.keys(LAUNCH_RECIPES))}.`),
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
