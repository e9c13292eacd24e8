// The typed handler contract per connector, built from ts-morph structures: a map from tool name
// to a handler taking the typed arguments and a context and returning the typed result. The
// hand-written handlers/<key>/index.ts declares `satisfies <Prefix>Handlers`, so a missing, extra
// or mistyped handler is a compile error.
import { StructureKind, VariableDeclarationKind } from 'ts-morph';
import type { ConnectorIR } from '../ir.ts';
import { finish, headerLine, newSourceFile } from '../printer.ts';

export function emitContract(c: ConnectorIR): string {
  const p = c.typePrefix;
  const file = newSourceFile(`/contract-${c.key}.ts`);
  file.addImportDeclarations([
    { kind: StructureKind.ImportDeclaration, isTypeOnly: true, moduleSpecifier: '#runtime/handler-api/tool-context.ts', namedImports: ['ToolContext'] },
    {
      kind: StructureKind.ImportDeclaration,
      isTypeOnly: true,
      moduleSpecifier: './types.ts',
      namedImports: c.tools.flatMap((t) => [t.typeNames.args, t.typeNames.result]),
    },
  ]);
  file.addInterface({
    name: `${p}Tools`,
    isExported: true,
    docs: [`Arguments (after validation and defaults) and result of every ${c.title} tool.`],
    properties: c.tools.map((t) => ({
      name: t.name,
      isReadonly: true,
      type: `{ readonly args: ${t.typeNames.args}; readonly result: ${t.typeNames.result} }`,
    })),
  });
  file.addTypeAlias({
    name: `${p}ToolName`,
    isExported: true,
    type: `keyof ${p}Tools`,
  });
  file.addTypeAlias({
    name: `${p}Handler`,
    isExported: true,
    typeParameters: [{ name: 'K', constraint: `${p}ToolName` }],
    type: `(args: ${p}Tools[K]['args'], ctx: ToolContext) => Promise<${p}Tools[K]['result']>`,
  });
  file.addTypeAlias({
    name: `${p}Handlers`,
    isExported: true,
    docs: ['Exactly one handler per tool of the spec.'],
    type: `{ readonly [K in ${p}ToolName]: ${p}Handler<K> }`,
  });
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    declarations: [{ name: `${c.key}ToolNames`, type: `readonly ${p}ToolName[]`, initializer: `[${c.tools.map((t) => `'${t.name}'`).join(', ')}]` }],
  });
  file.formatText({ indentSize: 2, convertTabsToSpaces: true });
  const text = file.getFullText();
  file.delete();
  return finish(headerLine([c.source], 'ts'), text);
}
