import { Buffer } from 'node:buffer';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { NotifySignature } from '../schemas/notify.js';

/** The smallest secret `--notify-secret-file` takes, in characters (as the bearer token). */
export const MIN_NOTIFY_SECRET_LENGTH = 16;

/** The hex HMAC-SHA256 of `<t>.<body>`, keyed with `secret` (its UTF-8 bytes). */
function digest(secret: string, t: number, body: Uint8Array): string {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
}

/**
 * The `X-Paneward-Signature` value of a webhook body sent at `t` (unix seconds):
 * `t=<t>,v1=<hex HMAC-SHA256 of "<t>." and the body's bytes>`.
 */
export function signNotification(secret: string, body: Uint8Array, t: number): string {
  return `t=${t},v1=${digest(secret, t, body)}`;
}

/** Why {@link verifyNotification} refused a request; null when it is genuine and fresh. */
export type SignatureProblem = 'malformed' | 'mismatch' | 'too_old' | 'from_the_future';

/**
 * Checks a signature as a receiver would: the header's form, the digest of the body as
 * received (compared in constant time), and that `t` is within `toleranceSeconds` of `now`.
 */
export function verifyNotification(
  secret: string,
  header: string | undefined,
  body: Uint8Array,
  o: { toleranceSeconds?: number; now?: number } = {},
): SignatureProblem | null {
  const parsed = NotifySignature.safeParse(header);
  if (!parsed.success) return 'malformed';
  const { t, v1 } = parsed.data;
  const want = Buffer.from(digest(secret, t, body), 'hex');
  if (!timingSafeEqual(want, Buffer.from(v1, 'hex'))) return 'mismatch';
  const now = o.now ?? Math.floor(Date.now() / 1000);
  const tolerance = o.toleranceSeconds ?? 300;
  if (now - t > tolerance) return 'too_old';
  if (t - now > tolerance) return 'from_the_future';
  return null;
}
