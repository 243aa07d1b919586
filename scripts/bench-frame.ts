import { parseArgs } from 'node:util';
import { bundledRecordings, formatFrameReport, runFrameBench } from './internal/frame-bench.js';

const USAGE = `usage: npm run bench:frame -- [options]
  --rounds N     measured rounds, each a pass over every recording (default 12)
  --warmup N     unmeasured rounds first (default 3)
  --frames N     only the first recordings, until a pass has N frames (default: all)
  --tools A,B    only these CLIs (e.g. claude_code)
  --json         print one JSON object instead of tables
PANEWARD_HOUMAO_DIR=<checkout> also measures Houmao's shared TUI tracker on the same frames
(PANEWARD_HOUMAO_PYTHON picks the interpreter, default python3).`;

function count(name: string, value: string | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new Error(`--${name} needs an integer ≥ ${min}: ${value}`);
  return n;
}

/** `npm run bench:frame`: µs per `TerminalPipeline.frame()` over the bundled recordings. */
async function main(argv: string[]): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        rounds: { type: 'string' },
        warmup: { type: 'string' },
        frames: { type: 'string' },
        tools: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values;
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    const report = await runFrameBench({
      files: bundledRecordings(),
      rounds: count('rounds', values.rounds, 12, 1),
      warmupRounds: count('warmup', values.warmup, 3, 0),
      maxFrames: count('frames', values.frames, 0, 1),
      tools: values.tools ? values.tools.split(',').filter(Boolean) : [],
      houmaoDir: process.env.PANEWARD_HOUMAO_DIR || null,
      python: process.env.PANEWARD_HOUMAO_PYTHON || 'python3',
    });
    console.log(values.json ? JSON.stringify(report, null, 2) : formatFrameReport(report));
    return 0;
  } catch (error) {
    console.error(`bench:frame: ${error instanceof Error ? error.message : String(error)}`);
    if (values === undefined) console.error(USAGE);
    return values === undefined ? 2 : 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
