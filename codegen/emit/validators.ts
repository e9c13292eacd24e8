// Validators compiled ahead of time with ajv's standalone code: nothing is compiled at start-up.
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import standaloneCodeModule from 'ajv/dist/standalone/index.js';
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import type { ToolIR } from '../ir.ts';
import { finish, headerLine } from '../printer.ts';

type AddFormats = (ajv: Ajv, options?: { mode: 'fast' | 'full' }) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;
type StandaloneCode = (ajv: Ajv, refsOrFunc: Record<string, string>) => string;
const standaloneCode = ((standaloneCodeModule as unknown as { default?: StandaloneCode }).default ??
  standaloneCodeModule) as unknown as StandaloneCode;

/**
 * The validation rules of the gateway: strict schemas, defaults filled in (handlers receive them),
 * no type coercion except the spec's own (`coerce: integer`, applied by the runtime first),
 * formats checked in full (a date must exist, not only look like YYYY-MM-DD).
 */
export const AJV_OPTIONS: Options = {
  strict: true,
  allowUnionTypes: true,
  allErrors: false,
  useDefaults: true,
  coerceTypes: false,
  messages: true,
  code: { source: true, esm: true, lines: true },
};

export function newAjv(): Ajv {
  const ajv = new Ajv(AJV_OPTIONS);
  addFormats(ajv, { mode: 'full' });
  return ajv;
}

export const inputExport = (tool: string) => `input_${tool}`;
export const outputExport = (tool: string) => `output_${tool}`;

export interface ValidatorSet {
  readonly tools: readonly ToolIR[];
  readonly source: string;
}

/**
 * `validators.js`: one exported function per tool input and (where a shape is known) output.
 * A schema that does not compile in strict mode becomes a SPEC028 diagnostic at its spec position.
 */
export function emitValidators(set: ValidatorSet): { js: string; dts: string; diagnostics: Diagnostic[] } {
  const ajv = newAjv();
  const exports: Record<string, string> = {};
  const diagnostics: Diagnostic[] = [];
  for (const tool of set.tools) {
    for (const [part, schema, name] of [
      ['input', tool.validationSchema, inputExport(tool.name)],
      ['output', tool.outputSchema, outputExport(tool.name)],
    ] as const) {
      if (!schema) continue;
      const id = `${tool.name}#${part}`;
      try {
        ajv.addSchema(schema, id);
        ajv.getSchema(id); // compiles now, so a bad schema is reported here, per tool
        exports[name] = id;
      } catch (error) {
        ajv.removeSchema(id);
        diagnostics.push(
          diagnostic(
            'SPEC028',
            tool.at.file,
            tool.at[part],
            `${part} schema of \`${tool.name}\`: ${(error as Error).message.split('\n')[0]}`,
          ),
        );
      }
    }
  }
  if (diagnostics.length > 0) return { js: '', dts: '', diagnostics };
  const code = standaloneCode(ajv, exports);
  // ajv's ESM output still reaches its runtime helpers (formats, ucs2length) through `require`.
  const prelude = "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n";
  const header = headerLine([set.source], 'ts');
  const js = finish(header, `/* eslint-disable */\n${prelude}${code}`);
  const names = Object.keys(exports).sort();
  const dts = finish(
    header,
    'import type { CompiledValidator } from ' +
      `'#runtime/handler-api/descriptor-types.ts';` +
      `\n\n${names.map((n) => `export declare const ${n}: CompiledValidator;`).join('\n')}`,
  );
  return { js, dts, diagnostics };
}
