import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Each test file gets its own database cloned from a migrated template, so files run in
    // parallel without sharing state. Two cores: more workers only queue on the CPU.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
