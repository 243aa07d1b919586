import { untilStopSignal } from '../src/cli/signals.js';
import { formatReport } from './internal/bench-report.js';
import { BENCH_USAGE, parseBenchArgs, runBench } from './internal/bench-run.js';

/**
 * `npm run bench`: per-frame cost of the pipeline over the recorded fixtures and the cost of
 * one real tmux probe, as measured in this one run (see `--help`).
 */
async function main(argv: readonly string[]): Promise<number> {
  let options;
  try {
    options = parseBenchArgs(argv);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    console.error(BENCH_USAGE);
    return 2;
  }
  if (options === 'help') {
    console.log(BENCH_USAGE);
    return 0;
  }
  // Ctrl-C stops the probe loop so the tmux server is still killed; a second one exits at once.
  const abort = new AbortController();
  const stop = untilStopSignal();
  void stop.stopped.then(() => abort.abort(new Error('interrupted')));
  try {
    const report = await runBench({ ...options, signal: abort.signal });
    console.log(options.json ? JSON.stringify(report, null, 2) : formatReport(report));
    return 0;
  } catch (error) {
    if (abort.signal.aborted) {
      console.error('bench interrupted');
      return 130;
    }
    console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    stop.release();
  }
}

process.exitCode = await main(process.argv.slice(2));
