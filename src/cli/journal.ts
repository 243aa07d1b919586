import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { z } from 'zod';
import { PanewardError } from '../errors.js';
import { CliExit } from './client-api.js';
import { describeZodError } from '../internal/zod-errors.js';
import { journalDir, readSegments } from '../journal/segments.js';
import type { JournalRecord } from '../schemas/record.js';
import { defaultDataDir } from '../journal/data-dir.js';

/** Options of `paneward journal`, as commander hands them over. */
export const JournalOptions = z.strictObject({
  dataDir: z.string().min(1).optional(),
  follow: z.boolean().default(false),
  terminal: z.string().min(1).optional(),
  since: z.coerce
    .number({ error: 'must be a record seq (a whole number)' })
    .int({ error: 'must be a whole number' })
    .nonnegative({ error: 'must be 0 or more' })
    .default(0),
  json: z.boolean().default(false),
});
export type JournalOptions = z.infer<typeof JournalOptions>;

export interface JournalIo {
  out(line: string): void;
  /** Where skipped (damaged) lines are reported; default stderr. */
  err?(line: string): void;
  /** Stops `--follow` when aborted; default: SIGINT or SIGTERM. */
  signal?: AbortSignal;
  /** How often `--follow` looks for new records, in ms; default 250. */
  pollMs?: number;
}

const FOLLOW_POLL_MS = 250;

