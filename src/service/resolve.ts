import type { PaneNames } from '../observe/pane-names.js';
import { Target } from '../schemas/target.js';

/** A terminal as a list of terminals gives it: what resolving needs of it. */
export interface Listed {
  terminalId: string;
  target: string | null;
  /** The pane's id `%N`, where the service says it (its own tmux's). */
  paneId?: string | null;
  /** On a fleet server: the host whose pane it is (its view, or its id). */
  host?: string | { id: string };
}

/** Why a terminal argument names no terminal, or several. */
export class ResolveError extends Error {
  override readonly name = 'ResolveError';
  constructor(
    readonly code: 'not_found' | 'ambiguous',
    /** The argument as given. */
    readonly arg: string,
    message: string,
    /** The terminals it names (several, for `ambiguous`). */
    readonly matches: readonly Listed[] = [],
  ) {
    super(message);
  }
}

export interface ResolveOptions {
  /** How the argument is called where it was given, for the messages (`<terminal>`, `terminal`). */
  argName?: string;
  /**
   * What tmux calls a pane both ways, where the service's panes are this tmux's; absent (a
   * remote service) only the targets as attached are compared.
   */
  paneNames?: (target: string) => Promise<PaneNames | null>;
}

/**
 * The terminal an argument names: the one resolver of the CLI, the MCP server and whatever else
 * takes a terminal from a person or a model. A terminal id (a terminal's name, `work-claude`, in
 * a fleet `host/id`) is used as it is: the service answers for one it does not know. A pane id
 * `%N` or a target `session:window.pane` is looked up among the terminals by the target each was
 * attached as and the pane id the service gives, then, where tmux can say, by the other name tmux
 * gives the same pane (`%3` for a terminal attached as `work:1.0`, and back). A pane id needs no
 * tmux: it is found from anywhere the service answers. A terminal whose id is the argument itself wins
 * over any target. No terminal, or several (a fleet has a `%3` on every host), is a
 * `ResolveError` naming the argument. The list is asked for only when a pane is to be looked up.
 */
export async function resolveTerminal(
  arg: string,
  list: () => Promise<readonly Listed[]> | readonly Listed[],
  options: ResolveOptions = {},
): Promise<string> {
  const parsed = Target.safeParse(arg);
  if (!parsed.success) return arg;
  const target = parsed.data;
  const argName = options.argName ?? '<terminal>';
  const terminals = await list();
  if (terminals.some((t) => t.terminalId === arg)) return arg;
  // A pane id the service gave is the pane's for its life; a target's indexes may have moved.
  const named = (t: Listed, name: string) => t.target === name || (!!t.paneId && t.paneId === name);
  let found = terminals.filter((t) => named(t, target));
  if (found.length === 0 && options.paneNames) {
    const names = await options.paneNames(target);
    if (names) found = terminals.filter((t) => named(t, names.paneId) || named(t, names.target));
  }
  if (found.length === 1) return found[0]!.terminalId;
  if (found.length === 0) {
    throw new ResolveError(
      'not_found',
      arg,
      `${argName} ${arg}: no terminal is attached to that pane`,
    );
  }
  const which = found
    .map((t) => {
      const host = typeof t.host === 'string' ? t.host : t.host?.id;
      return host ? `${t.terminalId} (host ${host})` : t.terminalId;
    })
    .join(', ');
  throw new ResolveError(
    'ambiguous',
    arg,
    `${argName} ${arg}: names ${found.length} terminals (${which}); name one by its terminal id`,
    found,
  );
}

/** Whether a service's URL is this machine's (its panes are then the local tmux's). */
export function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]' || host === '::1';
}
