import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { execa } from 'execa';
import { z } from 'zod';
import { PanewardError } from '../errors.js';
import { describeZodError } from '../internal/zod-errors.js';
import { defaultDataDir } from '../journal/data-dir.js';
import { RestoreIndex } from '../journal/restore.js';
import { journalDir, readLockPid, readRecords } from '../journal/segments.js';
import {
  isNewerThanVerifiedVersion,
  isVerifiedVersion,
  PROFILES,
  verifiedVersionsOf,
} from '../profiles/index.js';
import type { JournalRecord } from '../schemas/record.js';
import { CliExit } from './client.js';
import { renderTable } from './table.js';

export const DoctorOptions = z.strictObject({
  dataDir: z.string().min(1).optional(),
  json: z.boolean().default(false),
  /** The window unrecognised frames are counted in, in seconds (default one hour). */
  windowSeconds: z.coerce
    .number({ error: 'must be a number of seconds' })
    .positive({ error: 'must be more than 0' })
    .default(3600),
});

/** One supervised pane as the doctor sees it. */
export const DoctorTerminal = z.object({
  terminalId: z.string(),
  target: z.string(),
  tool: z.string(),
  /** As read from the running CLI, else as attached; null when neither said. */
  toolVersion: z.string().nullable(),
  verifiedVersions: z.array(z.string()),
  /**
   * `yes`: a verified version; `newer`: newer than every verified one (its screens are not
   * read unless asked); `other`: an older or in-between version, read with the nearest
   * vocabulary; `unknown`: the version could not be read; `n/a`: no shipped profile.
   */
  verified: z.enum(['yes', 'newer', 'other', 'unknown', 'n/a']),
  unrecognisedFrames: z.number().int().nonnegative(),
  lastRecordAt: z.string().nullable(),
});
export type DoctorTerminal = z.infer<typeof DoctorTerminal>;

export const DoctorReport = z.object({
  dataDir: z.string(),
  journal: z.object({
    present: z.boolean(),
    lastSeq: z.number().int().nonnegative(),
    lastRecordAt: z.string().nullable(),
    writerPid: z.number().int().nullable(),
    writerRunning: z.boolean(),
  }),
  tmux: z.object({ version: z.string().nullable(), error: z.string().nullable() }),
  node: z.string(),
  windowSeconds: z.number(),
  terminals: z.array(DoctorTerminal),
  /** What needs someone's attention, one sentence each; empty when all is well. */
  problems: z.array(z.string()),
});
export type DoctorReport = z.infer<typeof DoctorReport>;

const MIN_NODE = [20, 19];

/**
 * Looks at a data directory and this machine: tmux and Node, who writes the journal, and for
 * every supervised pane its CLI, the CLI's version, whether paneward was verified against that
 * version, and how many frames of it matched no known screen shape in the last hour.
 * Read-only: it never takes the journal's lock and never touches a pane.
 */
export async function diagnose(
  raw: Record<string, unknown>,
  now: Date = new Date(),
): Promise<DoctorReport> {
  const parsed = DoctorOptions.safeParse(raw);
  if (!parsed.success) {
    throw new PanewardError('invalid_input', `doctor: ${describeZodError(parsed.error)}`, {
      details: parsed.error.issues,
    });
  }
  const o = parsed.data;
  const dataDir = o.dataDir ?? defaultDataDir();
  const dir = journalDir(dataDir);
  const present = existsSync(dir);
  const records = present ? readRecords(dir) : [];
  const since = now.getTime() - o.windowSeconds * 1000;
  const index = new RestoreIndex();
  const versions = new Map<string, string>();
  const unrecognised = new Map<string, number>();
  const lastAt = new Map<string, string>();
  for (const r of records) {
    index.apply(r);
    const id = r.terminalId;
    if (id === null) continue;
    lastAt.set(id, r.at);
    const version = versionIn(r);
    if (version !== null) versions.set(id, version);
    if (r.kind === 'anomaly' && r.anomaly === 'unrecognised_screen' && Date.parse(r.at) >= since) {
      unrecognised.set(id, (unrecognised.get(id) ?? 0) + r.frames);
    }
  }
  const terminals = index.attached().map(([id, facts]): DoctorTerminal => {
    const tool = facts.request.tool;
    const toolVersion = versions.get(id) ?? facts.request.toolVersion ?? null;
    return {
      terminalId: id,
      target: facts.request.target,
      tool,
      toolVersion,
      verifiedVersions: [...verifiedVersionsOf(tool)],
      verified: verdict(tool, toolVersion),
      unrecognisedFrames: unrecognised.get(id) ?? 0,
      lastRecordAt: lastAt.get(id) ?? null,
    };
  });
  const writerPid = readLockPid(join(dataDir, 'lock'));
  const last = records.at(-1);
  const tmux = await tmuxVersion();
  const report: DoctorReport = {
    dataDir,
    journal: {
      present,
      lastSeq: last?.seq ?? 0,
      lastRecordAt: last?.at ?? null,
      writerPid,
      writerRunning: writerPid !== null && running(writerPid),
    },
    tmux,
    node: process.versions.node,
    windowSeconds: o.windowSeconds,
    terminals,
    problems: [],
  };
  report.problems = problemsOf(report);
  return report;
}

