// Handler stubs: when a spec gains a tool, add `handlers/<key>/<tool>.ts` and register it in
// `handlers/<key>/index.ts` with ts-morph, without touching any hand-written code. Only adds.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Node, Project, QuoteKind, IndentationText, type ObjectLiteralExpression, type SourceFile } from 'ts-morph';
import { camelCase, kebabCase, type ConnectorIR, type SpecIR } from '../ir.ts';

export interface FileChange {
  readonly path: string;
  readonly content: string;
  readonly reason: string;
}

function project(): Project {
  return new Project({
    useInMemoryFileSystem: true,
    manipulationSettings: { quoteKind: QuoteKind.Single, indentationText: IndentationText.TwoSpaces },
  });
}

export function stubFile(c: ConnectorIR, tool: string): string {
  return [
    `import type { ${c.typePrefix}Handler } from '#generated/${c.key}/contract.ts';`,
    `import { stub } from '#runtime/handler-api/stub.ts';`,
    '',
    `/** Generated stub for \`${c.id}__${tool}\`: replace it with the upstream logic (see the spec in ${c.source}). */`,
    `export const ${camelCase(tool)}: ${c.typePrefix}Handler<'${tool}'> = stub('${c.key}', '${tool}');`,
    '',
  ].join('\n');
}

function newIndex(c: ConnectorIR): string {
  return [
    `import type { ${c.typePrefix}Handlers } from '#generated/${c.key}/contract.ts';`,
    '',
    `/** Every ${c.title} tool's handler; \`satisfies\` makes a missing, extra or mistyped one a type error. */`,
    `export const ${c.key}Handlers = {} satisfies ${c.typePrefix}Handlers;`,
    '',
  ].join('\n');
}

function handlerMap(file: SourceFile, name: string): ObjectLiteralExpression | undefined {
  const declaration = file.getVariableDeclaration(name);
  let init = declaration?.getInitializer();
  while (init && (Node.isSatisfiesExpression(init) || Node.isAsExpression(init) || Node.isParenthesizedExpression(init))) init = init.getExpression();
  return init && Node.isObjectLiteralExpression(init) ? init : undefined;
}

/** Changes that bring handlers/ up to the specs: new stub files and index registrations. */
export function planStubs(ir: SpecIR, handlersDir: string, handlersRel = 'handlers'): FileChange[] {
  const changes: FileChange[] = [];
  const p = project();
  for (const c of ir.connectors) {
    const dir = join(handlersDir, c.key);
    const indexPath = join(dir, 'index.ts');
    const indexText = existsSync(indexPath) ? readFileSync(indexPath, 'utf8') : newIndex(c);
    const index = p.createSourceFile(`/${c.key}/index.ts`, indexText, { overwrite: true });
    const map = handlerMap(index, `${c.key}Handlers`);
    if (!map) throw new Error(`${handlersRel}/${c.key}/index.ts must declare \`export const ${c.key}Handlers = { … } satisfies ${c.typePrefix}Handlers\``);
    const present = new Set(map.getProperties().flatMap((prop) => (Node.isPropertyAssignment(prop) || Node.isShorthandPropertyAssignment(prop) ? [prop.getName()] : [])));
    const added: string[] = [];
    for (const tool of c.tools) {
      if (present.has(tool.name)) continue;
      const fileName = `${kebabCase(tool.name)}.ts`;
      const toolPath = join(dir, fileName);
      if (!existsSync(toolPath)) changes.push({ path: `${handlersRel}/${c.key}/${fileName}`, content: stubFile(c, tool.name), reason: `stub for new tool ${c.key}.${tool.name}` });
      index.addImportDeclaration({ moduleSpecifier: `./${fileName}`, namedImports: [camelCase(tool.name)] });
      map.addPropertyAssignment({ name: tool.name, initializer: camelCase(tool.name) });
      added.push(tool.name);
    }
    if (added.length > 0 || !existsSync(indexPath)) {
      changes.push({ path: `${handlersRel}/${c.key}/index.ts`, content: index.getFullText(), reason: `register ${added.length} new handler(s): ${added.join(', ')}` });
    }
  }
  // handlers/index.ts: every connector's handler map.
  const rootPath = join(handlersDir, 'index.ts');
  const rootText = existsSync(rootPath)
    ? readFileSync(rootPath, 'utf8')
    : "/** Handler maps of every connector, keyed like generated/connectors.ts. */\nexport const connectorHandlers = {};\n";
  const root = p.createSourceFile('/index.ts', rootText, { overwrite: true });
  const rootMap = handlerMap(root, 'connectorHandlers');
  if (!rootMap) throw new Error(`${handlersRel}/index.ts must declare \`export const connectorHandlers = { … }\``);
  const registered = new Set(rootMap.getProperties().flatMap((prop) => (Node.isPropertyAssignment(prop) || Node.isShorthandPropertyAssignment(prop) ? [prop.getName()] : [])));
  const newKeys = ir.connectors.filter((c) => !registered.has(c.key));
  for (const c of newKeys) {
    root.addImportDeclaration({ moduleSpecifier: `./${c.key}/index.ts`, namedImports: [`${c.key}Handlers`] });
    rootMap.addPropertyAssignment({ name: c.key, initializer: `${c.key}Handlers` });
  }
  if (newKeys.length > 0 || !existsSync(rootPath)) {
    changes.push({ path: `${handlersRel}/index.ts`, content: root.getFullText(), reason: `register connector(s): ${newKeys.map((c) => c.key).join(', ')}` });
  }
  return changes;
}
