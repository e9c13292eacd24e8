// Emits the golden fixture (test/fixtures/golden/specs) in memory.
import { emitAll, checkSpecs } from '../../codegen/generate.ts';
import type { SpecIR } from '../../codegen/ir.ts';

export const ROOT = new URL('../../', import.meta.url).pathname.replace(/\/$/, '');
export const GOLDEN = `${ROOT}/test/fixtures/golden`;

export function goldenIR(): SpecIR {
  const { diagnostics, ir } = checkSpecs(`${GOLDEN}/specs`, ROOT);
  if (!ir) throw new Error(`golden specs do not check:\n${diagnostics.map((d) => d.message).join('\n')}`);
  return ir;
}

export async function goldenFiles(): Promise<Map<string, string>> {
  return (await emitAll(goldenIR())).files;
}
