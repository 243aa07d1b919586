import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  diffVisualizations,
  generateVisualizations,
  visualizationsDir,
} from './internal/visualizations.js';

/**
 * `npm run visualize`: regenerate visualizations/ from machines/ (stale files are removed).
 * `npm run visualize -- --check`: write nothing; exit 1 listing every file that differs.
 */
async function main(argv: readonly string[]): Promise<number> {
  const check = argv.includes('--check');
  const expected = await generateVisualizations();
  const diffs = await diffVisualizations(visualizationsDir, expected);

  if (check) {
    if (diffs.length === 0) {
      console.log(`visualizations/ is up to date (${expected.size} files)`);
      return 0;
    }
    console.error('visualizations/ is out of date; run `npm run visualize`:');
    for (const d of diffs) console.error(`  ${d.problem.padEnd(10)} visualizations/${d.file}`);
    return 1;
  }

  await mkdir(visualizationsDir, { recursive: true });
  for (const d of diffs) {
    const path = join(visualizationsDir, d.file);
    if (d.problem === 'unexpected') await rm(path);
    else await writeFile(path, expected.get(d.file) ?? '');
    console.log(`${d.problem === 'unexpected' ? 'removed' : 'wrote  '} visualizations/${d.file}`);
  }
  console.log(`visualizations/: ${diffs.length} changed, ${expected.size} files`);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
