// Runs the spec checks over one fixture folder of test/fixtures/diagnostics, as if it were specs/.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatDiagnostic } from '../../codegen/diagnostics.ts';
import { runPipeline } from '../../codegen/generate.ts';

export const DIAGNOSTIC_FIXTURES = new URL('../fixtures/diagnostics/', import.meta.url).pathname;
/** The day the fixtures' deprecation sunsets are checked against (SPEC045), as `codegen --lint --today` would. */
export const FIXTURE_TODAY = '2026-11-28';

export async function checkFixture(name: string): Promise<{ lines: string[]; codes: string[]; hints: string[] }> {
  const root = mkdtempSync(join(tmpdir(), 'spec-fixture-'));
  try {
    const specs = join(root, 'specs');
    mkdirSync(specs);
    const dir = join(DIAGNOSTIC_FIXTURES, name);
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) cpSync(join(dir, file), join(specs, file));
    if (!existsSync(join(dir, 'NO_PLATFORM')) && !existsSync(join(dir, 'platform.yaml'))) {
      cpSync(join(DIAGNOSTIC_FIXTURES, '_platform.yaml'), join(specs, 'platform.yaml'));
    }
    const { diagnostics } = await runPipeline(specs, root, { today: FIXTURE_TODAY });
    return {
      lines: diagnostics.map((d) => formatDiagnostic(d).split('\n')[0]!),
      codes: diagnostics.map((d) => d.code),
      hints: diagnostics.map((d) => d.hint),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export function fixtureNames(): string[] {
  return readdirSync(DIAGNOSTIC_FIXTURES, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}
