import type { RecordDraft } from '../../../src/schemas/record.js';

const WORDS = ['ok', 'é', 'naïve', '漢字', '🙂', 'line\\nbreak', '"quoted"', 'tab\t'];

/** A record whose text mixes ASCII with multi-byte UTF-8, and whose length varies with `n`. */
export function restarted(terminalId: string, n: number): RecordDraft {
  const words = Array.from({ length: 1 + (n % 7) }, (_, i) => WORDS[(n + i) % WORDS.length]);
  return {
    kind: 'terminal.restarted',
    terminalId,
    attempt: 1 + (n % 5),
    delaySeconds: 0,
    error: `#${n} ${words.join(' ')}`,
  };
}
