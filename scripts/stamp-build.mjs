// Marks dist/ as built from the sources as they are now: bin/paneward.js runs dist/ only while
// no source file is newer than this stamp (see docs/cli.md, "How the command starts").
import { writeFileSync } from 'node:fs';
import { URL } from 'node:url';

writeFileSync(new URL('../dist/.built', import.meta.url), `${new Date().toISOString()}\n`);
