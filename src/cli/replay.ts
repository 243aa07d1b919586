import { CommanderError, type Command } from 'commander';
import { readJsonLines } from '../internal/jsonl.js';
import { packageFile } from '../internal/package-root.js';
import { replayRecording } from '../replay/replay.js';
import { briefPrinter } from './format.js';
import type { CompletionAuthority } from '../terminal/witness.js';
import { replayKernelScenario } from './replay-kernel.js';

/** A real recording of Claude Code 2.1.330: start-up, one prompt, one reply. */
const DEFAULT_RECORDING = packageFile('recordings/claude_code/normal-turn.jsonl');

const AUTHORITIES: readonly CompletionAuthority[] = ['surface', 'markers', 'both'];

interface ReplayCliOptions {
  kernel?: boolean;
  format: string;
  completionAuthority?: string;
}

function printLine(value: unknown): void {
  process.stdout.write(JSON.stringify(value) + '\n');
}

/** Adds `paneward replay` to the program. */
export function registerReplay(program: Command): void {
  program
    .command('replay')
    .description(
      'Replay a terminal recording through the full pipeline on virtual time (default: a ' +
        'bundled recording of a real Claude Code turn), or a kernel scenario with --kernel.',
    )
    .argument('[file]', 'JSON Lines file, or - for standard input', DEFAULT_RECORDING)
    .option('--kernel', 'the file is a kernel scenario (observation level)')
    .option('--format <format>', 'json (one state per line) or brief (one short line)', 'json')
    .option(
      '--completion-authority <mode>',
      "who decides a turn's outcome: surface (the screen), markers (the recorded session record) or both (default when the recording holds the session record; docs/witness.md)",
    )
    .action((file: string, opts: ReplayCliOptions) => {
      if (opts.format !== 'json' && opts.format !== 'brief') {
        throw new CommanderError(2, 'paneward.invalid', `option --format: must be json or brief`);
      }
      const authority = opts.completionAuthority;
      if (authority !== undefined && !AUTHORITIES.includes(authority as CompletionAuthority)) {
        throw new CommanderError(
          2,
          'paneward.invalid',
          'option --completion-authority: must be surface, markers or both',
        );
      }
      if (opts.kernel) {
        replayKernelScenario(file, printLine);
        return;
      }
      const print =
        opts.format === 'brief'
          ? briefPrinter((line) => process.stdout.write(line + '\n'))
          : printLine;
      replayRecording(
        readJsonLines(file),
        print,
        authority === undefined ? {} : { completionAuthority: authority as CompletionAuthority },
      );
    });
}
