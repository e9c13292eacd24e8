import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Probes PostgreSQL and Redis once; suites that need a missing one are skipped and named by
    // the skip reporter (REQUIRE_SERVICES=1, set by .ci/run, fails the run instead).
    globalSetup: ['test/support/services-setup.ts'],
    reporters: ['default', './test/support/skip-reporter.ts'],
  },
});
