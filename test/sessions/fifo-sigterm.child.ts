// Run by record-safety-opens.test.ts in a child process: follows six FIFOs as session records (and
// reads their first lines as `locate` does), prints `ready` once each was refused, and on
// SIGTERM writes a file before it exits, as a service flushes its journal. A libuv pool held
// by opens of FIFOs would leave that write, and so the exit, waiting for good.
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { firstLine } from '../../src/profiles/record-files.js';
import type { SessionRecordReader } from '../../src/profiles/session-record.js';
import { RecordFollower } from '../../src/sessions/follower.js';

const dir = process.argv[2] as string;
const reader: SessionRecordReader = {
  tool: 'test',
  kind: 'jsonl',
  verifiedVersions: [],
  locate: () => Promise.resolve(null),
  read: () => ({ events: [] }),
};

process.on('SIGTERM', () => {
  void writeFile(join(dir, 'bye'), 'done').then(() => process.exit(0));
});

let refused = 0;
const fifos = Array.from({ length: 6 }, (_, i) => join(dir, `record-${i}.jsonl`));
for (const fifo of fifos) {
  execFileSync('mkfifo', [fifo]);
  const f = new RecordFollower({
    file: fifo,
    reader,
    pollMs: 50,
    report: (r) => {
      if (r.type === 'refused' && ++refused === fifos.length) process.stdout.write('ready\n');
    },
  });
  f.start();
  void firstLine(fifo);
}
setInterval(() => undefined, 1000); // a service keeps running
