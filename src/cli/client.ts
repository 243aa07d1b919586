import type { Command } from 'commander';
import { PanewardError, type PanewardErrorCode } from '../errors.js';
import type { TurnResponse } from '../schemas/operations/index.js';
import { DEFAULT_URL } from '../service/address.js';
import { ApiClient, CliExit, ClientError, EXIT, type ClientOptions } from './client-api.js';
import { briefRecord } from './journal.js';
import { terminalTable } from './table.js';
import { untilStopSignal } from './signals.js';
import { CLIENT_FIELDS, cliMessage, fieldNamesOf, type FieldNames } from './messages.js';
import { paneNames } from '../observe/pane-names.js';
import { isLoopback, ResolveError, resolveTerminal } from '../service/resolve.js';
import { defaultIo, type ClientIo } from './client-io.js';
import { describeState, printReply } from './describe.js';
import { followEvents } from './follow-events.js';

export {
  ApiClient,
  CliExit,
  ClientError,
  EXIT,
  EXIT_HELP,
  exitFor,
  type ClientOptions,
} from './client-api.js';

/** Runs one client command: prints, and throws CliExit for a non-zero exit. */
export async function run(
  io: ClientIo,
  o: ClientOptions,
  body: (api: ApiClient) => Promise<number>,
): Promise<void> {
  const api = new ApiClient(o, io.env);
  let code: number;
  try {
    code = await body(api);
  } catch (error) {
    if (!(error instanceof ClientError)) throw error;
    if (o.json)
      io.out(
        JSON.stringify({
          error: { code: error.code, message: error.message, details: error.details ?? null },
        }),
      );
    io.err(`paneward: ${cliMessage(error.message, { ...CLIENT_FIELDS, ...acting })}`);
    code = error.exitCode;
  }
  if (code !== EXIT.ok) throw new CliExit(code);
}

/** What a terminal argument accepts. */
export const TERMINAL_ARG = 'terminal id, pane id %N, or session:window.pane';

/**
 * The terminal id an argument names (the service's one resolver): a pane id or a target is
 * looked up in the server's list, and for a server on this machine in the local tmux too.
 */
export async function terminalIdOf(
  api: ApiClient,
  arg: string,
  argName = '<terminal>',
): Promise<string> {
  try {
    return await resolveTerminal(arg, () => api.list(), {
      argName,
      ...(isLoopback(api.url) ? { paneNames: (t: string) => paneNames(t) } : {}),
    });
  } catch (error) {
    if (!(error instanceof ResolveError)) throw error;
    if (error.code === 'ambiguous') throw new ClientError(EXIT.usage, error.code, error.message);
    throw new ClientError(
      EXIT.notFound,
      error.code,
      `${error.message} (paneward ls lists them; paneward attach ${arg} attaches it)`,
    );
  }
}

export function common(cmd: Command): Command {
  return cmd
    .option('--url <url>', `server URL (PANEWARD_URL, default ${DEFAULT_URL})`)
    .option('--token-file <file>', 'bearer token (else PANEWARD_TOKEN)')
    .option('--json', 'print JSON')
    .hook('preAction', (_cmd, action) => {
      acting = fieldNamesOf(action);
    });
}

/**
 * The options and arguments of the client command that runs: a field the server names is said
 * as that command's own option or argument (`spawn`'s `tool` is `<tool>`, its `id` is `--id`)
 * before the names the client commands share.
 */
let acting: FieldNames = {};

const wholeSeconds = (value: string, field: string, max = 86_400): number => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > max) {
    throw new PanewardError(
      'invalid_input',
      `field \`${field}\`: must be a positive number of seconds, at most ${max}`,
    );
  }
  return n;
};

