/**
 * `npm run drift`: for each agent CLI paneward reads, the registry's newest release, whether it
 * runs here, and how paneward reads it: installed into `.tmp/drift/<id>@<version>/` and driven
 * by the CLI's live suite against the loopback model server. docs/drift.md says what to do next.
 */
import { parseArgs } from 'node:util';
import { packageRoot } from '../src/internal/package-root.js';
import { readPins, selectPins } from './internal/drift/catalog.js';
import { exitCodeOf, formatTable } from './internal/drift/row.js';
import { runDrift } from './internal/drift/run.js';

const USAGE = `usage: npm run drift -- [options]
  --only ID,ID       only these CLIs (profile ids, e.g. grok_cli,pi)
  --skip-install     install nothing: use .tmp/drift/<id>@<version>/ when it is there, or the
                     pinned .tmp/agents/<id>/ when the newest release is the pinned one
  --all-live         also run the live suite of a CLI whose newest release is verified
  --sources LIST     frame sources of the live suites: control, polling or control,polling
                     (default control)
  --live-timeout N   minutes one live suite may take (default 20)
  --tests PATTERN    only the live tests whose names match (vitest -t), e.g. "reports ready"
  --verbose          print the live suites' own output (stderr)
  --json             print the rows as JSON instead of the table
  -h, --help         this text
Exit status: 0 when every CLI's newest release is verified or reads fine (its live suite
passes and no frame went unrecognised), 1 otherwise (something to record, or a release that
does not run here), 2 on bad options.`;

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        only: { type: 'string' },
        'skip-install': { type: 'boolean', default: false },
        'all-live': { type: 'boolean', default: false },
        sources: { type: 'string', default: 'control' },
        'live-timeout': { type: 'string', default: '20' },
        tests: { type: 'string' },
        verbose: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const sources = values.sources.split(',').map((s) => s.trim());
  if (sources.length === 0 || !sources.every((s) => s === 'control' || s === 'polling')) {
    console.error(`--sources takes control, polling or control,polling, not ${values.sources}`);
    return 2;
  }
  const minutes = Number(values['live-timeout']);
  if (!Number.isFinite(minutes) || minutes <= 0) {
    console.error(
      `--live-timeout takes a number of minutes above 0, not ${values['live-timeout']}`,
    );
    return 2;
  }
  const root = packageRoot();
  let pins;
  try {
    pins = selectPins(readPins(root), values.only);
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  const rows = await runDrift(pins, {
    root,
    skipInstall: values['skip-install'],
    allLive: values['all-live'],
    sources: sources.join(','),
    liveTimeoutMs: minutes * 60_000,
    ...(values.tests ? { tests: values.tests } : {}),
    verbose: values.verbose,
    log: (line) => console.error(line),
  });
  console.log(values.json ? JSON.stringify(rows, null, 2) : formatTable(rows));
  return exitCodeOf(rows);
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 2;
  },
);
