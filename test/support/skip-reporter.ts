// Names, one line each at the end of the run, the suites and tests skipped for a reason
// (`needs(...)`/`skipWith(...)` in test/support/services.ts): a laptop without PostgreSQL or Redis
// sees what did not run and why instead of a bare count of skipped tests.
import { relative } from 'node:path';
import type { Reporter, TestCase, TestModule, TestSuite, Vitest } from 'vitest/node';

/** The outermost suites and tests that carry a skip reason, as `file › name: reason` lines. */
export function skipLines(modules: ReadonlyArray<TestModule>, root: string): string[] {
  const lines: string[] = [];
  const visit = (task: TestSuite | TestCase, file: string) => {
    const reason = task.meta().skipReason;
    if (reason && task.options.mode === 'skip') {
      lines.push(`skipped ${file} › ${task.fullName}: ${reason}`);
      return; // its tests are skipped for the same reason
    }
    if (task.type === 'suite') for (const child of task.children) visit(child, file);
  };
  for (const module of modules) {
    const file = relative(root, module.moduleId);
    for (const child of module.children) visit(child, file);
  }
  return lines;
}

export default class SkipReporter implements Reporter {
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    if (!this.vitest) return;
    for (const line of skipLines(modules, this.vitest.config.root)) this.vitest.logger.log(line);
  }
}
