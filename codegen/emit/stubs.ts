// Handler stubs: when a spec gains a tool whose handler file does not exist yet, write
// `handlers/<key>/<tool>.ts` with a stub that fails loudly when called. Only new files are
// written; hand-written code is never edited (the handler map itself is generated).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { camelCase, kebabCase, type ConnectorIR, type SpecIR } from '../ir.ts';

export interface FileChange {
  readonly path: string;
  readonly content: string;
  readonly reason: string;
}

export function stubFile(c: ConnectorIR, tool: string): string {
  return [
    `import type { ${c.typePrefix}Handler } from '../../generated/${c.key}/contract.ts';`,
    `import { stub } from '#runtime/handler-api/stub.ts';`,
    '',
    `/** Generated stub for \`${c.id}__${tool}\`: replace it with the upstream logic (see the spec in ${c.source}). */`,
    `export const ${camelCase(tool)}: ${c.typePrefix}Handler<'${tool}'> = stub('${c.key}', '${tool}');`,
    '',
  ].join('\n');
}

/** New stub files for tools that have no handler file under `handlersDir`. */
export function planStubs(ir: SpecIR, handlersDir: string, handlersRel = 'handlers'): FileChange[] {
  const changes: FileChange[] = [];
  for (const c of ir.connectors) {
    for (const tool of c.tools) {
      const fileName = `${kebabCase(tool.name)}.ts`;
      if (existsSync(join(handlersDir, c.key, fileName))) continue;
      changes.push({
        path: `${handlersRel}/${c.key}/${fileName}`,
        content: stubFile(c, tool.name),
        reason: `stub for new tool ${c.key}.${tool.name}`,
      });
    }
  }
  return changes;
}
