import { execa } from 'execa';
import { Subject, type Observable } from 'rxjs';
import { PanewardError } from '../errors.js';
import { ControlParser, type ControlNotification, type ControlReply } from './control-protocol.js';
import { isMissingTarget } from './internal/tmux-errors.js';
import { tmuxArgs, tmuxEnv } from './tmux-locale.js';

/** Options for {@link ControlClient.start}. */
export interface ControlClientOptions {
  /** tmux `-L`. */
  socketName?: string;
  /** tmux `-S` (takes precedence over `socketName` in tmux). */
  socketPath?: string;
  /** The tmux executable; default `tmux` from PATH. */
  tmuxBinary?: string;
  /** The session to attach to (`$N` or a name); default tmux's choice (the most recent). */
  session?: string;
  /** How long the attach may take before the client is killed; default 5000 ms. */
  startTimeoutMs?: number;
  signal?: AbortSignal;
}

/** Per-command options. */
export interface ControlCommandOptions {
  /**
   * How long tmux may stay silent before this reply, from when the line is written; default
   * 10000 ms. While tmux keeps writing (it is answering a long batch) the wait goes on, up to six
   * times this. A reply that arrives later is still read and dropped: replies stay matched in
   * order.
   */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Why the client process ended. */
export interface ControlExit {
  /** The reason tmux gave on its `%exit` line, if any. */
  reason: string | null;
  exitCode: number | null;
  signal: string | null;
  /** The client's stderr, bounded. */
  stderr: string;
}

interface Pending {
  resolve(reply: ControlReply): void;
  reject(error: unknown): void;
  /** Settled already (timed out or aborted); its reply is still awaited and dropped. */
  done: boolean;
}

const STDERR_LIMIT = 300;
// However much tmux keeps saying, a command waits at most this many timeouts in all.
const MAX_TIMEOUTS = 6;
const CLOSE_GRACE_MS = 1000;

/**
 * One long-lived `tmux -C` client: command lines in on stdin, replies matched to them in order
 * (each line is answered by exactly one `%begin`/`%end` block with flag 1, whose closing guard
 * repeats its command number), notifications out as an observable. Every command is bounded by
 * a timeout; `close()` detaches and, if the client does not leave, kills it.
 */
export class ControlClient {
  readonly #child: ReturnType<typeof spawnClient>;
  readonly #queue: Pending[] = [];
  readonly #notifications = new Subject<ControlNotification>();
  readonly #abort = new AbortController();
  #exitReason: string | null = null;
  #exited: ControlExit | null = null;
  #stderr = '';
  #lastReadAt: number;
  #bytesRead = 0;
  #currentSeq = 0;
  /** Waits for the attach command's own block (flag 0), the first one the client prints. */
  #attach: { resolve(reply: ControlReply): void; reject(error: unknown): void } | null = null;
  readonly exited: Promise<ControlExit>;

