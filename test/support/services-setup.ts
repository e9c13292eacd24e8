// vitest globalSetup: probes PostgreSQL and Redis once for the whole run and hands the result to
// the test files (test/support/services.ts). With REQUIRE_SERVICES=1 (.ci/run) a missing one fails.
import type { TestProject } from 'vitest/node';
import { probeAll, requiredButMissing } from './service-probe.ts';

export default async function setup(project: TestProject): Promise<void> {
  const status = await probeAll();
  const failure = requiredButMissing(status, process.env);
  if (failure) {
    const error = new Error(failure);
    error.stack = `Error: ${failure}`; // the reason is the message; vitest's frames would only hide it
    throw error;
  }
  project.provide('services', status);
}
