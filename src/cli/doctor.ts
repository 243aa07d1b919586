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
import { createExecaTransport } from '../observe/execa-transport.js';
import { probePane } from '../observe/probe.js';
import { detectToolVersion } from '../observe/tool-version.js';
import {
  getProfile,
  isNewerThanVerifiedVersion,
  isVerifiedVersion,
  PROFILES,
  verifiedVersionsOf,
} from '../profiles/index.js';
import type { JournalRecord } from '../schemas/record.js';
import type { Target } from '../schemas/target.js';
import { tmuxArgs, tmuxEnv } from '../observe/tmux-locale.js';
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
  /** The tmux server the panes live on (`-L` / `-S`, as given to `serve` or `watch`). */
  socketName: z.string().min(1).optional(),
  socketPath: z.string().min(1).optional(),
});

/** The columns of `paneward doctor`'s table (docs/glossary.md explains each). */
export const DOCTOR_COLUMNS = [
  'TERMINAL',
  'TARGET',
  'PANE',
  'CLI',
  'VERSION',
  'VERIFIED',
  'UNRECOGNISED',
] as const;

/** One supervised pane as the doctor sees it. */
export const DoctorTerminal = z.object({
  terminalId: z.string(),
  target: z.string(),
  tool: z.string(),
  /** As read from the running CLI, else as attached; null when neither said. */
  toolVersion: z.string().nullable(),
  verifiedVersions: z.array(z.string()),
  /**
   * `yes`: a verified version; `newer`: newer than every verified one (read with the newest
   * vocabulary, unverified; not read at all under `--verified-only`); `other`: an older or in-between version, read with the nearest
   * vocabulary; `unknown`: the version could not be read; `n/a`: no shipped profile.
   */
  verified: z.enum(['yes', 'newer', 'other', 'unknown', 'n/a']),
  /**
   * The pane as tmux shows it now: `running` its CLI runs in it; `no_cli` the pane is there but
   * no process of the CLI runs in it (a shell, another program, a dead pane); `gone` tmux has
   * no such pane (or no server); `unchecked` tmux could not be asked, or paneward has no profile
   * for the tool and so no process name to look for.
   */
  pane: z.enum(['running', 'no_cli', 'gone', 'unchecked']),
  /** What tmux said, or the pane's foreground command when no CLI runs there. */
  paneDetail: z.string().nullable(),
  unrecognisedFrames: z.number().int().nonnegative(),
  /**
   * Its CLI's session record held a piece paneward's reader does not know, so that witness
   * stepped aside and the screen alone decides its outcomes (docs/witness.md): what, and where.
   * Absent when it never did (since the terminal was last attached).
   */
  sessionRecordSteppedAside: z
    .object({ at: z.string(), file: z.string(), offset: z.number(), why: z.string() })
    .optional(),
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
 * every supervised pane whether tmux still has it and the CLI runs in it, the CLI's version (read
 * from the running CLI's package, else from the journal), whether paneward was verified against
 * that version, and how many frames of it matched no known screen shape in the last hour.
 * Read-only: it never takes the journal's lock and never types into a pane.
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
  const steppedAside = new Map<string, NonNullable<DoctorTerminal['sessionRecordSteppedAside']>>();
  for (const r of records) {
    index.apply(r);
    const id = r.terminalId;
    if (id === null) continue;
    lastAt.set(id, r.at);
    const version = versionIn(r);
    if (version !== null) versions.set(id, version);
    if (r.kind === 'terminal.attached') steppedAside.delete(id);
    if (r.kind === 'anomaly' && r.anomaly === 'session_record_unknown') {
      steppedAside.set(id, { at: r.at, file: r.file, offset: r.offset, why: r.why });
    }
    if (r.kind === 'anomaly' && r.anomaly === 'unrecognised_screen' && Date.parse(r.at) >= since) {
      unrecognised.set(id, (unrecognised.get(id) ?? 0) + r.frames);
    }
  }
  const transport = createExecaTransport({ socketName: o.socketName, socketPath: o.socketPath });
  const terminals = await Promise.all(
    index.attached().map(async ([id, facts]): Promise<DoctorTerminal> => {
      const tool = facts.request.tool;
      const pane = await lookAtPane(transport, facts.request.paneId ?? facts.request.target, tool);
      // The running CLI's own package says which version runs now; the journal what ran then.
      const toolVersion = pane.version ?? versions.get(id) ?? facts.request.toolVersion ?? null;
      return {
        terminalId: id,
        target: facts.request.target,
        tool,
        toolVersion,
        verifiedVersions: [...verifiedVersionsOf(tool)],
        verified: verdict(tool, toolVersion),
        pane: pane.state,
        paneDetail: pane.detail,
        unrecognisedFrames: unrecognised.get(id) ?? 0,
        ...(steppedAside.has(id) ? { sessionRecordSteppedAside: steppedAside.get(id) } : {}),
        lastRecordAt: lastAt.get(id) ?? null,
      };
    }),
  );
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

/**
 * Asks tmux about one pane (read-only: pane facts and a capture, never a key) and, where the
 * tool's CLI runs in it, reads the CLI's version from its package.
 */
async function lookAtPane(
  transport: ReturnType<typeof createExecaTransport>,
  target: string,
  tool: string,
): Promise<{ state: DoctorTerminal['pane']; detail: string | null; version: string | null }> {
  const profile = getProfile(tool);
  const probe = await probePane(transport, target as Target, {
    processNames: profile.processNames,
    timeoutMs: 5000,
  });
  if (probe.transport === 'tmux_missing') {
    // No such pane, window or session, or no server at all: the pane is gone either way.
    const gone = /can't find|no server running|error connecting/.test(probe.error?.message ?? '');
    return {
      state: gone ? 'gone' : 'unchecked',
      detail: probe.error?.message.replace(/^tmux [a-z-]+: /, '') ?? null,
      version: null,
    };
  }
  if (probe.transport !== 'tmux_up' || probe.pane === null) {
    return { state: 'unchecked', detail: probe.error?.message ?? null, version: null };
  }
  if (probe.process === 'unsupported_tool') {
    return { state: 'unchecked', detail: 'no profile: no process name to look for', version: null };
  }
  if (probe.process !== 'tui_up') {
    const what = probe.pane.dead ? 'the pane is dead' : `runs ${probe.pane.currentCommand}`;
    return { state: 'no_cli', detail: what, version: null };
  }
  const found = await detectToolVersion(probe.pids, profile.packages ?? []).catch(() => null);
  return { state: 'running', detail: null, version: found?.version ?? null };
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
    const { stdout } = await execa('tmux', tmuxArgs(['-V']), {
      timeout: 5000,
      env: tmuxEnv(),
      extendEnv: false,
    });
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
  // No journal is a data directory nothing was supervised with yet (a new machine, or one where
  // only `paneward demo` ran: it keeps its journal in a folder of its own): nothing is wrong.
  const hour = r.windowSeconds === 3600 ? 'the last hour' : `the last ${r.windowSeconds} s`;
  for (const t of r.terminals) {
    const who = `${t.terminalId} (${t.target}, ${t.tool}${t.toolVersion ? ` ${t.toolVersion}` : ''})`;
    const verified = t.verifiedVersions.join(', ');
    if (t.pane === 'gone') {
      out.push(
        `${who}: the pane is gone (${t.paneDetail ?? 'tmux has no such pane'}); \`paneward ` +
          `detach ${t.terminalId}\` forgets it`,
      );
    } else if (t.pane === 'no_cli') {
      out.push(`${who}: no ${t.tool} process runs in the pane (${t.paneDetail ?? '?'})`);
    } else if (t.pane === 'unchecked') {
      out.push(`${who}: the pane could not be checked (${t.paneDetail ?? '?'})`);
    }
    if (t.verified === 'unknown' && t.pane === 'running') {
      out.push(
        `${who}: the running CLI's version could not be read, so it is not verified ` +
          `(verified: ${verified})`,
      );
    } else if (t.verified === 'newer') {
      out.push(
        `${who}: newer than the verified ${verified}; read with the newest vocabulary, not ` +
          `verified (a screen it does not recognise reads unknown, never a success; under ` +
          `--verified-only none is read); docs/profiles.md says how to verify a release`,
      );
    } else if (t.verified === 'other') {
      out.push(`${who}: not a verified version (${verified}); read with the nearest vocabulary`);
    }
    if (t.unrecognisedFrames > 0) {
      out.push(
        `${who}: ${t.unrecognisedFrames} frame${t.unrecognisedFrames === 1 ? '' : 's'} in ` +
          `${hour} matched no known screen${t.verified === 'newer' ? ' (a new release may have changed them)' : ''}; \`paneward journal --terminal ${t.terminalId}\` ` +
          `shows when, \`paneward record\` captures them for a profile fix`,
      );
    }
    const aside = t.sessionRecordSteppedAside;
    if (aside) {
      out.push(
        `${who}: its session record has a piece paneward does not know (${aside.why}, ` +
          `${aside.file} at ${aside.offset}, ${aside.at}); the screen alone decides its outcomes`,
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
  if (!r.journal.present) {
    lines.push(
      `No journal in ${r.dataDir}: nothing has been supervised with this data directory yet ` +
        '(`paneward demo` keeps its journal in a folder of its own, removed when it stops).',
    );
  } else if (r.terminals.length === 0) lines.push('No supervised panes in this data directory.');
  else {
    const window = r.windowSeconds === 3600 ? '1 h' : `${r.windowSeconds} s`;
    lines.push(
      renderTable(
        DOCTOR_COLUMNS.map((c) => (c === 'UNRECOGNISED' ? `${c} (${window})` : c)),
        r.terminals.map((t) => [
          t.terminalId,
          t.target,
          t.pane,
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
        'pane whether it is still there and runs its CLI, the version running, whether that ' +
        'version is verified, and unrecognised screens in the last hour.',
    )
    .option('--data-dir <dir>', 'data directory (default $XDG_STATE_HOME/paneward)')
    .option('--window-seconds <n>', 'count unrecognised frames over this many seconds', '3600')
    .option('-L, --socket-name <name>', 'tmux socket name the panes live on')
    .option('-S, --socket-path <path>', 'tmux socket path the panes live on')
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
