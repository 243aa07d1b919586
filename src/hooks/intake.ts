import { resolve } from 'node:path';
import { PanewardError } from '../errors.js';
import type { HookAnswer, HookEventBody } from '../schemas/hook.js';
import { hookTools, hookTurnEvent, type HookTurnEvent } from './events.js';

/** What taking a hook's event needs from the supervisor. */
export interface HookIntakeDeps {
  /**
   * The tmux server the supervisor reads, as seen from the pane the hook names: its pid and
   * socket path, or null when that pane is not on it.
   */
  serverOf(pane: string): Promise<{ pid: number; socketPath: string } | null>;
  /** The supervised terminals: id, pane id (when known) and tool. */
  terminals(): ReadonlyArray<{ id: string; pane: string | undefined; tool: string }>;
  /** Hands the event to the terminal's witness; false when it takes none (or is not running). */
  deliver(id: string, event: HookTurnEvent): boolean;
}

/** The `TMUX` variable tmux sets in a pane: socket path, server pid, session. */
function parseTmux(tmux: string): { socketPath: string; pid: number } {
  const m = /^(.*),(\d+),\d+$/.exec(tmux);
  return { socketPath: m?.[1] ?? '', pid: Number(m?.[2] ?? NaN) };
}

/**
 * Takes one event a CLI's hook posted (docs/hooks.md): finds the supervised terminal of the
 * pane it ran in (the same tmux server, by socket and pid, and the same pane id) and hands its
 * turn event to that terminal's witness. Never types anything. An unknown tool, another tmux
 * server or a pane no terminal supervises is a clear error, and nothing else happens.
 */
export async function takeHookEvent(
  d: HookIntakeDeps,
  tool: string,
  body: HookEventBody,
): Promise<HookAnswer> {
  if (!hookTools().includes(tool)) {
    throw new PanewardError(
      'invalid_input',
      `path \`tool\`: paneward takes no hook events of ${JSON.stringify(tool)} (it knows ${hookTools().join(', ')})`,
      { details: { field: 'tool' } },
    );
  }
  const said = parseTmux(body.tmux);
  const server = await d.serverOf(body.pane);
  const same =
    server !== null &&
    server.pid === said.pid &&
    resolve(server.socketPath) === resolve(said.socketPath);
  if (!same) {
    throw new PanewardError(
      'unknown_terminal',
      `field \`tmux\`: pane ${body.pane} of the tmux server at ${said.socketPath} (pid ${said.pid}) is not on the tmux server this service supervises`,
      { details: { field: 'tmux', pane: body.pane } },
    );
  }
  const terminal = d.terminals().find((t) => t.pane === body.pane);
  if (!terminal) {
    throw new PanewardError(
      'unknown_terminal',
      `field \`pane\`: no supervised terminal runs in pane ${body.pane}`,
      { details: { field: 'pane', pane: body.pane } },
    );
  }
  if (terminal.tool !== tool) {
    throw new PanewardError(
      'refused',
      `path \`tool\`: pane ${body.pane} is supervised as ${terminal.tool}, not ${tool}`,
      { details: { field: 'tool', terminalId: terminal.id } },
    );
  }
  const event = hookTurnEvent(tool, body.event, body.error);
  const taken = event !== null && d.deliver(terminal.id, event);
  return { terminalId: terminal.id, taken: taken ? event.type : 'ignored' };
}
