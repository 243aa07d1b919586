import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { PanewardError } from '../errors.js';
import { NOTIFY_SIGNATURE_HEADER, type NotifyEvent, type NotifyHeader } from '../schemas/notify.js';
import { signNotification } from './signature.js';

/** How one delivery to a sink ended. */
export interface Delivery {
  ok: boolean;
  attempts: number;
  /** Why the last attempt failed. */
  error?: string;
}

/** Where notifications go: a webhook or a command. */
export interface Sink {
  /** `webhook:<n>` or `exec:<n>`: how metrics, the journal and the log name it. */
  readonly name: string;
  /** What the log says it is (a URL's origin, a command's program), never a secret. */
  readonly describe: string;
  deliver(event: NotifyEvent, signal: AbortSignal, onRetry: () => void): Promise<Delivery>;
}

export interface WebhookOptions {
  /** Per attempt, in ms. */
  timeoutMs: number;
  /** Attempts after the first one fails. */
  retries: number;
  /** The wait before the first retry, doubled before each next (at most 30 s). */
  backoffMs: number;
  /** Signs every POST (`X-Paneward-Signature`) with this key, when there is one. */
  secret?: string | null;
  /** Sent with every POST (`--notify-header`), checked beforehand (`NotifyHeader`). */
  headers?: readonly NotifyHeader[];
}

const MAX_BACKOFF_MS = 30_000;

/** Waits `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** What went wrong with a fetch, in a few words (the network error's code where it has one). */
function fetchError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `timeout after ${timeoutMs / 1000} s`;
  }
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code) return cause.code;
  if (cause?.message) return cause.message.slice(0, 120);
  return error instanceof Error ? error.message.slice(0, 120) : String(error).slice(0, 120);
}

/**
 * A webhook: the event as the JSON body of a POST. A 2xx answer delivers it; any other answer,
 * a network error or no answer within the timeout is retried after a wait that doubles, at most
 * `retries` times. Redirects are not followed (a 3xx is a failure). With a secret, each attempt
 * is signed anew (its own timestamp) over the same body bytes; the given headers go with each.
 */
export function webhookSink(url: string, index: number, o: WebhookOptions): Sink {
  const origin = new URL(url).origin;
  return {
    name: `webhook:${index}`,
    describe: origin,
    async deliver(event, signal, onRetry) {
      // The bytes sent are the bytes signed.
      const body = Buffer.from(JSON.stringify(event), 'utf8');
      const fixed: Record<string, string> = {};
      for (const h of o.headers ?? []) fixed[h.name] = h.value;
      let error = '';
      let attempts = 0;
      for (let attempt = 0; attempt <= o.retries; attempt++) {
        if (attempt > 0) {
          onRetry();
          await sleep(Math.min(MAX_BACKOFF_MS, o.backoffMs * 2 ** (attempt - 1)), signal);
        }
        if (signal.aborted) break;
        attempts++;
        try {
          const res = await fetch(url, {
            method: 'POST',
            headers: {
              'user-agent': 'paneward-notify/1',
              ...fixed,
              'content-type': 'application/json',
              ...(o.secret
                ? {
                    [NOTIFY_SIGNATURE_HEADER]: signNotification(
                      o.secret,
                      body,
                      Math.floor(Date.now() / 1000),
                    ),
                  }
                : {}),
            },
            body,
            redirect: 'manual',
            signal: AbortSignal.any([signal, AbortSignal.timeout(o.timeoutMs)]),
          });
          // The answer's body is not read: a receiver that streams one forever holds nothing.
          await res.body?.cancel().catch(() => {});
          if (res.status >= 200 && res.status < 300) return { ok: true, attempts };
          error = `HTTP ${res.status}`;
        } catch (e) {
          error = signal.aborted ? 'stopped' : fetchError(e, o.timeoutMs);
        }
      }
      return { ok: false, attempts, error: error || 'stopped' };
    },
  };
}

/**
 * `--notify-exec CMD` as the program and its arguments: a JSON array of strings
 * (`["/usr/bin/notify-send", "paneward"]`), or else words split on whitespace (no quoting, no
 * variables, no shell). Parsed once at start; an event never becomes part of it.
 */
