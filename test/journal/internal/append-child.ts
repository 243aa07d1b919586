/**
 * A process that keeps appending records to a journal until it is killed, printing `ACK <seq>`
 * as soon as the journal acknowledges each one (written and fsynced). Records are appended a
 * few at a time, so a kill can land in the middle of a batch being written. Each record's text
 * mixes ASCII with multi-byte UTF-8 and varies in length.
 * Usage: append-child.ts DATA_DIR SEGMENT_BYTES
 */
import { Journal } from '../../../src/journal/journal.js';
import { restarted } from './records.js';

const [dataDir, segmentBytes] = process.argv.slice(2);
const journal = new Journal({ dataDir: dataDir!, segmentBytes: Number(segmentBytes) });
process.stdout.write(`OPEN ${journal.lastSeq}\n`);

let n = 0;
for (;;) {
  const batch = Array.from({ length: 1 + (n % 4) }, () => {
    n += 1;
    return journal
      .append(restarted(`t${n % 3}`, n))
      .then((r) => process.stdout.write(`ACK ${r.seq}\n`));
  });
  await Promise.all(batch);
}
