import { Command, CommanderError, Help } from 'commander';
import { isPanewardError } from '../errors.js';
import { EXIT_HELP, CliExit } from './exit.js';
import { packageVersion } from './version.js';
import { cliMessage, fieldNamesOf } from './messages.js';

/** Adds some commands to a program. */
type Register = (program: Command) => void;

/**
 * Every command, by the module that adds it. A command line loads only the module of the
 * command it names, so `paneward ls` does not load the server, the supervisor or the fleet;
 * the top-level help prints the summaries below without loading any (test/cli/main.test.ts
 * checks they match what the modules register).
 */
const MODULES: ReadonlyArray<{
  load: () => Promise<Register>;
  commands: ReadonlyArray<readonly [term: string, description: string]>;
}> = [
  {
    load: async () => (await import('./replay.js')).registerReplay,
    commands: [
      [
        'replay [options] [file]',
        'Replay a terminal recording through the full pipeline on virtual time (default: a bundled recording of a real Claude Code turn), or a kernel scenario with --kernel.',
      ],
    ],
  },
  {
    load: async () => (await import('./record.js')).registerRecord,
    commands: [
      ['record [options] <target>', 'Record a tmux pane as a terminal recording (JSON Lines).'],
    ],
  },
  {
    load: async () => (await import('./watch.js')).registerWatch,
    commands: [
      [
        'watch [options] [targets...]',
        'Supervise tmux panes live: a live table on a terminal, one line per change otherwise.',
      ],
    ],
  },
  {
    load: async () => (await import('./journal.js')).registerJournal,
    commands: [
      [
        'journal [options]',
        'Print the record stream of a data directory (every state change, turn, anomaly, watchdog event).',
      ],
    ],
  },
  {
    load: async () => (await import('./doctor.js')).registerDoctor,
    commands: [
      [
        'doctor [options]',
        'Check this machine and a data directory: tmux, Node, the journal, and for every supervised pane whether it is still there and runs its CLI, the version running, whether that version is verified, and unrecognised screens in the last hour.',
      ],
    ],
  },
  {
    load: async () => (await import('./machines.js')).registerMachines,
    commands: [
      [
        'machines [options] [id]',
        "Print paneward's statecharts: their ids and states, or with --json their definitions in the JSON form Stately's editor imports.",
      ],
    ],
  },
  {
    load: async () => (await import('./demo.js')).registerDemo,
    commands: [
      [
        'demo [options]',
        'Try paneward with no agent CLI and no key: panes playing real recordings of Claude Code, Codex and Gemini CLI in a private tmux server, supervised, with the dashboard served.',
      ],
    ],
  },
  {
    load: async () => (await import('./spawn.js')).registerSpawn,
    commands: [
      [
        'spawn [options] <tool> [args...]',
        'Start an agent CLI in a new tmux window and supervise it; prints its terminal id once it is ready.',
      ],
      [
        'stop [options] <terminal>',
        "End a terminal's CLI with its own exit command, then its window.",
      ],
    ],
  },
  {
    load: async () => (await import('./hooks.js')).registerHooks,
    commands: [
      [
        'hooks',
        "Install, remove or show the hook that posts an agent CLI's own turn events to the local service (opt-in; claude_code, cline, opencode, kilo).",
      ],
    ],
  },
  {
    load: async () => (await import('./serve.js')).registerServe,
    commands: [['serve [options]', 'Serve the HTTP API (and SSE record stream) of a supervisor.']],
  },
  {
    load: async () => (await import('./mcp.js')).registerMcp,
    commands: [
      [
        'mcp [options] [targets...]',
        'Serve paneward to an AI agent as a Model Context Protocol server on stdio: list terminals, read one, send a prompt and wait for its outcome, interrupt, resume.',
      ],
    ],
  },
  {
    load: async () => (await import('./client.js')).registerClient,
    commands: [
      ['ls [options]', 'List the terminals of a running server.'],
      ['state [options] <terminal>', "One terminal's state and what it accepts now."],
      ['attach [options] <target>', 'Attach a pane (its tool detected unless --tool).'],
      [
        'send [options] <terminal> <text>',
        'Type a prompt into a terminal; with --wait, wait for that turn and exit by its outcome.',
      ],
      ['screen [options] <terminal>', "The pane's latest screen as paneward captured it."],
      [
        'history [options] <terminal>',
        "A terminal's latest records (state changes, turns, anomalies), oldest first.",
      ],
      ['interrupt [options] <terminal>', "Send the agent's interrupt keys."],
      ['resume [options] <terminal>', 'Resume a session the watchdog blocked.'],
      ['detach [options] <terminal>', 'Stop supervising a terminal.'],
      [
        'answer [options] <terminal> <choice>',
        'Answer the question a dialog on screen asks (a tool permission, a folder trust) with one of its choices.',
      ],
      [
        'events [options]',
        'Follow the record stream of a running server (resumes by id after a cut).',
      ],
    ],
  },
];

