// generated/connectors.ts: every connector's descriptor and validators, keyed by spec file stem.
import type { SpecIR } from '../ir.ts';
import { finish, headerLine } from '../printer.ts';

export function emitConnectorsIndex(ir: SpecIR): string {
  const imports = ir.connectors.flatMap((c) => [
    `import { ${c.key}Descriptor } from './${c.key}/descriptor.ts';`,
    `import * as ${c.key}Validators from './${c.key}/validators.js';`,
  ]);
  const rows = ir.connectors.map((c) => `  ${c.key}: { descriptor: ${c.key}Descriptor, validators: ${c.key}Validators },`);
  const text = [
    `import type { CompiledValidator, ConnectorDescriptor } from '#runtime/handler-api/descriptor-types.ts';`,
    ...imports,
    '',
    'export interface GeneratedConnector {',
    '  readonly descriptor: ConnectorDescriptor;',
    '  /** `input_<tool>` and `output_<tool>` validators. */',
    '  readonly validators: Readonly<Record<string, CompiledValidator>>;',
    '}',
    '',
    'export const generatedConnectors = {',
    ...rows,
    '} as const satisfies Record<string, GeneratedConnector>;',
    '',
    'export type ConnectorKey = keyof typeof generatedConnectors;',
    '',
    `export const connectorKeys: readonly ConnectorKey[] = [${ir.connectors.map((c) => `'${c.key}'`).join(', ')}];`,
  ].join('\n');
  return finish(headerLine([ir.platform.source, ...ir.connectors.map((c) => c.source)], 'ts'), text);
}
