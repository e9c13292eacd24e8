// Suites that need a PostgreSQL or Redis server: `describe(name, needs('postgres'), () => …)`.
// Where the server is missing (a laptop), the suite is skipped with the reason in its metadata and
// test/support/skip-reporter.ts names it in one line at the end of the run; .ci/run sets
// REQUIRE_SERVICES=1, so there a missing server fails the run (test/support/services-setup.ts).
import { inject, type TestOptions } from 'vitest';
import type { Service, ServiceStatus } from './service-probe.ts';

export { DATABASE_URL, REDIS_URL } from './service-probe.ts';

declare module 'vitest' {
  interface ProvidedContext {
    services: ServiceStatus;
  }
  interface TaskMeta {
    /** Why this suite or test was skipped, for the skip reporter. */
    skipReason?: string;
  }
}

/** Options for `describe`/`it`: skipped, with the reason, unless every named service answered. */
export function needs(...services: Service[]): TestOptions {
  const status = inject('services');
  return skipWith(
    services
      .map((service) => status[service])
      .filter((reason) => reason !== null)
      .join('; ') || undefined,
  );
}

/** Options for `describe`/`it`: skipped with this reason, or run when it is undefined. */
export function skipWith(reason: string | undefined): TestOptions {
  return reason ? { skip: true, meta: { skipReason: reason } } : {};
}