/** One line a person reads: seq, time, terminal, kind and what changed. */
export function briefRecord(r: JournalRecord): string {
  const head = `${String(r.seq).padStart(6)} ${r.at} ${(r.terminalId ?? '-').padEnd(8)} ${r.kind}`;
  switch (r.kind) {
    case 'state': {
      const moves = r.transitions.map(
        (t) =>
          `${t.machine}:${t.from}→${t.to}${t.rule && t.rule !== 'default' ? `[${t.rule}]` : ''}`,
      );
      const fields = Object.entries(r.changed).map(
        ([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`,
      );
      return `${head} ${[...moves, ...fields].join(' ')}`.trimEnd();
    }
    case 'terminal.attached':
      return `${head} ${r.target} ${r.tool}${r.readopted ? ' (re-adopted)' : ''}`;
    case 'terminal.restarted':
      return `${head} attempt ${r.attempt} in ${r.delaySeconds}s: ${r.error}`;
    case 'terminal.spawned':
      return `${head} ${r.tool} in ${r.paneId} (${r.cwd}), restart ${r.restart}`;
    case 'terminal.respawned':
      return `${head} attempt ${r.attempt} after ${r.delaySeconds}s (${r.signal ?? `status ${r.exitStatus}`})${r.resumed ? ', resumed' : ''}`;
    case 'terminal.respawn_gave_up':
      return `${head} after ${r.restarts} restarts: ${r.reason}`;
    case 'turn.started':
      return `${head} ${r.turnId} (${r.source})`;
    case 'turn.ended':
      return `${head} ${r.turnId} ${r.outcome}${r.witness ? ` (${r.witness})` : ''}`;
    case 'turn.reopened':
      return `${head} ${r.turnId}`;
    case 'anomaly':
      switch (r.anomaly) {
        case 'version_unverified':
          return `${head} ${r.anomaly} ${r.tool} ${r.toolVersion} (verified: ${r.verifiedVersions.join(', ') || 'none'}; screens read: ${r.screensRead})`;
        case 'unrecognised_screen':
          return `${head} ${r.anomaly} ${r.tool}${r.toolVersion ? ` ${r.toolVersion}` : ''}: ${r.frames} frame${r.frames === 1 ? '' : 's'}, latest #${r.screenHash}`;
        case 'witness_disagreement':
          return `${head} ${r.anomaly} ${r.turnId}: record ${r.record}, screen ${r.screen.phase}${r.screen.successCandidate ? ' (success candidate)' : ''}; decided by ${r.decided}`;
        case 'session_record_unknown':
          return `${head} ${r.anomaly} ${r.tool} ${r.file}@${r.offset}: ${r.why}; the screen alone decides`;
        case 'session_record_skipped':
          return `${head} ${r.anomaly} ${r.tool} ${r.file}@${r.offset}: ${r.why}`;
        case 'completion_observer_problem':
          return `${head} ${r.anomaly} ${r.observer} ${r.turnId}: ${r.why}`;
        default:
          return `${head} ${r.anomaly} ${r.phase}`;
      }
    case 'watchdog.window':
      return `${head} ${r.reason}, budget ${r.budgetSeconds}s`;
    case 'watchdog.cancel':
      return `${head} after ${r.elapsedSeconds}s of ${r.configuredBudgetSeconds}s`;
    case 'notify.delivery':
      return `${head} ${r.event} → ${r.sink}: ${r.outcome} (${r.attempts} attempt${r.attempts === 1 ? '' : 's'})${r.error ? `: ${r.error}` : ''}`;
    default:
      return head;
  }
}

/**
 * Prints the journal of a data directory (read without taking the writer's lock, so it works
 * beside a running supervisor): records after `--since`, optionally of one terminal, then with
 * `--follow` each new one as it is written, until stopped. A damaged line is skipped and named
 * (file and line) on stderr, once; every intact record is still printed. Resolves with how many
 * lines were skipped (the command exits 1 when any were).
 */
export async function runJournal(raw: Record<string, unknown>, io: JournalIo): Promise<number> {
  const parsed = JournalOptions.safeParse(raw);
  if (!parsed.success) {
    throw new PanewardError('invalid_input', `journal: ${describeZodError(parsed.error)}`, {
      details: parsed.error.issues,
    });
  }
  const o = parsed.data;
  const dataDir = o.dataDir ?? defaultDataDir();
  const dir = journalDir(dataDir);
  if (!existsSync(dir)) {
    throw new PanewardError(
      'invalid_input',
      `journal: field \`dataDir\`: no journal in ${dataDir}`,
    );
  }
  const print = (r: JournalRecord) => io.out(o.json ? JSON.stringify(r) : briefRecord(r));
  const wanted = (r: JournalRecord) => o.terminal === undefined || r.terminalId === o.terminal;
  const err = io.err ?? ((line: string) => process.stderr.write(`${line}\n`));
  let last = o.since;
  const skipped = new Set<string>();
  const copies = new Set<string>();
  const drain = () => {
    const { records, damaged, duplicates } = readSegments(dir, last);
    for (const d of duplicates) {
      const key = `${d.file}:${d.line}`;
      if (copies.has(key)) continue;
      copies.add(key);
      err(`paneward: skipped ${d.file} line ${d.line}: a copy of seq ${d.seq}, printed once`);
    }
    for (const d of damaged) {
      const key = `${d.file}:${d.line}`;
      if (skipped.has(key)) continue;
      skipped.add(key);
      err(
        `paneward: skipped ${d.file} line ${d.line}: damaged (CRC or format)${d.seq === null ? '' : `, seq ${d.seq}`}`,
      );
    }
    for (const r of records) {
      last = r.seq;
      if (wanted(r)) print(r);
    }
  };
  const summary = () => {
    if (skipped.size > 0) {
      err(
        `paneward: ${skipped.size} damaged line${skipped.size === 1 ? '' : 's'} skipped; every intact record was printed`,
      );
    }
    return skipped.size;
  };
  drain();
  if (!o.follow) return summary();
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  if (!io.signal) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  io.signal?.addEventListener('abort', onSignal, { once: true });
  try {
    while (!stop.signal.aborted) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, io.pollMs ?? FOLLOW_POLL_MS);
        stop.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), {
          once: true,
        });
      });
      drain();
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return summary();
}

export function registerJournal(program: Command): void {
  program
    .command('journal')
    .description(
      'Print the record stream of a data directory (every state change, turn, anomaly, watchdog event).',
    )
    .option('--data-dir <dir>', 'data directory (default $XDG_STATE_HOME/paneward)')
    .option('--follow', 'keep printing records as they are written')
    .option('--terminal <id>', 'only this terminal')
    .option('--since <seq>', 'only records after this seq')
    .option('--json', 'one JSON record per line')
    .action(async (opts: Record<string, unknown>) => {
      const skipped = await runJournal(opts, { out: (l) => process.stdout.write(`${l}\n`) });
      // Exit 1: every intact record was printed, but damaged lines were skipped (on stderr).
      if (skipped > 0) throw new CliExit(1);
    });
}