  private constructor(args: readonly string[], binary: string) {
    this.#child = spawnClient(binary, args, this.#abort.signal);
    this.#lastReadAt = performance.now();
    const parser = new ControlParser({
      reply: (reply) => this.#reply(reply),
      notification: (n, seq) => {
        if (n.type === 'exit') this.#exitReason = n.reason;
        this.#currentSeq = seq;
        this.#notifications.next(n);
      },
    });
    this.#child.stdout.on('data', (chunk: Buffer) => {
      this.#lastReadAt = performance.now();
      this.#bytesRead += chunk.length;
      parser.push(chunk);
    });
    this.#child.stderr.on('data', (chunk: Buffer) => {
      if (this.#stderr.length < STDERR_LIMIT) {
        this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(0, STDERR_LIMIT);
      }
    });
    // Writes after the client died fail with EPIPE; the exit handler reports it.
    this.#child.stdin.on('error', () => undefined);
    this.exited = this.#child.then((result) => {
      const exit: ControlExit = {
        reason: this.#exitReason,
        exitCode: result.exitCode ?? null,
        signal: result.signal ?? null,
        stderr: this.#stderr.trim(),
      };
      this.#exited = exit;
      const error = new PanewardError(
        'tmux_failed',
        `tmux control client exited (${describe(exit)})`,
        {
          details: exit,
        },
      );
      for (const p of this.#queue.splice(0)) p.reject(error);
      this.#attach?.reject(error);
      this.#attach = null;
      this.#notifications.complete();
      return exit;
    });
  }

  /**
   * Starts a client and waits until it is attached. Rejects with `tmux_missing` when there is
   * no server or session to attach to, `tmux_timeout` when the attach does not finish in time,
   * `aborted`, or `tmux_failed`; the process is gone by then.
   */
  static async start(options: ControlClientOptions = {}): Promise<ControlClient> {
    const args = [
      ...(options.socketName ? ['-L', options.socketName] : []),
      ...(options.socketPath ? ['-S', options.socketPath] : []),
      // Only read by a server this command would start; an attach never should.
      '-f',
      '/dev/null',
      '-C',
      'attach-session',
      ...(options.session ? ['-t', options.session] : []),
    ];
    const client = new ControlClient(args, options.tmuxBinary ?? 'tmux');
    const timeoutMs = options.startTimeoutMs ?? 5000;
    // The attach command's own block (flag 0) says whether it worked.
    const attached = new Promise<ControlReply>((resolve, reject) => {
      client.#attach = { resolve, reject };
    });
    try {
      const reply = await withTimeout(attached, timeoutMs, options.signal);
      if (!reply.ok) {
        const missing = isMissingTarget(reply.body) || /no sessions/i.test(reply.body);
        throw new PanewardError(
          missing ? 'tmux_missing' : 'tmux_failed',
          `tmux attach-session: ${reply.body}`,
        );
      }
      return client;
    } catch (error) {
      await client.close();
      if (error instanceof PanewardError && error.code === 'tmux_failed') {
        const exit = client.#exited;
        if (exit && isMissingTarget(exit.stderr)) {
          throw new PanewardError('tmux_missing', `tmux attach-session: ${exit.stderr}`, {
            cause: error,
          });
        }
      }
      throw error;
    }
  }

  /** The client process's pid. */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Notifications in arrival order; completes when the client exits. */
  get notifications(): Observable<ControlNotification> {
    return this.#notifications.asObservable();
  }

  /** Commands written and not answered yet (timed-out ones included). */
  get outstanding(): number {
    return this.#queue.length;
  }

  /**
   * The stream position (see {@link ControlReply.seq}) of the notification being delivered, or
   * of the last one: read it inside a `notifications` subscriber to order that notification
   * against replies.
   */
  get currentSeq(): number {
    return this.#currentSeq;
  }

  /** `performance.now()` of the last bytes read from the client. */
  get lastReadAt(): number {
    return this.#lastReadAt;
  }

  get bytesRead(): number {
    return this.#bytesRead;
  }

  /** How the client ended; null while it runs. */
  get exit(): ControlExit | null {
    return this.#exited;
  }

  /** Sends one command line; resolves with its reply (`ok` false for `%error`). */
  command(line: string, opts: ControlCommandOptions = {}): Promise<ControlReply> {
    const [reply] = this.commands([line], opts);
    return reply!;
  }

  /**
   * Sends several command lines in one write; one promise per line, in order. Each line must
   * hold exactly one command (no `;`): one line, one reply. Rejects with `tmux_timeout`,
   * `aborted`, or `tmux_failed` when the client is gone.
   */
  commands(lines: readonly string[], opts: ControlCommandOptions = {}): Promise<ControlReply>[] {
    if (this.#exited || this.#abort.signal.aborted) {
      const error = new PanewardError('tmux_failed', 'tmux control client is not running');
      return lines.map(() => Promise.reject(error));
    }
    for (const line of lines) {
      if (line === '' || line.includes('\n')) {
        throw new PanewardError(
          'invalid_input',
          'a control-mode command must be one non-empty line',
        );
      }
    }
    const timeoutMs = opts.timeoutMs ?? 10_000;
    const startedAt = performance.now();
    // One timer and one abort listener per batch, however many lines it holds.
    const batch: Pending[] = [];
    let open = lines.length;
    const settled = (): void => {
      if (--open === 0) cleanup();
    };
    const failAll = (error: PanewardError): void => {
      for (const entry of batch) entry.reject(error);
    };
    // The timeout counts silence, not work: a batch tmux is still answering (a big one, or one
    // this process was too busy to read) is not abandoned. The verdict waits for the I/O phase
    // after the timer, so replies that came while this process was busy are read first.
    let timer: NodeJS.Timeout;
    const arm = (ms: number): void => {
      timer = setTimeout(() => setImmediate(check), ms);
    };
    const check = (): void => {
      if (open === 0) return;
      const now = performance.now();
      const silentMs = now - Math.max(this.#lastReadAt, startedAt);
      if (silentMs < timeoutMs && now - startedAt < MAX_TIMEOUTS * timeoutMs) {
        arm(timeoutMs - silentMs);
        return;
      }
      failAll(
        new PanewardError('tmux_timeout', `tmux control command timed out after ${timeoutMs} ms`),
      );
    };
    arm(timeoutMs);
    const onAbort = (): void =>
      failAll(
        new PanewardError('aborted', 'tmux control command aborted', {
          cause: opts.signal?.reason,
        }),
      );
    const cleanup = (): void => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    };
    const replies = lines.map(
      () =>
        new Promise<ControlReply>((resolve, reject) => {
          const entry: Pending = {
            done: false,
            resolve: (r) => {
              if (!entry.done) {
                entry.done = true;
                resolve(r);
                settled();
              }
            },
            reject: (e) => {
              if (!entry.done) {
                entry.done = true;
                reject(e);
                settled();
              }
            },
          };
          batch.push(entry);
          this.#queue.push(entry);
        }),
    );
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    this.#child.stdin.write(`${lines.join('\n')}\n`);
    return replies;
  }

  /** Detaches (end of input), waits briefly, then kills the client. Idempotent. */
  async close(): Promise<ControlExit> {
    if (!this.#exited && !this.#child.stdin.destroyed) this.#child.stdin.end();
    const left = await Promise.race([
      this.exited,
      new Promise<null>((r) => setTimeout(() => r(null), CLOSE_GRACE_MS).unref()),
    ]);
    if (left) return left;
    this.#abort.abort(new Error('control client closed'));
    return this.exited;
  }

  #reply(reply: ControlReply): void {
    if (!reply.fromClient) {
      // The attach command's block, then hooks' blocks: no line of ours asked for them.
      const attach = this.#attach;
      this.#attach = null;
      attach?.resolve(reply);
      return;
    }
    this.#queue.shift()?.resolve(reply);
  }
}

function spawnClient(binary: string, args: readonly string[], signal: AbortSignal) {
  return execa(binary, tmuxArgs(args), {
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
    buffer: false,
    reject: false,
    cancelSignal: signal,
    forceKillAfterDelay: 500,
    // A client started from inside tmux would otherwise refuse to nest.
    env: tmuxEnv({ TMUX: '' }),
    extendEnv: false,
  });
}

function describe(exit: ControlExit): string {
  const parts = [
    exit.reason ? `reason: ${exit.reason}` : null,
    exit.exitCode !== null ? `code ${exit.exitCode}` : null,
    exit.signal ? `signal ${exit.signal}` : null,
    exit.stderr ? exit.stderr : null,
  ].filter((p) => p !== null);
  return parts.length > 0 ? parts.join(', ') : 'no reason given';
}

function withTimeout<T>(work: Promise<T>, ms: number, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new PanewardError('tmux_timeout', `tmux attach did not answer in ${ms} ms`)),
      ms,
    );
    const onAbort = (): void =>
      reject(new PanewardError('aborted', 'tmux attach aborted', { cause: signal?.reason }));
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
