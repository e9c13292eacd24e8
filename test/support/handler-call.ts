// Calls one connector handler as the pipeline would, without the gateway: arguments through the
// generated input validator (defaults filled in), the result through the output validator, and a
// failure rendered into the spec text the runtime would answer.
import { expect } from 'vitest';
import { renderToolReferences } from '../../runtime/gateway-context.ts';
import type { ConnectorModule } from '../../runtime/handler-api/descriptor-types.ts';
import { formatText, ToolError } from '../../runtime/handler-api/tool-error.ts';
import { checkArguments } from '../../runtime/pipeline/arguments.ts';
import type { TestToolContext } from './tool-context.ts';

/**
 * Runs `tool` of `module` with `raw` arguments; throws when the schema refuses them or the result does not match the
 * output schema.
 */
export async function callHandler(
  module: ConnectorModule,
  tool: string,
  raw: Record<string, unknown>,
  ctx: TestToolContext,
): Promise<any> {
  const checked = checkArguments({ coerce: [] }, module.validators[`input_${tool}`]!, raw);
  if (!checked.ok) throw new Error(`arguments refused by the schema: ${checked.reason}`);
  const result = await module.handlers[tool]!(checked.args, ctx);
  const output = module.validators[`output_${tool}`]!;
  output(result);
  expect(output.errors ?? [], `output_${tool}`).toEqual([]);
  return result;
}

/** The failure of a call: the error, and for a spec error its code, whether it was a refusal, and the rendered text. */
export async function failureOf(
  module: ConnectorModule,
  call: Promise<unknown>,
): Promise<{ error: unknown; code?: string; refusal?: boolean; text?: string }> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the call should fail').toBeDefined();
  if (!(error instanceof ToolError)) return { error };
  const { descriptor } = module;
  const entry = descriptor.errors[error.code]!;
  // As the default instance answers it: sibling tools named `<default id>__<tool>`.
  const text = formatText(renderToolReferences(entry.text, descriptor.defaultId), {
    upstream: descriptor.upstream.name,
    ...error.params,
  });
  return { error, code: error.code, refusal: error.name === 'ArgumentRefusal', text };
}
