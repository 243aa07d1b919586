import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';

export const errorJson = (code: string, message: string, details: unknown = null) => ({
  error: { code, message, details },
});

/** The names every service answers to: the loopback ones. */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** The name part of a `Host` header (or an allowed-host entry): lower case, no port. */
export function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  // A bare IPv6 address (given on the command line) is written as a URL writes it.
  if (h.split(':').length > 2) return `[${h}]`;
  const colon = h.indexOf(':');
  return colon < 0 ? h : h.slice(0, colon);
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * What a browser on another site must not do: reach the service under a name that is not its
 * own (DNS rebinding), or make it act from another origin (a form post, `fetch` with
 * `no-cors`, `sendBeacon`). `Host` must name the service; a request that acts must not come
 * from a foreign `Origin` (none at all, as from curl, passes) and must carry a JSON body or an
 * `X-Paneward` header, neither of which a page on another origin can send without the
 * preflight the service never grants.
 */
export function browserGuard(allowed: string[], corsOrigins: string[]): MiddlewareHandler {
  const names = new Set([...LOOPBACK_NAMES, ...allowed.map(hostName)]);
  const cors = new Set(corsOrigins.map((o) => o.replace(/\/+$/, '').toLowerCase()));
  const forbidden = (c: Context, header: string, message: string, value: string | null) =>
    c.json(errorJson('forbidden', `header \`${header}\`: ${message}`, { header, value }), 403);
  return async (c, next) => {
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (!names.has(hostName(host))) {
      return forbidden(
        c,
        'Host',
        `${JSON.stringify(host)} is not a name of this service (loopback only; add one with --allowed-host NAME)`,
        host,
      );
    }
    if (SAFE_METHODS.has(c.req.method)) return next();
    const origin = c.req.header('origin');
    if (origin !== undefined) {
      let same = false;
      try {
        same = new URL(origin).host.toLowerCase() === host.toLowerCase();
      } catch {
        same = false;
      }
      if (!same && !cors.has(origin.toLowerCase())) {
        return forbidden(
          c,
          'Origin',
          `a request from ${JSON.stringify(origin)} may not act on this service`,
          origin,
        );
      }
    }
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const marked = (c.req.header('x-paneward') ?? '') !== '';
    if (type !== 'application/json' && !marked) {
      return forbidden(
        c,
        'Content-Type',
        'a request that acts needs a JSON body (Content-Type: application/json) or the header X-Paneward: 1',
        c.req.header('content-type') ?? null,
      );
    }
    return next();
  };
}

/** Compares a presented token with the expected one in constant time. */
function tokenMatches(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export function bearer(token: string): MiddlewareHandler {
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const presented = header.startsWith('Bearer ') ? header.slice(7) : '';
    if (!tokenMatches(presented, token)) {
      c.header('WWW-Authenticate', 'Bearer');
      return c.json(errorJson('unauthorized', 'a valid bearer token is required'), 401);
    }
    await next();
  };
}
