import { defineConfig } from 'vitest/config';

// Shared suites (*.case.ts) only run through their per-backend runners.
const exclude = ['**/node_modules/**', '**/*.case.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    // Tests that run `node dist/…` must not meet a build older than the sources.
    globalSetup: ['./test/helpers/fresh-dist.ts'],
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['src/**/*.test.{ts,tsx}', 'test/**/*.test.ts'], exclude } },
      // The HTTP interface again, on the machine's PostgreSQL (a schema per test).
      { extends: true, test: { name: 'postgres', include: ['test/api/**/*.test.ts'], exclude, env: { AGENTBOARD_TEST_STORE: 'postgres' } } },
    ],
  },
});
