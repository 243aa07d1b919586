import { Command, CommanderError } from 'commander';
import { isPanewardError } from '../errors.js';
import { fileURLToPath } from 'node:url';
import { readJsonLines } from '../internal/jsonl.js';
import { briefPrinter } from './format.js';
import { replayRecording } from '../tracker/replay.js';
import { registerRecord } from './record.js';
import { CliExit, EXIT_HELP, registerClient } from './client.js';
import { registerDemo } from './demo.js';
import { registerDoctor } from './doctor.js';
import { registerMachines } from './machines.js';
import { registerJournal } from './journal.js';
import { registerServe } from './serve.js';
import { registerWatch } from './watch.js';
import { replayKernelScenario } from './replay-kernel.js';

/** A real recording of Claude Code 2.1.330: start-up, one prompt, one reply. */
const DEFAULT_RECORDING = fileURLToPath(
  new URL('../../recordings/claude_code/normal-turn.jsonl', import.meta.url),
);

function printLine(value: unknown): void {
  process.stdout.write(JSON.stringify(value) + '\n');
}

/** Builds the command line; actions throw PanewardError for bad input. */
export function buildProgram(): Command {
  const program = new Command('paneward')
    .description('Supervise AI coding-agent terminals in tmux panes.')
    .exitOverride()
    .showHelpAfterError()
    .addHelpText('after', `\n${EXIT_HELP}`);

  program
    .command('replay')
    .description(
      'Replay a terminal recording through the full pipeline on virtual time (default: a ' +
        'bundled recording of a real Claude Code turn), or a kernel scenario with --kernel.',
    )
    .argument('[file]', 'JSON Lines file, or - for standard input', DEFAULT_RECORDING)
    .option('--kernel', 'the file is a kernel scenario (observation level)')
    .option('--format <format>', 'json (one state per line) or brief (one short line)', 'json')
    .action((file: string, opts: { kernel?: boolean; format: string }) => {
      if (opts.format !== 'json' && opts.format !== 'brief') {
        throw new CommanderError(2, 'paneward.invalid', `option --format: must be json or brief`);
      }
      if (opts.kernel) {
        replayKernelScenario(file, printLine);
        return;
      }
      const print =
        opts.format === 'brief'
          ? briefPrinter((line) => process.stdout.write(line + '\n'))
          : printLine;
      replayRecording(readJsonLines(file), print);
    });

  registerRecord(program);
  registerWatch(program);
  registerJournal(program);
  registerDoctor(program);
  registerMachines(program);
  registerDemo(program);
  registerServe(program);
  registerClient(program);

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
  const program = buildProgram();
  try {
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
      process.stderr.write(`paneward: ${err.message}\n`);
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
