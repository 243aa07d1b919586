import type { FailureKind, KnownFailure } from '../../schemas/signals.js';

/** Longest failure message a profile reports; the screen line it quotes can be much longer. */
export const MAX_FAILURE_MESSAGE = 200;

/** A failure message cut to the common bound. */
export function boundMessage(message: string): string {
  return message.slice(0, MAX_FAILURE_MESSAGE);
}

/** The failure kind an HTTP status means, the same for every CLI. */
export function kindOfStatus(status: number): FailureKind {
  if (status === 429) return 'rate_limited';
  if (status === 529 || status === 503) return 'overloaded';
  if (status === 401 || status === 403) return 'auth_failed';
  if (status >= 500) return 'server_error';
  if (status >= 400) return 'request_rejected';
  return 'other';
}

/** The first HTTP error status (4xx, 5xx) a message names as a word of its own. */
export function statusIn(message: string): number | undefined {
  const m = /(?<![\w.])([45]\d\d)(?![\w.])/.exec(message);
  return m ? Number(m[1]) : undefined;
}

/**
 * A failure read from an error message: the kind from the CLI's own table (first match wins),
 * else from the HTTP status the message names, else `other`.
 */
export function failureFrom(
  message: string,
  table: ReadonlyArray<{ kind: FailureKind; re: RegExp }> = [],
): KnownFailure {
  const status = statusIn(message);
  const kind =
    table.find((f) => f.re.test(message))?.kind ??
    (status === undefined ? 'other' : kindOfStatus(status));
  return { kind, message: boundMessage(message), ...(status === undefined ? {} : { status }) };
}

/** What OpenAI-compatible providers say in their error bodies (the CLIs print them as is). */
export const PROVIDER_MESSAGES: ReadonlyArray<{ kind: FailureKind; re: RegExp }> = [
  { kind: 'rate_limited', re: /rate limit|too many requests/i },
  { kind: 'overloaded', re: /overloaded/i },
  { kind: 'auth_failed', re: /incorrect api key|unauthori[sz]ed/i },
  { kind: 'server_error', re: /server had an error|internal server error/i },
  { kind: 'request_rejected', re: /^invalid request\b/i },
];
