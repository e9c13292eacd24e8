// A handler cannot construct a ToolError: it ends a call with `ctx.fail` (typed from its spec) or
// `ctx.refuseArguments`. Enforced by Biome's noRestrictedImports in biome.json (handlers may import
// from `#runtime/handler-api/tool-error.ts` only `ErrorParams` and `failureCode`); this runs the
// project's own configuration over probe handlers in a scratch copy, so the rule cannot silently go.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'handler-lint-'));
const config = JSON.parse(readFileSync(join(root, 'biome.json'), 'utf8')) as Record<string, unknown>;
delete config['$schema'];
writeFileSync(join(scratch, 'biome.json'), JSON.stringify({ ...config, vcs: { enabled: false } }));
mkdirSync(join(scratch, 'handlers', 'probe'), { recursive: true });
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Biome's verdict on one probe handler: its exit status and the rules it names. */
function lint(name: string, source: string): { status: number | null; output: string } {
  writeFileSync(join(scratch, 'handlers', 'probe', `${name}.ts`), source);
  const run = spawnSync(
    join(root, 'node_modules', '.bin', 'biome'),
    ['lint', `--config-path=${scratch}`, `handlers/probe/${name}.ts`],
    { cwd: scratch, encoding: 'utf8' },
  );
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('handlers cannot construct a ToolError (biome.json)', () => {
  it('refuses `new ToolError(…)` in a handler', () => {
    const verdict = lint(
      'named',
      "import { ToolError } from '#runtime/handler-api/tool-error.ts';\n\nexport const " +
        "fail = (): never => {\n  throw new ToolError('key_rejectd');\n};\n",
    );
    expect(verdict.status).toBe(1);
    expect(verdict.output).toContain('lint/style/noRestrictedImports');
    expect(verdict.output).toContain('ctx.fail');
  });

  it('refuses the class through a namespace import and ArgumentRefusal too', () => {
    expect(
      lint(
        'namespace',
        "import * as errors from '#runtime/handler-api/tool-error.ts';\n\nexport const " +
          "fail = (): never => {\n  throw new errors.ToolError('x');\n};\n",
      ).output,
    ).toContain('noRestrictedImports');
    expect(
      lint(
        'refusal',
        "import { ArgumentRefusal } from '#runtime/handler-api/tool-error.ts';\n\nexport " +
          "const refuse = (): never => {\n  throw new ArgumentRefusal('x');\n};\n",
      ).output,
    ).toContain('noRestrictedImports');
  });

  it('allows what a handler needs: the code of a caught failure and the parameter type', () => {
    const verdict = lint(
      'allowed',
      "import { type ErrorParams, failureCode } from '#runtime/handler-api/tool-error.ts';\n\nexport const " +
        "fatal = (error: unknown, _params?: ErrorParams): boolean => failureCode(error) === 'key_rejected';\n",
    );
    expect(verdict.output).not.toContain('noRestrictedImports');
    expect(verdict.status).toBe(0);
  });
});