export function parseCommand(cmd: string, field = 'notifyExec'): string[] {
  const text = cmd.trim();
  let argv: unknown;
  if (text.startsWith('[')) {
    try {
      argv = JSON.parse(text);
    } catch {
      throw new PanewardError(
        'invalid_input',
        `field \`${field}\`: ${JSON.stringify(cmd)} starts with [ but is not a JSON array of strings`,
      );
    }
  } else {
    argv = text.split(/\s+/).filter((w) => w !== '');
  }
  if (
    !Array.isArray(argv) ||
    argv.length === 0 ||
    !argv.every((a) => typeof a === 'string' && !a.includes('\0')) ||
    argv[0] === ''
  ) {
    throw new PanewardError(
      'invalid_input',
      `field \`${field}\`: must name a program (a JSON array of strings, or words separated by spaces)`,
    );
  }
  return argv as string[];
}

/** Variables of the service a command is not handed (its secrets). */
const WITHHELD = [
  'PANEWARD_TOKEN',
  'PANEWARD_FLEET_TOKEN',
  'PANEWARD_NATS_PASSWORD',
  'PANEWARD_NATS_TOKEN',
];

/** The event's fields as environment variables (a NUL, which no variable can hold, is dropped). */
export function eventEnv(event: NotifyEvent): Record<string, string> {
  const clean = (v: string) => v.replaceAll('\0', '');
  const env: Record<string, string> = {
    PANEWARD_EVENT: clean(JSON.stringify(event)),
    PANEWARD_EVENT_KIND: event.kind,
    PANEWARD_EVENT_AT: event.at,
    PANEWARD_EVENT_TERMINAL: clean(event.terminalId),
    PANEWARD_EVENT_TOOL: clean(event.tool),
    PANEWARD_EVENT_READINESS: event.state.readiness,
  };
  if (event.host !== undefined) env.PANEWARD_EVENT_HOST = clean(event.host);
  if (event.turnId !== undefined) env.PANEWARD_EVENT_TURN_ID = clean(event.turnId);
  if (event.outcome !== undefined) env.PANEWARD_EVENT_OUTCOME = event.outcome;
  if (typeof event.prompt === 'string') env.PANEWARD_EVENT_PROMPT = clean(event.prompt);
  if (event.reason !== undefined) env.PANEWARD_EVENT_REASON = clean(event.reason);
  return env;
}

/**
 * A command run once per event, without a shell: the event as JSON on its stdin (one line) and
 * its fields in `PANEWARD_EVENT_*` variables. Exit status 0 delivers it; another status, a
 * program that cannot be run, or one still running after the timeout (killed) fails it. A
 * command is not run again on failure (it may have done part of its work).
 */
export function execSink(argv: string[], index: number, o: { timeoutMs: number }): Sink {
  const [program, ...args] = argv;
  return {
    name: `exec:${index}`,
    describe: program!,
    deliver(event, signal) {
      return new Promise<Delivery>((resolve) => {
        if (signal.aborted) return resolve({ ok: false, attempts: 0, error: 'stopped' });
        const env: NodeJS.ProcessEnv = { ...process.env, ...eventEnv(event) };
        for (const name of WITHHELD) delete env[name];
        let settled = false;
        const finish = (d: Delivery) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          signal.removeEventListener('abort', kill);
          resolve(d);
        };
        let timedOut = false;
        const child = spawn(program!, args, {
          shell: false,
          stdio: ['pipe', 'ignore', 'ignore'],
          env,
        });
        const kill = () => child.kill('SIGKILL');
        const timer = setTimeout(() => {
          timedOut = true;
          kill();
        }, o.timeoutMs);
        signal.addEventListener('abort', kill, { once: true });
        child.on('error', (e: NodeJS.ErrnoException) =>
          finish({
            ok: false,
            attempts: 1,
            error: `cannot run ${program}: ${e.code ?? e.message}`,
          }),
        );
        child.on('close', (code, sig) => {
          if (timedOut) {
            return finish({
              ok: false,
              attempts: 1,
              error: `timeout after ${o.timeoutMs / 1000} s`,
            });
          }
          if (code === 0) return finish({ ok: true, attempts: 1 });
          finish({
            ok: false,
            attempts: 1,
            error: code !== null ? `exit status ${code}` : `killed by ${sig}`,
          });
        });
        // A command that does not read its stdin is not a failure.
        child.stdin.on('error', () => {});
        child.stdin.end(`${JSON.stringify(event)}\n`);
      });
    },
  };
}
