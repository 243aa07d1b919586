import { defineConfig } from 'vitest/config';

/**
 * The tests `npm run mutate` runs against each mutant of machines/, src/kernel/, src/terminal/
 * and src/replay/: everything that drives those layers in process, without a live tmux, an agent
 * CLI or a subprocess.
 */
export default defineConfig({
  test: {
    include: [
      'test/machines/**/*.test.ts',
      'test/model/**/*.test.ts',
      'test/kernel/**/*.test.ts',
      'test/terminal/**/*.test.ts',
      'test/replay/**/*.test.ts',
      'test/journal/**/*.test.ts',
    ],
    // Not here: the replay CLI round trip (a subprocess per test), the mutant proof itself, and
    // more passes over every recording (screen alone, every frame recognised, each CLI's
    // version raised three ways): the recordings' timelines stay, and those passes would
    // multiply the cost of each mutant (the raised versions alone are a third of the suite's
    // time) to test the profiles' version gate, which is not mutated here.
    exclude: [
      // Real tmux: a stand-in CLI in a pane, the runtime's own tmux client.
      'test/terminal/answer.test.ts',
      'test/terminal/answer-colour.test.ts',
      'test/terminal/answer-confirm.test.ts',
      'test/terminal/runtime.test.ts',
      'test/replay/determinism.test.ts',
      'test/model/mutants.test.ts',
      'test/replay/screen-alone.test.ts',
      'test/replay/recognised.test.ts',
      'test/replay/version-raised.test.ts',
    ],
    testTimeout: 20_000,
    pool: 'forks',
  },
});
