import { Buffer } from 'node:buffer';
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { PanewardError } from '../errors.js';

/** The largest token file read: a bearer token is a line, never kilobytes. */
export const MAX_TOKEN_FILE_BYTES = 4096;

function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isDirectory()) return 'a directory';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * The bearer token in `file`, trimmed. Only a regular file of at most
 * {@link MAX_TOKEN_FILE_BYTES} is read (a symbolic link to one is followed); it is opened
 * non-blocking, so a FIFO with no writer is refused at once instead of waiting for one, and
 * `/dev/zero` is refused rather than read without end. Errors name `field` and the file.
 */
export function readTokenFile(
  file: string,
  field: string,
  /** What the file holds, for its errors, and how large it may be. */
  holds: { what: string; kind: string; maxBytes: number; trim?: boolean } = {
    what: 'the token',
    kind: 'a token file',
    maxBytes: MAX_TOKEN_FILE_BYTES,
  },
): string {
  const max = holds.maxBytes;
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new PanewardError('invalid_input', `${field}: cannot read ${file} (${code})`, {
      cause: error,
    });
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) {
      throw new PanewardError(
        'invalid_input',
        `${field}: ${file} is ${kindOf(st)}; ${holds.what} must be in a regular file`,
      );
    }
    if (st.size > max) {
      throw new PanewardError(
        'invalid_input',
        `${field}: ${file} has ${st.size} bytes; ${holds.kind} holds at most ${max}`,
      );
    }
    // Read to its end, one byte past the cap at most (the file may grow while it is read).
    const buf = Buffer.alloc(max + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
      if (n > max) {
        throw new PanewardError(
          'invalid_input',
          `${field}: ${file} has more than ${max} bytes; ${holds.kind} holds at most ${max}`,
        );
      }
    }
    const text = buf.subarray(0, n).toString('utf8');
    return holds.trim === false ? text : text.trim();
  } finally {
    closeSync(fd);
  }
}
