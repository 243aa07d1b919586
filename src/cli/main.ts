import { Command, CommanderError } from 'commander';
import { isPanewardError } from '../errors.js';
import { readJsonLines } from '../internal/jsonl.js';
import { replayRecording } from '../tracker/replay.js';
import { registerRecord } from './record.js';
import { replayKernelScenario } from './replay-kernel.js';

function printLine(value: unknown): void {
  process.stdout.write(JSON.stringify(value) + '\n');
}

/** Builds the command line; actions throw PanewardError for bad input. */
export function buildProgram(): Command {
  const program = new Command('paneward')
    .description('Supervise AI coding-agent terminals in tmux panes.')
    .exitOverride()
    .showHelpAfterError();

  program
    .command('replay')
    .description('Replay a kernel scenario (--kernel) or a terminal recording on virtual time.')
    .argument('<file>', 'JSON Lines file, or - for standard input')
    .option('--kernel', 'the file is a kernel scenario (observation level)')
    .action((file: string, opts: { kernel?: boolean }) => {
      if (opts.kernel) {
        replayKernelScenario(file, printLine);
        return;
      }
      replayRecording(readJsonLines(file), printLine);
    });

  registerRecord(program);

  return program;
}

/** Runs the command line and returns the exit code (0 ok, 2 invalid input, 1 other failure). */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0;
      if (err.code.startsWith('paneward.')) process.stderr.write(`paneward: ${err.message}\n`);
      return 2;
    }
    if (isPanewardError(err)) {
      process.stderr.write(`paneward: ${err.message}\n`);
      return err.code.startsWith('invalid_') ? 2 : 1;
    }
    if (err instanceof Error && 'code' in err && err.code === 'ENOENT') {
      process.stderr.write(`paneward: ${err.message}\n`);
      return 2;
    }
    process.stderr.write(
      `paneward: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    return 1;
  }
}
