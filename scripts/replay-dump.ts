import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeLine } from '../src/journal/codec.js';
import { parseRecording, pipelineFor, playRecording, readJsonLines } from '../src/replay/replay.js';
import { listRecordings } from './internal/bench-pipeline.js';

/**
 * `tsx scripts/replay-dump.ts <out-dir>`: replays every bundled recording (recordings/ and
 * test/fixtures/) and writes, per recording, the public states replay prints and the journal
 * lines the pipeline appended, so two versions of the frame path can be compared byte for byte
 * (`diff -r`). Prints the totals.
 */
const out = process.argv[2];
if (!out) {
  console.error('usage: tsx scripts/replay-dump.ts <out-dir>');
  process.exit(2);
}
const root = fileURLToPath(new URL('..', import.meta.url));
const files = [
  ...listRecordings(join(root, 'recordings')),
  ...listRecordings(join(root, 'test/fixtures')),
];
let states = 0;
let records = 0;
for (const file of files) {
  const rec = parseRecording(readJsonLines(file));
  const { pipeline, clock } = pipelineFor(rec);
  const stateLines: string[] = [];
  let started = false;
  const sub = pipeline.state$.subscribe((s) => started && stateLines.push(JSON.stringify(s)));
  playRecording(rec, pipeline, clock, { onFirstLine: () => (started = true) });
  await pipeline.journal.flush();
  const recordLines = pipeline.journal.read().map((r) => encodeLine(r));
  sub.unsubscribe();
  pipeline.dispose();
  const name = file
    .slice(root.length)
    .replace(/\//g, '__')
    .replace(/\.jsonl$/, '');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, `${name}.states.jsonl`), stateLines.map((l) => l + '\n').join(''));
  writeFileSync(join(out, `${name}.records.jsonl`), recordLines.join(''));
  states += stateLines.length;
  records += recordLines.length;
}
console.log(`${files.length} recordings: ${states} state lines, ${records} records`);
