import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Removes the socket files of the tmux servers the tests started and stopped.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 20_000,
    pool: 'forks',
  },
});
