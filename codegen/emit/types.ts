// TypeScript types of every tool's arguments and result (json-schema-to-typescript).
import { compile } from 'json-schema-to-typescript';
import type { ConnectorIR, ToolIR } from '../ir.ts';
import { finish, formatTs, headerLine } from '../printer.ts';
import { stripKeys, type JsonSchema } from '../schema.ts';

const OPTIONS = {
  bannerComment: '',
  format: false,
  strictIndexSignatures: true,
  unknownAny: true,
  declareExternallyReferenced: true,
} as const;

/** Nested `title`s would become separately named interfaces that collide across tools. */
function forTypes(schema: JsonSchema): JsonSchema {
  const { title: _t, ...rest } = stripKeys(schema, ['title']) as JsonSchema;
  return rest;
}

async function toolTypes(tool: ToolIR): Promise<string> {
  const args = await compile(forTypes(tool.argsTypeSchema) as never, tool.typeNames.args, OPTIONS);
  const result = tool.outputSchema
    ? await compile(forTypes(tool.outputSchema) as never, tool.typeNames.result, OPTIONS)
    : `/** The spec names no result shape for \`${tool.name}\`. */\nexport type ${tool.typeNames.result} = unknown;\n`;
  return `${args}\n${fixAliases(result, tool)}`;
}

/** jstt writes `export type X = ...` for non-object roots; keep the names we asked for. */
function fixAliases(text: string, _tool: ToolIR): string {
  return text;
}

export async function emitTypes(connector: Pick<ConnectorIR, 'source' | 'tools'>): Promise<string> {
  const parts = await Promise.all(connector.tools.map(toolTypes));
  const body = parts.join('\n');
  return finish(headerLine([connector.source], 'ts'), formatTs(body));
}
