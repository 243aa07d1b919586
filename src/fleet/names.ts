/**
 * Where the fleet's data lives in NATS. Records: the stream `PANEWARD` on subjects
 * `paneward.<host>.<terminal>.<kind>` (a kind such as `turn.started` spans two tokens; records
 * of no terminal use `~`, which no terminal id holds). Latest state: the KV bucket
 * `paneward_state`, key `<host>.<terminal>`. Liveness: the KV bucket `paneward_hosts`, key `<host>`, whose entries expire. Commands:
 * request/reply on `paneward-cmd.<host>` (outside the stream's subjects, so never stored).
 */
export const STREAM = 'PANEWARD';
export const STREAM_SUBJECTS = 'paneward.*.*.>';
export const STATE_BUCKET = 'paneward_state';
export const HOSTS_BUCKET = 'paneward_hosts';
/** Header carrying the journal seq of a published record (also its `Nats-Msg-Id` suffix). */
export const SEQ_HEADER = 'Paneward-Seq';

/** A record of no terminal (supervisor start, checkpoints) goes under this token. */
const NO_TERMINAL = '~';

// Terminal ids may hold dots, which split subject tokens and KV keys; `=` never occurs in one.
const encodeId = (id: string) => id.replaceAll('=', '=3D').replaceAll('.', '=2E');
const decodeId = (token: string) => token.replaceAll('=2E', '.').replaceAll('=3D', '=');

export function recordSubject(host: string, terminalId: string | null, kind: string): string {
  return `paneward.${host}.${terminalId === null ? NO_TERMINAL : encodeId(terminalId)}.${kind}`;
}

/** Every record of one host, or of one of its terminals. */
export function recordFilter(host: string, terminalId?: string): string {
  return `paneward.${host}.${terminalId === undefined ? '*' : encodeId(terminalId)}.>`;
}

/** Host and terminal of a record subject; null when it is not one. */
export function parseRecordSubject(
  subject: string,
): { host: string; terminalId: string | null } | null {
  const [prefix, host, terminal, ...kind] = subject.split('.');
  if (prefix !== 'paneward' || !host || !terminal || kind.length === 0) return null;
  return { host, terminalId: terminal === NO_TERMINAL ? null : decodeId(terminal) };
}

export const stateKey = (host: string, terminalId: string) => `${host}.${encodeId(terminalId)}`;

export function parseStateKey(key: string): { host: string; terminalId: string } | null {
  const dot = key.indexOf('.');
  if (dot <= 0) return null;
  return { host: key.slice(0, dot), terminalId: decodeId(key.slice(dot + 1)) };
}

export const commandSubject = (host: string) => `paneward-cmd.${host}`;

/** The message id of a record: a republish of the same record is dropped by JetStream. */
export const messageId = (host: string, seq: number) => `${host}:${seq}`;

/** A terminal of the fleet is named by its host: `host/id`. */
export const qualify = (host: string, terminalId: string) => `${host}/${terminalId}`;

export function unqualify(id: string): { host: string; terminalId: string } | null {
  const slash = id.indexOf('/');
  if (slash <= 0 || slash === id.length - 1) return null;
  return { host: id.slice(0, slash), terminalId: id.slice(slash + 1) };
}
