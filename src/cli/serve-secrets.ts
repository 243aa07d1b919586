import { statSync } from 'node:fs';
import { PanewardError } from '../errors.js';
import { readTokenFile } from '../internal/token-file.js';
import { MIN_TOKEN_LENGTH, type NatsAuth } from '../fleet/auth.js';
import { MIN_NOTIFY_SECRET_LENGTH } from '../notify/signature.js';
import { NotifyHeader } from '../schemas/notify.js';
import type { ServeOptions } from './serve-options.js';

/** The bearer token: `--token-file` first, else `PANEWARD_TOKEN`; null when neither is set. */
export function readToken(tokenFile: string | undefined, env = process.env): string | null {
  if (tokenFile !== undefined) {
    const text = readTokenFile(tokenFile, 'field `tokenFile`');
    if (text.length < 16) {
      throw new PanewardError(
        'invalid_input',
        'field `tokenFile`: the token must be at least 16 characters',
      );
    }
    return text;
  }
  const fromEnv = env.PANEWARD_TOKEN?.trim();
  if (fromEnv !== undefined && fromEnv !== '') {
    if (fromEnv.length < 16) {
      throw new PanewardError(
        'invalid_input',
        'PANEWARD_TOKEN: the token must be at least 16 characters',
      );
    }
    return fromEnv;
  }
  return null;
}

/** A secret kept in a file (trimmed), else in an environment variable; null when neither. */
function readSecret(
  file: string | undefined,
  field: string,
  variable: string,
  env = process.env,
): string | null {
  if (file !== undefined) {
    // A regular file of at most 4 KB, opened so that a FIFO cannot hang the service.
    const text = readTokenFile(file, `field \`${field}\``);
    if (text !== '') return text;
    throw new PanewardError('invalid_input', `field \`${field}\`: ${file} is empty`);
  }
  const fromEnv = env[variable]?.trim();
  return fromEnv === undefined || fromEnv === '' ? null : fromEnv;
}

/**
 * The key that signs webhook POSTs: the whole of `--notify-secret-file` (a regular file of at
 * most 4 KB, opened so that a FIFO cannot hang the service), trimmed; null without the option.
 */
export function readNotifySecret(file: string | undefined): string | null {
  if (file === undefined) return null;
  const secret = readSecret(file, 'notifySecretFile', '', {});
  if (secret === null || secret.length < MIN_NOTIFY_SECRET_LENGTH) {
    throw new PanewardError(
      'invalid_input',
      `field \`notifySecretFile\`: the secret in ${file} must be at least ${MIN_NOTIFY_SECRET_LENGTH} characters`,
    );
  }
  return secret;
}

/** The largest `--notify-header-file` read: headers, a long bearer token among them. */
export const MAX_NOTIFY_HEADER_FILE_BYTES = 64 * 1024;

/**
 * The headers of `--notify-header-file`: one `Name: value` a line (blank lines skipped), each
 * checked as `--notify-header` checks one, the error naming the option, the file and the line;
 * a name given twice, in the file or beside a `--notify-header`, is refused. Read once, as a
 * secret file is (a regular file, opened so that a FIFO cannot hang the service); its mode is
 * not checked, as no secret file's is: keep it `0600`. None without the option.
 */
export function readNotifyHeaderFile(
  file: string | undefined,
  given: readonly NotifyHeader[] = [],
): NotifyHeader[] {
  if (file === undefined) return [];
  const field = 'field `notifyHeaderFile`';
  const text = readTokenFile(file, field, {
    what: 'the headers',
    kind: 'a header file',
    maxBytes: MAX_NOTIFY_HEADER_FILE_BYTES,
    // Untrimmed, so that the lines are counted as an editor counts them.
    trim: false,
  });
  if (text.trim() === '') throw new PanewardError('invalid_input', `${field}: ${file} is empty`);
  const seen = new Set(given.map((h) => h.name.toLowerCase()));
  const out: NotifyHeader[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const where = `--notify-header-file ${file} line ${i + 1}`;
    const parsed = NotifyHeader.safeParse(line);
    if (!parsed.success) {
      const why = parsed.error.issues[0]!.message.replace(/^--notify-header /, '');
      throw new PanewardError('invalid_input', `${field}: ${where}: ${why}`);
    }
    const lower = parsed.data.name.toLowerCase();
    if (seen.has(lower)) {
      throw new PanewardError(
        'invalid_input',
        `${field}: ${where}: ${parsed.data.name} is given twice (in the file or by --notify-header)`,
      );
    }
    seen.add(lower);
    out.push(parsed.data);
  }
  return out;
}

/**
 * The fleet token: `--fleet-token-file`, else `PANEWARD_FLEET_TOKEN`, else the service's bearer
 * token (so one token set on every host and the fleet server serves both).
 */
export function readFleetToken(
  o: Pick<ServeOptions, 'fleetTokenFile'>,
  serviceToken: string | null,
  env = process.env,
): string | null {
  const token = readSecret(o.fleetTokenFile, 'fleetTokenFile', 'PANEWARD_FLEET_TOKEN', env);
  if (token !== null && token.length < MIN_TOKEN_LENGTH) {
    throw new PanewardError(
      'invalid_input',
      `field \`fleetTokenFile\`: the fleet token must be at least ${MIN_TOKEN_LENGTH} characters`,
    );
  }
  return token ?? serviceToken;
}

/** The NATS login and TLS the options give (secrets from their files or the environment). */
export function natsAuthOf(o: ServeOptions, env = process.env): NatsAuth {
  const auth: NatsAuth = {};
  for (const field of ['natsCreds', 'natsNkey', 'natsCa', 'natsCert', 'natsKey'] as const) {
    const file = o[field];
    if (file === undefined) continue;
    // Only a regular file is read (a FIFO would block the service for good).
    let regular = false;
    try {
      regular = statSync(file).isFile();
    } catch (error) {
      throw new PanewardError('invalid_input', `field \`${field}\`: cannot read ${file}`, {
        cause: error,
      });
    }
    if (!regular) {
      throw new PanewardError('invalid_input', `field \`${field}\`: ${file} is not a regular file`);
    }
  }
  if (o.natsUser !== undefined) {
    const password = readSecret(
      o.natsPasswordFile,
      'natsPasswordFile',
      'PANEWARD_NATS_PASSWORD',
      env,
    );
    if (password === null) {
      throw new PanewardError(
        'invalid_input',
        'field `natsPasswordFile`: --nats-user needs its password: --nats-password-file FILE or PANEWARD_NATS_PASSWORD',
      );
    }
    auth.user = o.natsUser;
    auth.password = password;
  } else if (o.natsCreds !== undefined) {
    auth.credsFile = o.natsCreds;
  } else if (o.natsNkey !== undefined) {
    auth.nkeySeedFile = o.natsNkey;
  } else {
    const token = readSecret(o.natsTokenFile, 'natsTokenFile', 'PANEWARD_NATS_TOKEN', env);
    if (token !== null) auth.token = token;
  }
  if (o.natsCa !== undefined || o.natsCert !== undefined) {
    auth.tls = {
      ...(o.natsCa !== undefined ? { caFile: o.natsCa } : {}),
      ...(o.natsCert !== undefined ? { certFile: o.natsCert, keyFile: o.natsKey! } : {}),
    };
  }
  return auth;
}
