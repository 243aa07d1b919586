// `npm run mutate`: mutation testing of the rules (the charts, the kernel's drivers, the
// per-terminal pipeline in src/terminal). A surviving mutant is a rule the suite would not
// notice breaking.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts' },
  mutate: [
    'machines/**/*.ts',
    '!machines/index.ts',
    'src/kernel/**/*.ts',
    'src/replay/**/*.ts',
    // A terminal's pure parts and its pipeline; the runtime, commands, answers and typing drive
    // tmux.
    'src/terminal/**/*.ts',
    '!src/terminal/runtime.ts',
    '!src/terminal/commands.ts',
    '!src/terminal/answer.ts',
    '!src/terminal/typing.ts',
  ],
  coverageAnalysis: 'perTest',
  // A static mutant (a machine's configuration, evaluated once at import) needs the whole suite
  // re-run in a fresh process per mutant: hours here for the 889 of them. Wrong configurations
  // (a wrong target, a halved window, a missing guard) are proven caught by
  // test/model/mutants.test.ts.
  ignoreStatic: true,
  concurrency: 2,
  timeoutMS: 30_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.tmp/stryker',
  cleanTempDir: 'always',
};
