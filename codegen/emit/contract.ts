// The typed handler contract per connector, built from ts-morph structures. For every tool: its
// arguments and result, the error codes its spec lists (`errors:`) and its limits. A handler of
// tool K gets a `<Prefix>Context<K>` whose `fail` accepts only those codes with their text
// parameters, and whose `limits` has exactly the names the spec declares; the generated handler
// map (`generated/<key>/handlers.ts`, emitted by emit/registry.ts) declares
// `satisfies <Prefix>Handlers`, so a missing, extra or mistyped handler, a misspelled code, a
// missing parameter or an undeclared limit is a compile error.
import { StructureKind } from 'ts-morph';
import { placeholders, type ConnectorIR, type ToolIR } from '../ir.ts';
import { errorParamsType } from './descriptor.ts';
import { finish, headerLine, newSourceFile } from '../printer.ts';

function limitsType(limits: Readonly<Record<string, number>>): string {
  const names = Object.keys(limits);
  return names.length === 0 ? '{}' : `{ ${names.map((n) => `readonly ${n}: number;`).join(' ')} }`;
}

function toolLimitsType(p: string, tool: ToolIR): string {
  return Object.keys(tool.limits).length === 0 ? `${p}Limits` : `${p}Limits & ${limitsType(tool.limits)}`;
}

export function emitContract(c: ConnectorIR): string {
  const p = c.typePrefix;
  const file = newSourceFile(`/contract-${c.key}.ts`);
  file.addImportDeclarations([
    {
      kind: StructureKind.ImportDeclaration,
      isTypeOnly: true,
      moduleSpecifier: '#runtime/handler-api/tool-context.ts',
      namedImports: ['ToolContext'],
    },
    {
      kind: StructureKind.ImportDeclaration,
      isTypeOnly: true,
      moduleSpecifier: '../platform/descriptor.ts',
      namedImports: ['PlatformErrorParams'],
    },
    {
      kind: StructureKind.ImportDeclaration,
      isTypeOnly: true,
      moduleSpecifier: './descriptor.ts',
      namedImports: [`${p}ErrorParams`],
    },
    {
      kind: StructureKind.ImportDeclaration,
      isTypeOnly: true,
      moduleSpecifier: './types.ts',
      namedImports: c.tools.flatMap((t) => [t.typeNames.args, t.typeNames.result]),
    },
  ]);
  file.addTypeAlias({
    name: `${p}TextParams`,
    isExported: true,
    docs: [
      `Parameters of every text the ${c.title} tools can end with: the connector's own ` +
        `codes, then the platform's. \`{upstream}\` is filled in by the runtime.`,
    ],
    type: `${p}ErrorParams & Omit<PlatformErrorParams, keyof ${p}ErrorParams>`,
  });
  file.addStatements(
    errorParamsType(
      `${p}ResultTexts`,
      Object.entries(c.texts).map(([code, text]) => ({ code, params: placeholders(text) })),
    ).replace(
      'export interface',
      `/** The connector's other texts (\`connector.texts\`), by name, with their ` +
        `parameters: \`ctx.text(name, params)\`. */\nexport interface`,
    ),
  );
  file.addTypeAlias({
    name: `${p}Limits`,
    isExported: true,
    docs: [`The connector's limits (\`connector.limits\` in ${c.source}).`],
    type: limitsType(c.limits),
  });
  file.addInterface({
    name: `${p}Tools`,
    isExported: true,
    docs: [
      'Arguments (after validation and defaults), result, error codes (the ' +
        `tool's \`errors:\`) and limits of every ${c.title} tool.`,
    ],
    properties: c.tools.map((t) => ({
      name: t.name,
      isReadonly: true,
      type:
        `{ readonly args: ${t.typeNames.args}; readonly result: ${t.typeNames.result}; readonly errors: ` +
        `${t.errors.map((e) => `'${e}'`).join(' | ') || 'never'}; readonly limits: ${toolLimitsType(p, t)} }`,
    })),
  });
  file.addTypeAlias({ name: `${p}ToolName`, isExported: true, type: `keyof ${p}Tools` });
  file.addTypeAlias({
    name: `${p}Context`,
    isExported: true,
    typeParameters: [{ name: 'K', constraint: `${p}ToolName` }],
    docs: [
      'What the handler of tool K may touch: `fail`/`refuseArguments` take only ' +
        'the codes its spec lists, `limits` only the names it declares.',
    ],
    type: `ToolContext<Pick<${p}TextParams, ${p}Tools[K]['errors']>, ${p}Tools[K]['limits'], ${p}ResultTexts>`,
  });
  file.addTypeAlias({
    name: `${p}ContextWith`,
    isExported: true,
    typeParameters: [
      { name: 'Codes', constraint: `keyof ${p}TextParams` },
      { name: 'Limits', constraint: 'object', default: '{}' },
    ],
    docs: [
      'The context a helper shared by several tools asks for: the codes it may end a call with ' +
        'and the limits it reads. Only tools whose spec lists those codes can call it.',
    ],
    type: `ToolContext<Pick<${p}TextParams, Codes>, Limits, ${p}ResultTexts>`,
  });
  file.addTypeAlias({
    name: `${p}Handler`,
    isExported: true,
    typeParameters: [{ name: 'K', constraint: `${p}ToolName` }],
    type: `(args: ${p}Tools[K]['args'], ctx: ${p}Context<K>) => Promise<${p}Tools[K]['result']>`,
  });
  file.addTypeAlias({
    name: `${p}Handlers`,
    isExported: true,
    docs: ['Exactly one handler per tool of the spec.'],
    type: `{ readonly [K in ${p}ToolName]: ${p}Handler<K> }`,
  });
  file.formatText({ indentSize: 2, convertTabsToSpaces: true });
  const text = file.getFullText();
  file.delete();
  return finish(headerLine([c.source], 'ts'), text);
}
