// The order in which Pipeline.call (pipeline.ts) makes the checks of a tools/call, and the start-up
// assertion that it is the order the spec declares. The order is the product contract (spec 000
// gateway rule 7, DECISIONS §6), not a setting: specs/platform.yaml `platform.checkOrder` publishes
// it in the catalog, codegen emits it into generated/platform/descriptor.ts, and the gateway
// refuses to start when the two differ, so the published claim cannot silently be false.
// test/check-order.test.ts checks the behaviour against the published order, pair by pair.

/**
 * The steps in the order Pipeline.call makes them. It is code, not data: the tool must be resolved
 * before anything else (the later steps need it), the fair-use unit reserved at step 5 is released
 * by a refusal at step 6, and the upstream stage is last. Change this list only together with
 * Pipeline.call and `platform.checkOrder` in specs/platform.yaml (then `npm run codegen`).
 */
export const IMPLEMENTED_CHECK_ORDER = [
  'tool_name',
  'subscription',
  'seat',
  'connection',
  'fair_use',
  'arguments',
  'upstream',
] as const;

export type CheckStep = (typeof IMPLEMENTED_CHECK_ORDER)[number];

/** Throws unless `declared` (the generated `platformDescriptor.checkOrder`) is exactly the implemented order. */
export function assertCheckOrder(declared: readonly string[] | undefined): void {
  const same =
    declared !== undefined &&
    declared.length === IMPLEMENTED_CHECK_ORDER.length &&
    declared.every((step, i) => step === IMPLEMENTED_CHECK_ORDER[i]);
  if (same) return;
  const shown = declared?.length ? declared.join(' → ') : '(none)';
  throw new Error(
    `check order mismatch: specs/platform.yaml declares platform.checkOrder ${shown} ` +
      '(generated/platform/descriptor.ts), ' +
      `but runtime/pipeline/pipeline.ts checks a tools/call in the order ${IMPLEMENTED_CHECK_ORDER.join(' → ')}. ` +
      'The catalog publishes the declared order: change the spec and the pipeline (and IMPLEMENTED_CHECK_ORDER in ' +
      'runtime/pipeline/check-order.ts) together, then run `npm run codegen`.',
  );
}
