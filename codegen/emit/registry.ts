// The wiring, generated: `generated/<key>/handlers.ts` maps every tool of a connector to its
// handler, found by convention in `handlers/<key>/<tool-in-kebab-case>.ts` as the export
// `<toolInCamelCase>`, and checked with `satisfies <Prefix>Handlers`; `generated/registry.ts`
// holds every connector's descriptor, validators and handlers, checked over every connector key.
// Nothing hand-written is edited and nothing is cast.
import { camelCase, kebabCase, type ConnectorIR, type SpecIR } from '../ir.ts';
import { finish, headerLine } from '../printer.ts';

/** Where the handler of a tool lives, relative to the project root. */
export function handlerPath(c: ConnectorIR, tool: string): string {
  return `handlers/${c.key}/${kebabCase(tool)}.ts`;
}

/** The same, as imported from `generated/<key>/handlers.ts` (relative, so a fixture tree resolves alike). */
const handlerImport = (c: ConnectorIR, tool: string) => `../../${handlerPath(c, tool)}`;

export function emitHandlerMap(c: ConnectorIR): string {
  const imports = c.tools.map((t) => `import { ${camelCase(t.name)} } from '${handlerImport(c, t.name)}';`);
  const rows = c.tools.map((t) => `  ${t.name}: ${camelCase(t.name)},`);
  const text = [
    `import type { ${c.typePrefix}Handlers } from './contract.ts';`,
    ...imports,
    '',
    `/** Every ${c.title} tool's handler ` +
      `(\`handlers/${c.key}/<tool>.ts\`); a missing, extra or mistyped one is a type error. */`,
    `export const ${c.key}Handlers = {`,
    ...rows,
    `} satisfies ${c.typePrefix}Handlers;`,
  ].join('\n');
  return finish(headerLine([c.source], 'ts'), text);
}

export function emitRegistry(ir: SpecIR): string {
  const imports = ir.connectors.flatMap((c) => [
    `import { ${c.key}Descriptor } from './${c.key}/descriptor.ts';`,
    `import { ${c.key}Handlers } from './${c.key}/handlers.ts';`,
    `import * as ${c.key}Validators from './${c.key}/validators.js';`,
  ]);
  const keys = ir.connectors.map((c) => `'${c.key}'`);
  const text = [
    `import type { ConnectorModule } from '#runtime/handler-api/descriptor-types.ts';`,
    ...imports,
    '',
    '/** Every connector of specs/, by spec file stem. */',
    `export type ConnectorKey = ${keys.join(' | ') || 'never'};`,
    '',
    `export const connectorKeys: readonly ConnectorKey[] = [${keys.join(', ')}];`,
    '',
    '/** What the runtime serves: per connector, its descriptor, ' +
      '`input_<tool>`/`output_<tool>` validators and handlers. */',
    'export const registry = {',
    ...ir.connectors.map(
      (c) =>
        `  ${c.key}: { descriptor: ${c.key}Descriptor, validators: ${c.key}Validators, handlers: ${c.key}Handlers },`,
    ),
    '} as const satisfies { readonly [K in ConnectorKey]: ConnectorModule };',
  ].join('\n');
  return finish(headerLine([ir.platform.source, ...ir.connectors.map((c) => c.source)], 'ts'), text);
}