/** The summaries the top-level help prints, by command name. */
export const COMMAND_SUMMARIES: ReadonlyArray<readonly [term: string, description: string]> =
  MODULES.flatMap((m) => m.commands);

const nameOf = (term: string): string => term.split(' ')[0]!;

function topLevel(): Command {
  return new Command('paneward')
    .description('Supervise AI coding-agent terminals in tmux panes.')
    .version(packageVersion(), '-V, --version', 'print the version of paneward')
    .helpOption('-h, --help', 'print this help')
    .exitOverride()
    .showHelpAfterError()
    .addHelpText('after', `\n${EXIT_HELP}`);
}

/** Builds the whole command line (every module loaded), as tests and tools inspect it. */
export async function buildProgram(): Promise<Command> {
  const program = topLevel();
  for (const m of MODULES) (await m.load())(program);
  return program;
}

/**
 * Builds the command line for one invocation: the module of the command named in `argv` only,
 * or, when none is named, the summaries of every command for the help.
 */
export async function programFor(argv: readonly string[]): Promise<Command> {
  const program = topLevel();
  const words = argv.filter((a) => !a.startsWith('-'));
  const named = words[0] === 'help' ? words[1] : words[0];
  const module =
    named === undefined
      ? undefined
      : MODULES.find((m) => m.commands.some(([t]) => nameOf(t) === named));
  if (module) {
    (await module.load())(program);
    return program;
  }
  const summaries = new Map(COMMAND_SUMMARIES.map(([term]) => [nameOf(term), term]));
  for (const [term, description] of COMMAND_SUMMARIES) {
    program.command(nameOf(term)).description(description);
  }
  // The summaries carry each command's usage as its module declares it.
  program.configureHelp({
    subcommandTerm: (cmd) => summaries.get(cmd.name()) ?? new Help().subcommandTerm(cmd),
  });
  return program;
}

/** A closed pipe (`paneward replay | head`) ends the command quietly. */
function onStdoutError(err: NodeJS.ErrnoException): void {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
}

/** Runs the command line and returns the exit code (0 ok, 2 invalid input, 1 other failure). */
export async function main(argv: string[]): Promise<number> {
  if (!process.stdout.listeners('error').includes(onStdoutError)) {
    process.stdout.on('error', onStdoutError);
  }
  // The command that ran, to name a field of its input as the option the user typed.
  let acting: Command | undefined;
  try {
    const program = await programFor(argv);
    program.hook('preAction', (_program, action) => {
      acting = action;
    });
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CliExit) return err.code;
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0;
      if (err.code.startsWith('paneward.')) process.stderr.write(`paneward: ${err.message}\n`);
      return 2;
    }
    if (isPanewardError(err)) {
      const names = acting === undefined ? {} : fieldNamesOf(acting);
      process.stderr.write(`paneward: ${cliMessage(err.message, names)}\n`);
      return err.code.startsWith('invalid_') ? 2 : 1;
    }
    if (err instanceof Error && 'code' in err && (err.code === 'ENOENT' || err.code === 'EISDIR')) {
      process.stderr.write(`paneward: ${err.message}\n`);
      return 2;
    }
    process.stderr.write(
      `paneward: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    return 1;
  }
}
