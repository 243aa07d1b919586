import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  AuthorizationError,
  credsAuthenticator,
  nkeyAuthenticator,
  type MsgHdrs,
  type NodeConnectionOptions,
} from '@nats-io/transport-node';
import { PanewardError } from '../errors.js';

/**
 * How a fleet process proves itself to NATS (what the server's `authorization` or `accounts`
 * ask for), and how it checks the server (TLS). At most one of user/password, token, creds
 * file and nkey seed file; files are read when the connection is set up.
 */
export interface NatsAuth {
  user?: string;
  password?: string;
  token?: string;
  /** A user JWT and its nkey seed, as `nsc` writes them (`.creds`). */
  credsFile?: string;
  /** A file holding an nkey user seed (`SU...`). */
  nkeySeedFile?: string;
  tls?: {
    /** The CA that signed the server's certificate (when it is not in the system's store). */
    caFile?: string;
    /** A client certificate and its key, for a server that verifies clients (`verify: true`). */
    certFile?: string;
    keyFile?: string;
  };
}

/** The header of a command that carries its signature with the fleet token. */
export const SIGNATURE_HEADER = 'Paneward-Signature';
const SCHEME = 'v1=';

/** A fleet token must be at least this long (as the service's bearer token). */
export const MIN_TOKEN_LENGTH = 16;

/**
 * The connection options for `auth`, its files read now: a missing or unreadable file, or a
 * mix of ways to log in, is refused naming the field.
 */
export function natsConnectOptions(auth: NatsAuth | undefined): Partial<NodeConnectionOptions> {
  if (!auth) return {};
  const ways = [
    auth.user !== undefined || auth.password !== undefined ? 'user' : null,
    auth.token !== undefined ? 'token' : null,
    auth.credsFile !== undefined ? 'credsFile' : null,
    auth.nkeySeedFile !== undefined ? 'nkeySeedFile' : null,
  ].filter((w) => w !== null);
  if (ways.length > 1) {
    throw new PanewardError(
      'invalid_input',
      `nats: field \`${ways[1]}\`: cannot be combined with \`${ways[0]}\` (one way to log in to NATS)`,
    );
  }
  if ((auth.user === undefined) !== (auth.password === undefined)) {
    const missing = auth.user === undefined ? 'user' : 'password';
    throw new PanewardError(
      'invalid_input',
      `nats: field \`${missing}\`: a NATS user needs a password and a password a user`,
    );
  }
  const out: Partial<NodeConnectionOptions> = {};
  if (auth.user !== undefined) {
    out.user = auth.user;
    out.pass = auth.password!;
  }
  if (auth.token !== undefined) out.token = auth.token;
  if (auth.credsFile !== undefined) {
    out.authenticator = credsAuthenticator(readAuthFile(auth.credsFile, 'credsFile'));
  }
  if (auth.nkeySeedFile !== undefined) {
    const seed = new TextDecoder().decode(readAuthFile(auth.nkeySeedFile, 'nkeySeedFile')).trim();
    if (!seed.startsWith('SU')) {
      throw new PanewardError(
        'invalid_input',
        `nats: field \`nkeySeedFile\`: ${auth.nkeySeedFile} holds no nkey user seed (one starts with SU)`,
      );
    }
    out.authenticator = nkeyAuthenticator(new TextEncoder().encode(seed));
  }
  const tls = auth.tls;
  if (tls && (tls.caFile ?? tls.certFile ?? tls.keyFile) !== undefined) {
    if ((tls.certFile === undefined) !== (tls.keyFile === undefined)) {
      const missing = tls.certFile === undefined ? 'certFile' : 'keyFile';
      throw new PanewardError(
        'invalid_input',
        `nats: field \`tls.${missing}\`: a client certificate needs its key and a key its certificate`,
      );
    }
    for (const field of ['caFile', 'certFile', 'keyFile'] as const) {
      if (tls[field] !== undefined) readAuthFile(tls[field], `tls.${field}`);
    }
    out.tls = {
      ...(tls.caFile ? { caFile: tls.caFile } : {}),
      ...(tls.certFile ? { certFile: tls.certFile, keyFile: tls.keyFile! } : {}),
    };
  }
  return out;
}

function readAuthFile(file: string, field: string): Uint8Array {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new PanewardError('invalid_input', `nats: field \`${field}\`: cannot read ${file}`, {
      cause: error,
    });
  }
}

/**
 * Why NATS refused a connection, said for the operator, or null when it is not a refusal
 * (the server is down or unreachable: that is waited out).
 */
export function natsRefusal(error: unknown): string | null {
  const text = error instanceof Error ? `${error.message} ${String(error.cause ?? '')}` : '';
  if (error instanceof AuthorizationError || /authoriz|authentic/i.test(text)) {
    return `NATS refused the credentials (${(error as Error).message}): give the user the server expects (--nats-user with --nats-password-file, --nats-token-file, --nats-creds or --nats-nkey)`;
  }
  if (/certificate|self.signed|tls|ssl|handshake/i.test(text)) {
    return `the TLS connection to NATS failed (${text.trim()}): give the CA that signed the server's certificate (--nats-ca), and a client certificate (--nats-cert, --nats-key) if the server asks for one`;
  }
  return null;
}

// ---- command signatures ---------------------------------------------------------------------

function mac(token: string, subject: string, body: string): Buffer {
  return createHmac('sha256', token).update(`paneward-cmd-v1\n${subject}\n`).update(body).digest();
}

/** The signature header of a command: HMAC-SHA256 with the fleet token over its subject and body. */
export function signCommand(token: string, subject: string, body: string): string {
  return SCHEME + mac(token, subject, body).toString('base64url');
}

/**
 * Whether a command was signed with `token`: null when it was, else why not. The signature
 * covers the subject and the whole body (with its request id and deadline), so one seen on the
 * wire can neither be moved to another host nor carry another command; it is compared in
 * constant time.
 */
export function checkSignature(
  token: string,
  subject: string,
  body: string,
  headers: MsgHdrs | undefined,
): string | null {
  const presented = headers?.get(SIGNATURE_HEADER) ?? '';
  if (presented === '') {
    return `this edge takes only signed commands and this one carries no ${SIGNATURE_HEADER} header: send it with the fleet token (--fleet-token-file or PANEWARD_FLEET_TOKEN on the fleet server)`;
  }
  const expected = mac(token, subject, body);
  const given = presented.startsWith(SCHEME)
    ? Buffer.from(presented.slice(SCHEME.length), 'base64url')
    : Buffer.alloc(0);
  const same =
    given.length === expected.length
      ? timingSafeEqual(given, expected)
      : // Compared all the same, so a wrong length takes as long as a wrong signature.
        !timingSafeEqual(expected, expected);
  if (!same) {
    return `the command's ${SIGNATURE_HEADER} does not match this edge's fleet token: the sender has another token (or the command was altered)`;
  }
  return null;
}
