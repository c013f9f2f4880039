import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The console's .tsx files use the classic runtime of src/lib/html/jsx.ts (tsconfig's jsxFactory):
  // without this, Vite's development transform adds __self and __source props, which the runtime
  // refuses as attributes.
  oxc: { jsx: { development: false } },
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
