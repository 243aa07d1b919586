import { closeSync, openSync, writeSync } from 'node:fs';
import { basename } from 'node:path';
import { performance } from 'node:perf_hooks';
import { PanewardError } from '../errors.js';
import type { SessionRecordReader } from '../profiles/session-record.js';
import type { RecordingLine } from '../schemas/recording.js';
import { ClaimRegistry, SessionObserver } from '../sessions/observer.js';
import { Target } from '../schemas/target.js';
import { probePane } from './probe.js';
import type { PaneInfo, PaneProbe } from './probe.js';
import type { TmuxTransport } from './transport.js';

// The longest delay a Node timer honours; longer ones fire at once.
const MAX_TIMER_MS = 2 ** 31 - 1;
// Lines and characters input() may queue before the header is written.
const MAX_PENDING_LINES = 1000;
const MAX_PENDING_CHARS = 8 * 1024 * 1024;

/** Options for {@link startRecorder}. */
export interface RecorderOptions {
  transport: TmuxTransport;
  /** The pane to record (`session:window.pane` or `%N`). */
  target: string;
  /** Profile id written to the header. */
  tool: string;
  toolVersion?: string;
  /** Process names of the tool; empty records `process: "unsupported_tool"`. */
  processNames: readonly string[];
  /** Time between poll starts in ms, at most 2^31-1; default 250. Polls never overlap. */
  intervalMs?: number;
  /** The JSON Lines file to write (created or truncated). */
  file: string;
  /** Also record the capture with escapes (`ansi`). */
  includeAnsi?: boolean;
  /** A monotonic clock in ms; default `performance.now`. */
  now?: () => number;
  /**
   * Also follow the pane's session record with this reader (docs/witness.md) and write each
   * piece of it as it is read (`record_piece` lines). Default: none.
   */
  sessionRecord?: SessionRecordReader;
  /**
   * The claims of the session records other observers in this process follow (a supervisor's),
   * so this recording never takes another pane's record; default: its own.
   */
  claims?: ClaimRegistry;
}

/** A running recording. */
export interface Recorder {
  /**
   * Records a prompt submitted at the current time (an `input` line). Throws `stopped` once the
   * recording has stopped or failed, and `not_ready` when too much input is waiting for the
   * first poll (which writes the header).
   */
  input(text: string): void;
  /** Stops polling, waits for the current poll to settle, closes the file; rejects like `done`. */
  stop(): Promise<void>;
  /**
   * Settles when the recording has stopped and the file is closed; rejects with `internal` if
   * writing failed (the recording stops then).
   */
  done: Promise<void>;
}

/**
 * Records a live pane as a terminal recording (docs/contracts.md §2): a header, then one `frame` per
 * poll with a capture or one `probe` per poll without, and `input` lines. Keeps polling while the
 * pane or tmux is gone, so the end of a session is on record.
 */