/** The client commands of a running `paneward serve`. */
export function registerClient(program: Command, io: () => ClientIo = defaultIo): void {
  common(program.command('ls').description('List the terminals of a running server.')).action(
    (o: ClientOptions) =>
      run(io(), o, async (api) => {
        const terminals = await api.list();
        if (o.json) io().out(JSON.stringify(terminals));
        else for (const l of terminalTable(terminals, Date.now() / 1000, io().color)) io().out(l);
        return EXIT.ok;
      }),
  );

  common(
    program
      .command('state')
      .description("One terminal's state and what it accepts now.")
      .argument('<terminal>', TERMINAL_ARG),
  ).action((id: string, o: ClientOptions) =>
    run(io(), o, async (api) => {
      const v = await api.get(await terminalIdOf(api, id));
      for (const l of o.json ? [JSON.stringify(v)] : describeState(v)) io().out(l);
      return EXIT.ok;
    }),
  );

  common(
    program
      .command('attach')
      .description('Attach a pane (its tool detected unless --tool).')
      .argument('<target>', 'session:window.pane or %N')
      .option('--tool <id>', 'profile id')
      .option('--id <id>', 'terminal id')
      .option('--host <name>', 'on a fleet server: the host whose pane it is')
      .option(
        '--completion-authority <mode>',
        "who decides this terminal's turn outcomes: surface, markers or both (docs/witness.md)",
      ),
  ).action(
    (
      target: string,
      o: ClientOptions & {
        tool?: string;
        id?: string;
        host?: string;
        completionAuthority?: string;
      },
    ) =>
      run(io(), o, async (api) => {
        const v = await api.attach({
          target,
          ...(o.tool ? { tool: o.tool } : {}),
          ...(o.completionAuthority
            ? { completionAuthority: o.completionAuthority as 'surface' | 'markers' | 'both' }
            : {}),
          ...(o.id ? { id: o.id } : {}),
          ...(o.host ? { host: o.host } : {}),
        });
        io().out(o.json ? JSON.stringify(v) : `${v.terminalId} ${v.target} ${v.tool}`);
        return EXIT.ok;
      }),
  );

  common(
    program
      .command('send')
      .description(
        'Type a prompt into a terminal; with --wait, wait for that turn and exit by its outcome.',
      )
      .argument('<terminal>', TERMINAL_ARG)
      .argument('<text>', 'the prompt')
      .option(
        '--wait',
        'print the turn id at once, wait for the turn to end, print "ID OUTCOME" (exit 0 only for success)',
      )
      .option('--timeout <seconds>', 'with --wait: give up after this long (at most 86400)', '600')
      .option(
        '--print',
        "with --wait: print only the agent's reply text on stdout (the turn id and outcome go to stderr)",
      )
      .option('--force', 'type it even when the terminal is not ready'),
  ).action(
    (
      id: string,
      text: string,
      o: ClientOptions & { wait?: boolean; timeout: string; force?: boolean; print?: boolean },
    ) =>
      run(io(), o, async (api) => {
        if (o.print && !o.wait) {
          throw new ClientError(EXIT.usage, 'invalid_input', '--print: only with --wait');
        }
        id = await terminalIdOf(api, id);
        if (!o.wait) {
          const r = await api.input(id, { text, force: o.force ?? false });
          io().out(o.json ? JSON.stringify(r) : r.turnId);
          return EXIT.ok;
        }
        const timeoutSeconds = wholeSeconds(o.timeout, 'timeout');
        // The turn id first, as soon as it is known: a script that loses the rest still knows
        // which turn it started, and does not type the prompt twice.
        const { turnId } = await api.input(id, { text, force: o.force ?? false });
        // With --print, stdout is the reply alone: what is said about the turn goes to stderr.
        const say = (line: string) => (o.print && !o.json ? io().err(line) : io().out(line));
        say(o.json ? JSON.stringify({ turnId }) : turnId);
        let r: TurnResponse;
        try {
          r = await api.waitTurn(id, turnId, timeoutSeconds);
        } catch (error) {
          if (error instanceof ClientError && error.exitCode === EXIT.unreachable) {
            throw new ClientError(
              EXIT.mayHaveRun,
              'connection_lost',
              `${turnId} was typed, then the connection to paneward was lost while waiting for it (${error.message}); follow it with: paneward state ${id}`,
            );
          }
          throw error;
        }
        const outcome = r.lastTurn.turnId === r.turnId ? r.lastTurn.result : 'none';
        say(
          o.json
            ? JSON.stringify(r)
            : `${r.turnId} ${r.result === 'timeout' ? 'timeout' : outcome}`,
        );
        if (o.print && !o.json && r.result !== 'timeout') printReply(io(), r);
        if (r.result === 'timeout') return EXIT.timeout;
        return outcome === 'success' ? EXIT.ok : EXIT.turnFailed;
      }),
  );

  common(
    program
      .command('screen')
      .description("The pane's latest screen as paneward captured it.")
      .argument('<terminal>', TERMINAL_ARG),
  ).action((id: string, o: ClientOptions) =>
    run(io(), o, async (api) => {
      const s = await api.screen(await terminalIdOf(api, id));
      if (o.json) io().out(JSON.stringify(s));
      else if (s.text === null) io().err('paneward: no screen captured yet');
      else io().out(s.text);
      return EXIT.ok;
    }),
  );

  common(
    program
      .command('history')
      .description("A terminal's latest records (state changes, turns, anomalies), oldest first.")
      .argument('<terminal>', TERMINAL_ARG)
      .option('--limit <n>', 'at most this many records (1 to 2000)', '100'),
  ).action((id: string, o: ClientOptions & { limit: string }) =>
    run(io(), o, async (api) => {
      const { records } = await api.history(await terminalIdOf(api, id), o.limit);
      for (const r of records) io().out(o.json ? JSON.stringify(r) : briefRecord(r));
      return EXIT.ok;
    }),
  );

  for (const [name, what] of [
    ['interrupt', "Send the agent's interrupt keys."],
    ['resume', 'Resume a session the watchdog blocked.'],
    ['detach', 'Stop supervising a terminal.'],
  ] as const) {
    common(program.command(name).description(what).argument('<terminal>', TERMINAL_ARG)).action(
      (id: string, o: ClientOptions) =>
        run(io(), o, async (api) => {
          await api.act(name, await terminalIdOf(api, id));
          if (o.json) io().out(JSON.stringify({ ok: true }));
          return EXIT.ok;
        }),
    );
  }

  common(
    program
      .command('answer')
      .description(
        'Answer the question a dialog on screen asks (a tool permission, a folder trust) with one of its choices.',
      )
      .argument('<terminal>', TERMINAL_ARG)
      .argument('<choice>', 'a choice id of the question (allow_once, deny, trust, ...)')
      .option(
        '--question <id>',
        'the question id to answer (surface.question.id); without it, the one on screen now',
      ),
  ).action((id: string, choice: string, o: ClientOptions & { question?: string }) =>
    run(io(), o, async (api) => {
      const terminalId = await terminalIdOf(api, id);
      let questionId = o.question;
      if (questionId === undefined) {
        const q = (await api.get(terminalId)).surface.question;
        if (q === null) {
          throw new ClientError(
            EXIT.notReady,
            'refused',
            `terminal ${terminalId} asks no question now`,
          );
        }
        questionId = q.id;
      }
      const done = await api.answer(terminalId, { questionId, choice, via: 'cli' });
      io().out(o.json ? JSON.stringify(done) : `${done.questionId} ${done.kind}: ${done.choice}`);
      return EXIT.ok;
    }),
  );

  common(
    program
      .command('events')
      .description('Follow the record stream of a running server (resumes by id after a cut).')
      .option('--since <seq>', 'start after this record seq')
      .option('--terminal <terminal>', `only this terminal (${TERMINAL_ARG})`),
  ).action((o: ClientOptions & { since?: string; terminal?: string }) =>
    run(io(), o, async (api) => {
      const since = o.since === undefined ? 0 : Number(o.since);
      if (!Number.isInteger(since) || since < 0) {
        throw new ClientError(
          EXIT.usage,
          'invalid_input',
          'field `since`: must be a record seq (a whole number)',
        );
      }
      const stop = new AbortController();
      const signals = untilStopSignal();
      void signals.stopped.then(() => stop.abort());
      const terminal =
        o.terminal === undefined ? undefined : await terminalIdOf(api, o.terminal, '--terminal');
      try {
        await followEvents(api, io(), { ...o, since, terminal }, stop.signal);
      } finally {
        signals.release();
      }
      return EXIT.ok;
    }),
  );
}

export type { PanewardErrorCode };
