// Reads its terminal raw with bracketed paste on, as agent TUIs do, and appends every byte it
// receives to the file named by its argument; shows the stand-in prompt `❯ ` so a profile reads
// it as ready.
import { appendFileSync, writeFileSync } from 'node:fs';

const out = process.argv[2];
writeFileSync(out, '');
process.stdin.setRawMode(true);
process.stdout.write('\x1b[?2004h');
process.stdout.write('paste reader\n❯ ');
process.stdin.on('data', (d) => appendFileSync(out, d));