export function startRecorder(options: RecorderOptions): Recorder {
  const target = Target.parse(options.target);
  const intervalMs = options.intervalMs ?? 250;
  if (!Number.isFinite(intervalMs) || intervalMs <= 0 || intervalMs > MAX_TIMER_MS) {
    throw new PanewardError(
      'invalid_input',
      `intervalMs must be positive and at most ${MAX_TIMER_MS}, got ${intervalMs}`,
    );
  }
  const now = options.now ?? (() => performance.now());
  const startedAt = now();
  const startedAtEpochMs = Date.now();
  const fd = openSync(options.file, 'w');
  const controller = new AbortController();
  const pending: string[] = [];
  let pendingChars = 0;
  let headerWritten = false;
  let stopped = false;
  // Set before the fd is closed: from then on its number may name some other open file.
  let closed = false;
  let failure: PanewardError | null = null;
  let wake: (() => void) | null = null;

  const elapsed = (): number => Math.round(Math.max(0, now() - startedAt)) / 1000;
  const writeText = (text: string): void => {
    if (closed) throw new PanewardError('stopped', 'recorder is stopped');
    if (failure) throw failure;
    try {
      const bytes = Buffer.from(text, 'utf8');
      // writeSync may write less than asked (e.g. near a file size limit): finish or fail.
      for (let at = 0; at < bytes.length;) {
        const written = writeSync(fd, bytes, at);
        if (written <= 0) throw new Error('write made no progress');
        at += written;
      }
    } catch (cause) {
      failure = new PanewardError('internal', `cannot write recording ${options.file}`, { cause });
      stopped = true;
      controller.abort();
      wake?.();
      throw failure;
    }
  };
  const write = (line: RecordingLine): void => writeText(`${JSON.stringify(line)}\n`);
  // Lines that arrive before the header (which waits for the first probe's pane size) queue up,
  // within a bound: the first probe is bounded by the tmux timeout, but input() is not.
  const emit = (line: RecordingLine): void => {
    if (headerWritten) return write(line);
    const text = `${JSON.stringify(line)}\n`;
    if (pending.length >= MAX_PENDING_LINES || pendingChars + text.length > MAX_PENDING_CHARS) {
      throw new PanewardError(
        'not_ready',
        'recorder has not written its header yet and cannot queue more input',
      );
    }
    pending.push(text);
    pendingChars += text.length;
  };

  // The pane's session record, found the way the live observer finds it (docs/witness.md).
  let panePid: number | null = null;
  let lastText: string | null = null;
  let pendingReset: 'replaced' | 'truncated' | undefined;
  const names = new Map<string, string>();
  const nameOf = (file: string): string => {
    let name = names.get(file);
    if (name === undefined) {
      const taken = new Set(names.values());
      const base = basename(file);
      name = base;
      for (let n = 2; taken.has(name); n++) name = `${base}#${n}`;
      names.set(file, name);
    }
    return name;
  };
  const observer = options.sessionRecord
    ? new SessionObserver({
        owner: `record:${target}`,
        reader: options.sessionRecord,
        processNames: options.processNames,
        claims: options.claims ?? new ClaimRegistry(),
        panePid: () => Promise.resolve(panePid),
        report: (r) => {
          if (r.type === 'reset') pendingReset = r.why;
        },
        piece: ({ file, offset, text, side }) => {
          if (stopped || closed) return;
          const reset = pendingReset;
          pendingReset = undefined;
          try {
            emit({
              type: 'record_piece',
              t: elapsed(),
              file: nameOf(file),
              offset,
              text,
              ...(reset ? { reset } : {}),
              ...(side ? { side: { pid: side.pid, startedAtMs: side.startedAtMs } } : {}),
            });
          } catch {
            // A write failure stops the recording; a piece that cannot queue is lost.
          }
        },
      })
    : null;
  /**
   * Looks for the record when recording starts, when a prompt is submitted, and whenever the
   * screen changes while no record is followed (a turn may have started).
   */
  const lookForRecord = (probe: PaneProbe): void => {
    if (!observer) return;
    const first = panePid === null;
    panePid = probe.pane?.pid ?? panePid;
    const text = probe.capture?.text ?? null;
    const changed = text !== null && text !== lastText;
    if (text !== null) lastText = text;
    if (panePid === null) return;
    if (first || (changed && observer.status.state === 'searching')) void observer.locate();
  };

  const writeHeader = (pane: PaneInfo | null): void => {
    const header: RecordingLine = {
      type: 'header',
      version: 1,
      tool: options.tool,
      ...(options.toolVersion !== undefined ? { toolVersion: options.toolVersion } : {}),
      ...(pane ? { cols: pane.width, rows: pane.height } : {}),
      ...(options.sessionRecord
        ? {
            sessionRecord: { reader: options.sessionRecord.tool, kind: options.sessionRecord.kind },
          }
        : {}),
      target,
      startedAtEpochMs,
      intervalMs,
    };
    write(header);
    headerWritten = true;
    pendingChars = 0;
    for (const text of pending.splice(0)) writeText(text);
  };

  const record = (probe: PaneProbe, t: number): void => {
    if (probe.capture) {
      emit({
        type: 'frame',
        t,
        text: probe.capture.text,
        ...(probe.capture.ansi !== undefined ? { ansi: probe.capture.ansi } : {}),
        transport: probe.transport,
        process: probe.process,
      });
    } else {
      emit({
        type: 'probe',
        t,
        transport: probe.transport,
        process: probe.process,
        ...(probe.error ? { error: probe.error } : {}),
      });
    }
  };

  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });

  const loop = async (): Promise<void> => {
    try {
      while (!stopped) {
        const pollStart = now();
        const probe = await probePane(options.transport, target, {
          processNames: options.processNames,
          includeAnsi: options.includeAnsi ?? false,
          signal: controller.signal,
        });
        if (stopped) break; // a poll cut short by stop() is not a real observation
        // Stamped when the poll settles, so times never go backwards in the file.
        if (!headerWritten) writeHeader(probe.pane);
        record(probe, elapsed());
        lookForRecord(probe);
        // Always through a timer, even when overdue, so a slow poll cannot starve the event loop.
        if (!stopped) await sleep(Math.max(0, intervalMs - (now() - pollStart)));
      }
      // An input line that could not be written ends the recording too.
      if (failure) throw failure;
      // Stopped before any poll settled: the file still gets its header.
      if (!headerWritten) writeHeader(null);
    } finally {
      stopped = true;
      observer?.stop();
      closed = true;
      closeSync(fd);
    }
  };

  const done = loop();
  done.catch(() => undefined);

  return {
    input(text: string) {
      if (stopped || closed) throw new PanewardError('stopped', 'recorder is stopped');
      emit({ type: 'input', t: elapsed(), text });
      if (observer && panePid !== null) void observer.locate();
    },
    async stop() {
      // What the CLI wrote to its record up to now is read before the recording ends.
      if (observer && !stopped) await observer.refresh().catch(() => undefined);
      stopped = true;
      observer?.stop();
      controller.abort();
      wake?.();
      await done;
    },
    done,
  };
}
