// Validators compiled ahead of time with ajv's standalone code: nothing is compiled at start-up.
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import standaloneCodeModule from 'ajv/dist/standalone/index.js';
import type { ToolIR } from '../ir.ts';
import { finish, headerLine } from '../printer.ts';

type AddFormats = (ajv: Ajv, options?: { mode: "fast" | "full" }) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats;
type StandaloneCode = (ajv: Ajv, refsOrFunc: Record<string, string>) => string;
const standaloneCode = ((standaloneCodeModule as unknown as { default?: StandaloneCode }).default ?? standaloneCodeModule) as unknown as StandaloneCode;

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
  addFormats(ajv, { mode: "full" });
  return ajv;
}

export const inputExport = (tool: string) => `input_${tool}`;
export const outputExport = (tool: string) => `output_${tool}`;

export interface ValidatorSet {
  readonly tools: readonly ToolIR[];
  readonly source: string;
}

/** `validators.js`: one exported function per tool input and (where a shape is known) output. */
export function emitValidators(set: ValidatorSet): { js: string; dts: string } {
  const ajv = newAjv();
  const exports: Record<string, string> = {};
  for (const tool of set.tools) {
    ajv.addSchema(tool.validationSchema, `${tool.name}#input`);
    exports[inputExport(tool.name)] = `${tool.name}#input`;
    if (tool.outputSchema) {
      ajv.addSchema(tool.outputSchema, `${tool.name}#output`);
      exports[outputExport(tool.name)] = `${tool.name}#output`;
    }
  }
  const code = standaloneCode(ajv, exports);
  // ajv's ESM output still reaches its runtime helpers (formats, ucs2length) through `require`.
  const prelude = "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n";
  const header = headerLine([set.source], 'ts');
  const js = finish(header, `/* eslint-disable */\n${prelude}${code}`);
  const names = Object.keys(exports).sort();
  const dts = finish(
    header,
    `import type { CompiledValidator } from '#runtime/descriptor-types.ts';\n\n${names.map((n) => `export declare const ${n}: CompiledValidator;`).join('\n')}`,
  );
  return { js, dts };
}
