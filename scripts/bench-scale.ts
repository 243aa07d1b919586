import { untilStopSignal } from '../src/cli/signals.js';
import { formatScaleReport } from './internal/scale-report.js';
import { parseScaleArgs, runScale, SCALE_USAGE } from './internal/scale-run.js';

/**
 * `npm run bench:scale`: N panes on a dedicated tmux server, observed in turn by paneward's
 * supervisor (to public state), its control-mode source, its polling source and a per-pane
 * capture-pane subprocess loop, with CPU read from /proc; prints one Markdown table (see
 * `--help`).
 */
async function main(argv: readonly string[]): Promise<number> {
  let options;
  try {
    options = parseScaleArgs(argv);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    console.error(SCALE_USAGE);
    return 2;
  }
  if (options === 'help') {
    console.log(SCALE_USAGE);
    return 0;
  }
  // Ctrl-C stops the run so the tmux server is still killed; a second one exits at once.
  const abort = new AbortController();
  const stop = untilStopSignal();
  void stop.stopped.then(() => abort.abort(new Error('interrupted')));
  try {
    const report = await runScale({
      ...options,
      signal: abort.signal,
      progress: (line) => console.error(`bench:scale: ${line}`),
    });
    console.log(options.json ? JSON.stringify(report, null, 2) : formatScaleReport(report));
    return 0;
  } catch (error) {
    if (abort.signal.aborted) {
      console.error('bench:scale interrupted');
      return 130;
    }
    console.error(`bench:scale failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    stop.release();
  }
}

process.exitCode = await main(process.argv.slice(2));
