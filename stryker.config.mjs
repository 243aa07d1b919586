// `npm run mutate`: mutation testing of the rules (the charts, the kernel's drivers, the
// per-terminal pipeline). A surviving mutant is a rule the suite would not notice breaking.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts' },
  mutate: ['machines/**/*.ts', '!machines/index.ts', 'src/kernel/**/*.ts', 'src/tracker/**/*.ts'],
  coverageAnalysis: 'perTest',
  concurrency: 2,
  timeoutMS: 30_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.tmp/stryker',
  cleanTempDir: 'always',
};