/** A version a record states for its terminal. */
function versionIn(r: JournalRecord): string | null {
  if (r.kind === 'anomaly' && r.anomaly === 'version_unverified') return r.toolVersion;
  if (r.kind === 'state') {
    const v = r.changed.toolVersion;
    if (typeof v === 'string') return v;
  }
  if (r.kind === 'terminal.attached') return r.toolVersion;
  return null;
}

function verdict(tool: string, version: string | null): DoctorTerminal['verified'] {
  if (!(tool in PROFILES) || tool === 'unsupported') return 'n/a';
  if (version === null) return 'unknown';
  if (isVerifiedVersion(tool, version)) return 'yes';
  return isNewerThanVerifiedVersion(tool, version) ? 'newer' : 'other';
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function tmuxVersion(): Promise<DoctorReport['tmux']> {
  try {
    const { stdout } = await execa('tmux', ['-V'], { timeout: 5000 });
    return { version: stdout.trim().replace(/^tmux\s+/, ''), error: null };
  } catch (error) {
    const code = (error as { code?: string }).code;
    return {
      version: null,
      error: code === 'ENOENT' ? 'tmux is not installed (not on PATH)' : String(error),
    };
  }
}

function problemsOf(r: DoctorReport): string[] {
  const out: string[] = [];
  if (r.tmux.version === null) out.push(r.tmux.error ?? 'tmux cannot be run');
  const [major = 0, minor = 0] = r.node.split('.').map(Number);
  if (major < MIN_NODE[0]! || (major === MIN_NODE[0] && minor < MIN_NODE[1]!)) {
    out.push(`Node ${r.node} is older than ${MIN_NODE.join('.')}, the oldest paneward supports`);
  }
  if (!r.journal.present) out.push(`no journal in ${r.dataDir}: nothing has been supervised here`);
  const hour = r.windowSeconds === 3600 ? 'the last hour' : `the last ${r.windowSeconds} s`;
  for (const t of r.terminals) {
    const who = `${t.terminalId} (${t.target}, ${t.tool}${t.toolVersion ? ` ${t.toolVersion}` : ''})`;
    const verified = t.verifiedVersions.join(', ');
    if (t.verified === 'newer') {
      out.push(
        `${who}: newer than the verified ${verified}; its screens are reported unrecognised ` +
          `(readiness unknown) unless paneward runs with --read-unverified`,
      );
    } else if (t.verified === 'other') {
      out.push(`${who}: not a verified version (${verified}); read with the nearest vocabulary`);
    }
    if (t.unrecognisedFrames > 0) {
      out.push(
        `${who}: ${t.unrecognisedFrames} frame${t.unrecognisedFrames === 1 ? '' : 's'} in ` +
          `${hour} matched no known screen; \`paneward journal --terminal ${t.terminalId}\` ` +
          `shows when, \`paneward record\` captures them for a profile fix`,
      );
    }
  }
  return out;
}

/** The report as a person reads it. */
export function formatDoctor(r: DoctorReport): string {
  const lines: string[] = [];
  const writer =
    r.journal.writerPid === null
      ? 'no writer'
      : `written by pid ${r.journal.writerPid} (${r.journal.writerRunning ? 'running' : 'not running'})`;
  lines.push(
    `data dir  ${r.dataDir}`,
    `journal   ${r.journal.present ? `${r.journal.lastSeq} records, last ${r.journal.lastRecordAt ?? '-'}, ${writer}` : 'none'}`,
    `tmux      ${r.tmux.version ?? r.tmux.error ?? '?'}`,
    `node      ${r.node}`,
    '',
  );
  if (r.terminals.length === 0) lines.push('No supervised panes in this data directory.');
  else {
    const window = r.windowSeconds === 3600 ? '1 h' : `${r.windowSeconds} s`;
    lines.push(
      renderTable(
        ['TERMINAL', 'TARGET', 'CLI', 'VERSION', 'VERIFIED', `UNRECOGNISED (${window})`],
        r.terminals.map((t) => [
          t.terminalId,
          t.target,
          t.tool,
          t.toolVersion ?? '?',
          t.verified === 'yes' || t.verified === 'n/a' || t.verified === 'unknown'
            ? t.verified
            : `no (${t.verified}; verified ${t.verifiedVersions.join(', ')})`,
          String(t.unrecognisedFrames),
        ]),
      ),
    );
  }
  lines.push('');
  if (r.problems.length === 0) lines.push('No problems found.');
  else lines.push(...r.problems.map((p) => `! ${p}`));
  return lines.join('\n');
}

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description(
      'Check this machine and a data directory: tmux, Node, the journal, and for every supervised ' +
        'pane its CLI, version, whether that version is verified, and unrecognised screens in the last hour.',
    )
    .option('--data-dir <dir>', 'data directory (default $XDG_STATE_HOME/paneward)')
    .option('--window-seconds <n>', 'count unrecognised frames over this many seconds', '3600')
    .option('--json', 'the report as one JSON object')
    .action(async (opts: Record<string, unknown>) => {
      const report = await diagnose(opts);
      process.stdout.write(
        `${opts.json ? JSON.stringify(report, null, 2) : formatDoctor(report)}\n`,
      );
      // Exit 1 when something needs attention, so scripts and CI can gate on it.
      if (report.problems.length > 0) throw new CliExit(1);
    });
}
