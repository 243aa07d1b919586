// A notification command for the tests: writes what it was given (its stdin, its
// PANEWARD_EVENT_* variables, its arguments) as JSON to the file named by its first argument,
// appending one line per run, then exits with the status its second argument names (default 0).
import { Buffer } from 'node:buffer';
import { appendFileSync } from 'node:fs';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => k.startsWith('PANEWARD_')),
);
appendFileSync(
  process.argv[2],
  `${JSON.stringify({ stdin: Buffer.concat(chunks).toString('utf8'), env, argv: process.argv.slice(2) })}\n`,
);
process.exit(Number(process.argv[3] ?? 0));
