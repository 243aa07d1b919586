import { PanewardError } from '../errors.js';

/** Why the journal cannot write, since when (epoch ms). */
export interface JournalFailure {
  code: 'journal_failed';
  message: string;
  since: number;
}

/** The error a failed write of the journal in `dir` becomes (what appends reject with). */
export function writeFailure(error: unknown, dir: string | null): PanewardError {
  const reason =
    (error as NodeJS.ErrnoException).code === 'ENOSPC'
      ? `the disk is full (${dir})`
      : `${error instanceof Error ? error.message : String(error)} (${dir})`;
  return new PanewardError('journal_failed', `the journal cannot be written: ${reason}`, {
    cause: error,
  });
}
