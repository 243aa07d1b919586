import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { TurnResponse } from '../schemas/operations/index.js';
import { failureOf, type McpBackend } from './backend.js';
import { answer, refusal, trimScreen, withProgress, type CallExtra } from './replies.js';
import {
  Accepted,
  describeOutcome,
  describeTerminal,
  outcomeOf,
  SERVER_INSTRUCTIONS,
  summarize,
  TerminalSummary,
  TurnOutcome,
} from './summary.js';
import { toolConfig, type SpawnArgs } from './tools.js';

/** How often a waiting call reports progress to a client that asked for it. */
const PROGRESS_MS = 10_000;

export interface McpServerOptions {
  /** How often a waiting call reports progress (ms; default 10 s). */
  progressMs?: number;
}

/**
 * The MCP server of paneward: one tool per operation a model drives a terminal by, each built
 * on that operation's contract (`./tools.ts`: its fields, its summary), each answering with the API's verdicts and reasons as text and as `structuredContent`, each
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
  // The SDK has checked the arguments against the tool's input (`toolConfig`) before: `A` is
  // what that input gives.
  const guarded =
    <A>(body: (args: A, extra: CallExtra) => Promise<CallToolResult>) =>
    async (args: Record<string, unknown>, extra: CallExtra): Promise<CallToolResult> => {
      try {
        return await body(args as A, extra);
      } catch (error) {
        return refusal(error, backend.where);
      }
    };

  server.registerTool(
    'list_terminals',
    {
      ...toolConfig('list_terminals'),
      outputSchema: { terminals: z.array(TerminalSummary) },
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
      ...toolConfig('terminal_state'),
      outputSchema: {
        terminal: TerminalSummary,
        screen: z.string().nullable(),
        screenAt: z.number().nullable(),
      },
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
      ...toolConfig('send_prompt'),
      outputSchema: TurnOutcome.shape,
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
      ...toolConfig('wait_for_turn'),
      outputSchema: TurnOutcome.shape,
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
      ...toolConfig('interrupt'),
      outputSchema: Accepted.shape,
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
      ...toolConfig('answer_question'),
      outputSchema: Accepted.shape,
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
      ...toolConfig('resume'),
      outputSchema: Accepted.shape,
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
      ...toolConfig('spawn'),
      outputSchema: {
        terminalId: z.string(),
        state: TerminalSummary,
        spawned: z.record(z.string(), z.unknown()).nullable(),
      },
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
      ...toolConfig('stop'),
      outputSchema: {
        ok: z.literal(true),
        terminalId: z.string(),
        ended: z.string(),
        worktreeRemoved: z.string().nullable(),
      },
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
