import { inWords } from '../internal/in-words.js';
import { LAUNCH_RECIPES } from '../profiles/launch.js';
import { createInterface } from 'node:readline/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { PanewardError } from '../errors.js';
import type { SpawnRequest } from '../schemas/operations/index.js';
import { ClientError, EXIT, type ClientOptions } from './client-api.js';
import { common, run, TERMINAL_ARG, terminalIdOf } from './client.js';
import { defaultIo, type ClientIo } from './client-io.js';

interface SpawnOptions extends ClientOptions {
  cwd?: string;
  name?: string;
  session?: string;
  id?: string;
  worktree?: string;
  env: string[];
  restart?: string;
  budget?: string;
  readyTimeout?: string;
}

const collect = (value: string, all: string[]) => [...all, value];

/** `K=V` pairs, each checked: a name, then `=`; the service checks the rest. */
export function parseEnv(pairs: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      throw new PanewardError(
        'invalid_input',
        `field \`--env\`: must be NAME=VALUE, got ${JSON.stringify(pair)}`,
      );
    }
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}

const seconds = (value: string | undefined, flag: string): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) {
    throw new PanewardError('invalid_input', `field \`${flag}\`: must be a number of seconds`);
  }
  return n;
};

/** The request a `paneward spawn` command line makes (the folder made absolute here). */
export function spawnRequest(tool: string, args: readonly string[], o: SpawnOptions): SpawnRequest {
  const budget = seconds(o.budget, '--budget');
  const ready = seconds(o.readyTimeout, '--ready-timeout');
  if (o.restart !== undefined && o.restart !== 'never' && o.restart !== 'on-failure') {
    throw new PanewardError('invalid_input', 'field `--restart`: must be never or on-failure');
  }
  return {
    tool,
    cwd: resolve(o.cwd ?? process.cwd()),
    ...(o.name !== undefined ? { name: o.name } : {}),
    ...(o.session !== undefined ? { session: o.session } : {}),
    ...(o.id !== undefined ? { id: o.id } : {}),
    ...(o.worktree !== undefined ? { worktree: o.worktree } : {}),
    ...(o.env.length > 0 ? { env: parseEnv(o.env) } : {}),
    ...(args.length > 0 ? { args: [...args] } : {}),
    ...(o.restart !== undefined ? { restart: o.restart } : {}),
    ...(budget !== undefined ? { sessionWallClockSeconds: budget } : {}),
    ...(ready !== undefined ? { readyTimeoutSeconds: ready } : {}),
  };
}

/** Asks a yes/no question on the terminal; no terminal: no. */
async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

/** `paneward spawn` and `paneward stop`. */
export function registerSpawn(
  program: Command,
  io: () => ClientIo = defaultIo,
  ask: (question: string) => Promise<boolean> = confirm,
): void {
  common(
    program
      .command('spawn')
      .description(
        'Start an agent CLI in a new tmux window and supervise it; prints its terminal id once it is ready.',
      )
      .argument('<tool>', inWords(Object.keys(LAUNCH_RECIPES)))
      .argument('[args...]', 'after --: arguments for the CLI, each passed as it is')
      .option('--cwd <dir>', 'the folder it works in (default: this one)')
      .option('--name <name>', 'the tmux window name (default: the tool)')
      .option('--session <name>', 'the tmux session (created when missing; default paneward)')
      .option('--id <id>', 'terminal id (default: session-window)')
      .option(
        '--worktree <branch>',
        'run it in a new git worktree of the folder on this new branch',
      )
      .option('--env <K=V>', 'an environment variable for the CLI (repeatable)', collect, [])
      .option('--restart <policy>', 'never (default) or on-failure: start it again when it dies')
      .option('--budget <seconds>', 'session wall-clock budget (default 14400; 0: none)')
      .option('--ready-timeout <seconds>', 'how long to wait for it to be ready (default 60)'),
  ).action((tool: string, args: string[], o: SpawnOptions) =>
    run(io(), o, async (api) => {
      const v = await api.spawn(spawnRequest(tool, args, o));
      if (o.json) io().out(JSON.stringify(v));
      else {
        const where = v.spawned.worktree ? ` in ${v.spawned.worktree.path}` : '';
        io().out(`${v.terminalId} ${v.spawned.paneId} ${v.readiness.status}${where}`);
      }
      return EXIT.ok;
    }),
  );

  common(
    program
      .command('stop')
      .description("End a terminal's CLI with its own exit command, then its window.")
      .argument('<terminal>', TERMINAL_ARG)
      .option('--force', 'also a pane paneward did not start; a worktree with changes too')
      .option('--remove-worktree', 'remove the worktree it was started in (asks if it has changes)')
      .option('--timeout <seconds>', 'wait this long for it to exit before its window is killed'),
  ).action(
    (
      arg: string,
      o: ClientOptions & { force?: boolean; removeWorktree?: boolean; timeout?: string },
    ) =>
      run(io(), o, async (api) => {
        const id = await terminalIdOf(api, arg);
        const timeoutSeconds = seconds(o.timeout, '--timeout');
        const options = {
          ...(o.force ? { force: true } : {}),
          ...(o.removeWorktree ? { removeWorktree: true } : {}),
          ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
        };
        let r;
        try {
          r = await api.stop(id, options);
        } catch (error) {
          const changed =
            error instanceof ClientError &&
            (error.details as { reason?: string } | undefined)?.reason === 'worktree_changed';
          if (!changed || o.force || !(await ask(`${error.message}. Remove it anyway?`))) {
            throw error;
          }
          r = await api.stop(id, { ...options, force: true });
        }
        if (o.json) io().out(JSON.stringify(r));
        else
          io().out(`${id} ${r.ended}${r.worktreeRemoved ? `, removed ${r.worktreeRemoved}` : ''}`);
        return EXIT.ok;
      }),
  );
}
